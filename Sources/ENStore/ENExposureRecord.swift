public import ENCore
public import Foundation

/// An exposure the app shows the user: the sample app's `Exposure`.
///
/// The current sample app keeps only the date; its earlier version also kept the duration, the total risk
/// score and the transmission risk level, which are optional here.
public struct ENExposureRecord: Hashable, Sendable, Codable {
    /// The day of the exposure.
    public var date: Date
    /// How long the exposure lasted, in seconds, when known.
    public var duration: TimeInterval?
    /// The exposure's total risk score (V1), when known.
    public var totalRiskScore: ENRiskScore?
    /// The transmission risk level of the matched key (V1), when known.
    public var transmissionRiskLevel: ENRiskLevel?

    /// Creates an exposure.
    public init(
        date: Date, duration: TimeInterval? = nil, totalRiskScore: ENRiskScore? = nil,
        transmissionRiskLevel: ENRiskLevel? = nil
    ) {
        self.date = date
        self.duration = duration
        self.totalRiskScore = totalRiskScore
        self.transmissionRiskLevel = transmissionRiskLevel
    }
}
