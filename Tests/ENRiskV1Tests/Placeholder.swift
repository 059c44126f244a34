// Tests for ENRiskV1.
