public import Foundation

/// What really happened during an encounter: the distance (fixed or a series) and the duration where known.
public struct ENGroundTruth: Hashable, Sendable {
    /// One point of a moving geometry: the distance holds from `time` until the next point.
    public struct DistancePoint: Hashable, Sendable {
        /// Seconds from any origin; not decreasing along a series.
        public var time: TimeInterval
        /// The distance in metres, at least 0.
        public var meters: Double

        /// Creates a point.
        public init(time: TimeInterval, meters: Double) {
            self.time = time
            self.meters = meters
        }
    }

    /// The distance throughout the encounter, for a fixed geometry.
    public var distanceMeters: Double?
    /// The distance over time, for a moving geometry.
    public var distanceSeries: [DistancePoint]
    /// The true duration in seconds, or nil when unknown.
    public var durationSeconds: TimeInterval?

    /// Creates a ground truth; give `distanceMeters` or a non-empty `distanceSeries`.
    public init(distanceMeters: Double? = nil, distanceSeries: [DistancePoint] = [], durationSeconds: TimeInterval?) {
        self.distanceMeters = distanceMeters
        self.distanceSeries = distanceSeries
        self.durationSeconds = durationSeconds
    }

    /// The smallest distance recorded (the fixed one, or the series' minimum).
    public var closestMeters: Double {
        distanceMeters ?? distanceSeries.map(\.meters).min() ?? .infinity
    }
}
