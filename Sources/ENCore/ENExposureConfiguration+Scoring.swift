extension ENExposureConfiguration {
    /// The three attenuation thresholds both scoring versions bucket by: ``attenuationDurationThresholds``, with a
    /// missing third threshold read as 255 (as iOS does), so that with two thresholds the last bucket is empty.
    ///
    /// A configuration that fails ``validate()`` (wrong count) falls back to the default `[50, 70, 90]`, as iOS
    /// falls back to its default for a count other than 2 or 3.
    public var effectiveAttenuationThresholds: (ENAttenuation, ENAttenuation, ENAttenuation) {
        var values = attenuationDurationThresholds
        if !Self.thresholdCounts.contains(values.count) { values = Self.defaultAttenuationDurationThresholds }
        if values.count == 2 { values.append(255) }
        return (
            ENAttenuation(clamping: values[0]), ENAttenuation(clamping: values[1]), ENAttenuation(clamping: values[2])
        )
    }

    /// The attenuation bucket of `attenuation`: 0 when `<= X`, 1 when `<= Y`, 2 when `<= Z`, 3 otherwise (Apple's
    /// inclusive upper bounds; Google's V1 attenuation durations use exclusive ones).
    public func attenuationBucket(for attenuation: ENAttenuation) -> Int {
        let (x, y, z) = effectiveAttenuationThresholds
        if attenuation <= x { return 0 }
        if attenuation <= y { return 1 }
        if attenuation <= z { return 2 }
        return 3
    }

    /// The infectiousness for a key's days since onset of symptoms: the map's entry, or ``ENInfectiousness/none``
    /// when the map has none (Apple; Google uses `infectiousnessWhenDaysSinceOnsetMissing` for days outside
    /// -14...14, which this map expresses with the ``ENDaysSinceOnsetOfSymptomsUnknown`` key).
    public func infectiousness(forDaysSinceOnsetOfSymptoms days: Int) -> ENInfectiousness {
        infectiousnessForDaysSinceOnsetOfSymptoms[days] ?? .none
    }

    /// The report type a key is scored as: its own when it is 1...4, otherwise ``reportTypeNoneMap``.
    /// ``ENDiagnosisReportType/unknown`` as a result means the key is not scored.
    ///
    /// Revoked keys never match in the first place; should one reach scoring it is mapped like an unknown one.
    public func mappedReportType(_ type: ENDiagnosisReportType) -> ENDiagnosisReportType {
        switch type {
        case .confirmedTest, .confirmedClinicalDiagnosis, .selfReported, .recursive: type
        case .unknown, .revoked: reportTypeNoneMap == .revoked ? .unknown : reportTypeNoneMap
        }
    }

    /// The V2 weight of a report type, in percent (0 for ``ENDiagnosisReportType/unknown`` and
    /// ``ENDiagnosisReportType/revoked``).
    public func reportTypeWeight(for type: ENDiagnosisReportType) -> Double {
        switch type {
        case .confirmedTest: reportTypeConfirmedTestWeight
        case .confirmedClinicalDiagnosis: reportTypeConfirmedClinicalDiagnosisWeight
        case .selfReported: reportTypeSelfReportedWeight
        case .recursive: reportTypeRecursiveWeight
        case .unknown, .revoked: 0
        }
    }

    /// The V2 weight of an infectiousness, in percent (0 for ``ENInfectiousness/none``).
    public func infectiousnessWeight(for infectiousness: ENInfectiousness) -> Double {
        switch infectiousness {
        case .none: 0
        case .standard: infectiousnessStandardWeight
        case .high: infectiousnessHighWeight
        }
    }

    /// The V2 weight of an attenuation bucket (0 immediate, 1 near, 2 medium, 3 other), in percent.
    public func durationWeight(forBucket bucket: Int) -> Double {
        switch bucket {
        case 0: immediateDurationWeight
        case 1: nearDurationWeight
        case 2: mediumDurationWeight
        default: otherDurationWeight
        }
    }
}
