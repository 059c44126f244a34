/// How infectious a case was at the time of an exposure, from the days since symptom onset.
public enum ENInfectiousness: UInt32, Hashable, Sendable, CaseIterable, Codable {
    /// Not infectious: such exposures are skipped in scoring. Never returned, used for configuration.
    case none = 0
    /// Standard infectiousness.
    case standard = 1
    /// High infectiousness.
    case high = 2
}
