/// The four attenuation buckets that `ENExposureConfiguration.attenuationDurationThresholds` define, with the
/// names of Apple's version 2 duration weights: ``immediate`` (`<=` the first threshold), ``near``,
/// ``medium`` and ``other`` (above the last).
///
/// Version 1 reports the time spent in each bucket (`attenuationDurations`); version 2 weighs it
/// (`immediateDurationWeight` ... `otherDurationWeight`).
public enum ENAttenuationBucket: Int, Hashable, Sendable, CaseIterable, Codable {
    /// At or below the first threshold: the closest.
    case immediate = 0
    /// Above the first threshold, at or below the second.
    case near = 1
    /// Above the second threshold, at or below the third.
    case medium = 2
    /// Above the last threshold.
    case other = 3
}

extension ENExposureConfiguration {
    /// The three thresholds scoring buckets by: `appliedAttenuationDurationThresholds`, with a missing third
    /// threshold read as 255 (as iOS does), so that with two thresholds the last bucket is empty. A count other
    /// than 2 or 3 falls back to the default `[50, 70, 90]`, as iOS does.
    package var effectiveAttenuationThresholds: (ENAttenuation, ENAttenuation, ENAttenuation) {
        var values = appliedAttenuationDurationThresholds
        if !Self.thresholdCounts.contains(values.count) { values = Self.defaultAttenuationDurationThresholds }
        if values.count == 2 { values.append(255) }
        return (
            ENAttenuation(clamping: values[0]), ENAttenuation(clamping: values[1]), ENAttenuation(clamping: values[2])
        )
    }

    /// The bucket of `attenuation` (Apple's inclusive upper bounds: `<= X`, `<= Y`, `<= Z`, above). The one
    /// bucketing rule of both scoring versions.
    package func attenuationBucket(for attenuation: ENAttenuation) -> ENAttenuationBucket {
        Self.attenuationBucket(for: attenuation, thresholds: effectiveAttenuationThresholds)
    }

    /// The bucket of `attenuation` under thresholds from ``effectiveAttenuationThresholds`` (read once by a loop
    /// over many scans).
    package static func attenuationBucket(
        for attenuation: ENAttenuation, thresholds: (ENAttenuation, ENAttenuation, ENAttenuation)
    ) -> ENAttenuationBucket {
        if attenuation <= thresholds.0 { return .immediate }
        if attenuation <= thresholds.1 { return .near }
        if attenuation <= thresholds.2 { return .medium }
        return .other
    }
}
