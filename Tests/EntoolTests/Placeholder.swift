// Tests for Entool.
