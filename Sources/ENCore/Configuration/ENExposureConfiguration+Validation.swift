extension ENExposureConfiguration {
    /// Checks every property against Apple's limits and throws ``ENError/Code/badParameter`` naming the first
    /// one that is wrong.
    ///
    /// The limits are those iOS enforces when it reads a configuration:
    /// - the four V1 level-value tables have exactly 8 entries, each 0...8;
    /// - the four V1 weights are 0...100;
    /// - ``minimumRiskScoreFullRange`` is 0...4096;
    /// - ``attenuationDurationThresholds`` has 2 or 3 entries, each 0...255 (iOS does not require them to
    ///   increase, so neither does this package);
    /// - the V2 duration, infectiousness and report-type weights are 0...250;
    /// - ``reportTypeNoneMap`` is not ``ENDiagnosisReportType/revoked``;
    /// - ``infectiousnessForDaysSinceOnsetOfSymptoms`` keys are -14...14 or ``ENDaysSinceOnsetOfSymptomsUnknown``,
    ///   and its values are ``ENInfectiousness`` raw values (0...2);
    /// - ``daysSinceLastExposureThreshold`` is not negative (Apple is silent; a negative threshold means nothing).
    public func validate() throws(ENError) {
        let levelTables: [(String, [ENRiskLevelValue])] = [
            ("attenuationLevelValues", attenuationLevelValues),
            ("daysSinceLastExposureLevelValues", daysSinceLastExposureLevelValues),
            ("durationLevelValues", durationLevelValues),
            ("transmissionRiskLevelValues", transmissionRiskLevelValues),
        ]
        for (name, values) in levelTables {
            guard values.count == Self.levelValueCount else {
                throw .badParameter(
                    "\(name) must have \(Self.levelValueCount) entries, got \(values.count)",
                    context: .init(field: name))
            }
            if let bad = values.first(where: { Int($0) > ENRiskLevelValueMax }) {
                throw .badParameter(
                    "\(name) entries must be 0...\(ENRiskLevelValueMax), got \(bad)", context: .init(field: name))
            }
        }
        let v1Weights: [(String, Double)] = [
            ("attenuationWeight", attenuationWeight),
            ("daysSinceLastExposureWeight", daysSinceLastExposureWeight),
            ("durationWeight", durationWeight),
            ("transmissionRiskWeight", transmissionRiskWeight),
        ]
        for (name, weight) in v1Weights {
            try Self.check(name, weight, within: Double(ENRiskWeightMin)...Double(ENRiskWeightMax))
        }
        try Self.check("minimumRiskScoreFullRange", minimumRiskScoreFullRange, within: 0...Self.maximumFullRangeScore)
        guard Self.thresholdCounts.contains(attenuationDurationThresholds.count) else {
            throw .badParameter(
                "attenuationDurationThresholds must have 2 or 3 entries, got \(attenuationDurationThresholds.count)",
                context: .init(field: "attenuationDurationThresholds"))
        }
        if let bad = attenuationDurationThresholds.first(where: { !(0...255).contains($0) }) {
            throw .badParameter(
                "attenuationDurationThresholds entries must be 0...255 dB, got \(bad)",
                context: .init(field: "attenuationDurationThresholds"))
        }
        let v2Weights: [(String, Double)] = [
            ("immediateDurationWeight", immediateDurationWeight),
            ("nearDurationWeight", nearDurationWeight),
            ("mediumDurationWeight", mediumDurationWeight),
            ("otherDurationWeight", otherDurationWeight),
            ("infectiousnessStandardWeight", infectiousnessStandardWeight),
            ("infectiousnessHighWeight", infectiousnessHighWeight),
            ("reportTypeConfirmedTestWeight", reportTypeConfirmedTestWeight),
            ("reportTypeConfirmedClinicalDiagnosisWeight", reportTypeConfirmedClinicalDiagnosisWeight),
            ("reportTypeSelfReportedWeight", reportTypeSelfReportedWeight),
            ("reportTypeRecursiveWeight", reportTypeRecursiveWeight),
        ]
        for (name, weight) in v2Weights {
            try Self.check(name, weight, within: Double(ENRiskWeightMin)...Double(ENRiskWeightMaxV2))
        }
        guard reportTypeNoneMap != .revoked else {
            throw .badParameter(
                "reportTypeNoneMap must be 0...4, got 5 (revoked)", context: .init(field: "reportTypeNoneMap"))
        }
        for day in (infectiousnessForDaysSinceOnsetOfSymptoms ?? [:]).keys.sorted()
        where day != ENDaysSinceOnsetOfSymptomsUnknown && !ENTemporaryExposureKey.daysSinceOnsetRange.contains(day) {
            throw .badParameter(
                "infectiousnessForDaysSinceOnsetOfSymptoms keys must be -14...14 or unknown, got \(day)",
                context: .init(field: "infectiousnessForDaysSinceOnsetOfSymptoms"))
        }
        for (day, value) in (infectiousnessForDaysSinceOnsetOfSymptoms ?? [:]).sorted(by: { $0.key < $1.key })
        where UInt32(exactly: value).flatMap(ENInfectiousness.init(rawValue:)) == nil {
            let dayName = day == ENDaysSinceOnsetOfSymptomsUnknown ? "unknown" : String(day)
            throw .badParameter(
                "infectiousnessForDaysSinceOnsetOfSymptoms[\(dayName)] must be 0 (none), 1 (standard) or 2 (high), "
                    + "got \(value)",
                context: .init(field: "infectiousnessForDaysSinceOnsetOfSymptoms"))
        }
        guard daysSinceLastExposureThreshold >= 0 else {
            throw .badParameter(
                "daysSinceLastExposureThreshold must not be negative, got \(daysSinceLastExposureThreshold)",
                context: .init(field: "daysSinceLastExposureThreshold"))
        }
    }

    /// The number of entries of each V1 level-value table: 8.
    public static let levelValueCount = 8
    /// The largest ``minimumRiskScoreFullRange``: 4096 (8 to the fourth power).
    public static let maximumFullRangeScore: Double = 4096
    /// The allowed numbers of ``attenuationDurationThresholds``: 2 or 3.
    public static let thresholdCounts: ClosedRange<Int> = 2...3

    private static func check(_ name: String, _ value: Double, within range: ClosedRange<Double>) throws(ENError) {
        guard range.contains(value) else {
            throw .badParameter(
                "\(name) must be \(format(range.lowerBound))...\(format(range.upperBound)), got \(value)",
                context: .init(field: name))
        }
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
