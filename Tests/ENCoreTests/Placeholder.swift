// Tests for ENCore.
