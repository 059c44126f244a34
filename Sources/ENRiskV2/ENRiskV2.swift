// The ENRiskV2 module. Its contents arrive with its issue; this file only keeps the target buildable.
