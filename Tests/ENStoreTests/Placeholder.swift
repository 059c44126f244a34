// Tests for ENStore.
