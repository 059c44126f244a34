public import ENCore

/// The version 2 rules a configuration defines: report-type mapping, infectiousness, and the weights.
extension ENExposureConfiguration {
    /// The infectiousness for a key's days since onset of symptoms: the map's entry, or `ENInfectiousness.none`
    /// when there is no map, the map has none, or its value is not an infectiousness (which `ENExposureConfiguration.validate()`
    /// refuses) (Apple; Google uses `infectiousnessWhenDaysSinceOnsetMissing` for days outside
    /// -14...14, which this map expresses with the `ENDaysSinceOnsetOfSymptomsUnknown` key).
    public func infectiousness(forDaysSinceOnsetOfSymptoms days: Int) -> ENInfectiousness {
        infectiousnessForDaysSinceOnsetOfSymptoms?[days].flatMap(ENInfectiousness.init(exactly:)) ?? .none
    }

    /// The report type a key is scored as: its own when it is 1...4, otherwise `reportTypeNoneMap`.
    /// `ENDiagnosisReportType.unknown` as a result means the key is not scored.
    ///
    /// Revoked keys never match in the first place; should one reach scoring it is mapped like an unknown one.
    public func mappedReportType(_ type: ENDiagnosisReportType) -> ENDiagnosisReportType {
        Self.mappedReportType(type, reportTypeNoneMap: reportTypeNoneMap)
    }

    /// ``mappedReportType(_:)`` under a given `reportTypeNoneMap`.
    package static func mappedReportType(
        _ type: ENDiagnosisReportType, reportTypeNoneMap: ENDiagnosisReportType
    ) -> ENDiagnosisReportType {
        switch type {
        case .confirmedTest, .confirmedClinicalDiagnosis, .selfReported, .recursive: type
        case .unknown, .revoked: reportTypeNoneMap == .revoked ? .unknown : reportTypeNoneMap
        }
    }

    /// The weight of a report type, in percent (0 for `ENDiagnosisReportType.unknown` and
    /// `ENDiagnosisReportType.revoked`).
    public func reportTypeWeight(for type: ENDiagnosisReportType) -> Double {
        switch type {
        case .confirmedTest: reportTypeConfirmedTestWeight
        case .confirmedClinicalDiagnosis: reportTypeConfirmedClinicalDiagnosisWeight
        case .selfReported: reportTypeSelfReportedWeight
        case .recursive: reportTypeRecursiveWeight
        case .unknown, .revoked: 0
        }
    }

    /// The weight of an infectiousness, in percent (0 for `ENInfectiousness.none`).
    public func infectiousnessWeight(for infectiousness: ENInfectiousness) -> Double {
        switch infectiousness {
        case .none: 0
        case .standard: infectiousnessStandardWeight
        case .high: infectiousnessHighWeight
        }
    }

    /// The weight of an attenuation bucket, in percent: `immediateDurationWeight` ... `otherDurationWeight`.
    public func durationWeight(for bucket: ENAttenuationBucket) -> Double {
        switch bucket {
        case .immediate: immediateDurationWeight
        case .near: nearDurationWeight
        case .medium: mediumDurationWeight
        case .other: otherDurationWeight
        }
    }

    /// The bucket a scan's typical attenuation falls in, by `attenuationDurationThresholds` (inclusive upper
    /// bounds; a count other than 2 or 3 uses the default `[50, 70, 90]`).
    public func attenuationBucket(forTypicalAttenuation attenuation: ENAttenuation) -> ENAttenuationBucket {
        attenuationBucket(for: attenuation)
    }
}
