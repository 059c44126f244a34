/// How infectious a case was at the time of an exposure, from the days since symptom onset.
public enum ENInfectiousness: UInt32, Hashable, Sendable, CaseIterable, Codable {
    /// Not infectious: such exposures are skipped in scoring. Never returned, used for configuration.
    case none = 0
    /// Standard infectiousness.
    case standard = 1
    /// High infectiousness.
    case high = 2
}

extension ENInfectiousness {
    /// The infectiousness whose raw value is `value`, or nil when `value` is not 0, 1 or 2: how a value of
    /// `ENExposureConfiguration.infectiousnessForDaysSinceOnsetOfSymptoms` (Apple's shape) reads.
    public init?(exactly value: Int) {
        guard let raw = UInt32(exactly: value) else { return nil }
        self.init(rawValue: raw)
    }
}
