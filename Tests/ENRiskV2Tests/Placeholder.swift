// Tests for ENRiskV2.
