import Foundation

/// The rule that turns ground truth into "contact": within ``withinMeters`` for at least ``minutes`` minutes.
///
/// The epidemiological notion behind the measurement studies is "15 minutes within 2 metres"; both numbers are
/// parameters of the evaluation, not of the data.
public struct ENContactRule: Hashable, Sendable {
    /// The distance D in metres.
    public var withinMeters: Double
    /// When true, a distance must be strictly below D; otherwise at most D.
    public var exclusive: Bool
    /// The minimum time T in minutes (0: any time within D).
    public var minutes: Double

    /// Creates a rule; the defaults are 2 m inclusive for 15 minutes.
    public init(withinMeters: Double = 2, exclusive: Bool = false, minutes: Double = 15) {
        self.withinMeters = withinMeters
        self.exclusive = exclusive
        self.minutes = minutes
    }

    /// Whether a distance is within D.
    public func isWithin(_ meters: Double) -> Bool {
        exclusive ? meters < withinMeters : meters <= withinMeters
    }

    /// Whether the ground truth is a contact.
    ///
    /// With a fixed distance: within D and, where the duration is known and T > 0, a duration of at least 60·T
    /// seconds (an unknown duration does not fail the minutes test). With a series: the seconds spent at points
    /// within D (each point holding until the next) reach 60·T, or, for T = 0, any point is within D.
    public func isContact(_ truth: ENGroundTruth) -> Bool {
        let needed = minutes * 60
        if let distance = truth.distanceMeters {
            guard isWithin(distance) else { return false }
            guard needed > 0, let duration = truth.durationSeconds else { return true }
            return duration >= needed
        }
        let series = truth.distanceSeries
        guard needed > 0 else { return series.contains { isWithin($0.meters) } }
        var within = 0.0
        for (point, next) in zip(series, series.dropFirst()) where isWithin(point.meters) {
            within += next.time - point.time
        }
        return within >= needed
    }
}
