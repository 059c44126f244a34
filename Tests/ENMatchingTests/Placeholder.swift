// Tests for ENMatching.
