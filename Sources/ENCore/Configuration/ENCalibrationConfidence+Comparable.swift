extension ENCalibrationConfidence: Comparable {
    /// Orders confidences from ``lowest`` to ``high``.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
