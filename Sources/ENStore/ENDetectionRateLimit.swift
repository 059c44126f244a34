public import Foundation

/// A limit on detections per sliding window, checked against the store's rate-limit ledger inside the
/// transaction that records a detection.
///
/// Apple's limits: 15 detections per 24 hours in V1 mode (``v1``), 6 in V2 mode (``v2``).
public struct ENDetectionRateLimit: Hashable, Sendable {
    /// The most detections allowed within ``window``.
    public var limit: Int
    /// The length of the sliding window, in seconds.
    public var window: TimeInterval

    /// Creates a limit.
    public init(limit: Int, window: TimeInterval = 24 * 60 * 60) {
        self.limit = limit
        self.window = window
    }

    /// Apple's V1 limit: 15 per 24 hours.
    public static let v1 = ENDetectionRateLimit(limit: 15)
    /// Apple's V2 limit: 6 per 24 hours.
    public static let v2 = ENDetectionRateLimit(limit: 6)
}
