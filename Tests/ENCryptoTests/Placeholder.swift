// Tests for ENCrypto.
