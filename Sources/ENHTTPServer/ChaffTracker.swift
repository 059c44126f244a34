import ENCore
import Foundation

/// The profile of recent real responses that chaff answers imitate, as Google's key server and verification
/// server keep it (`mikehelmick/go-chaff`'s tracker): the size and latency of the last 100 real requests.
///
/// A chaff request (`X-Chaff` header not empty) is answered after the average latency of those requests, capped
/// at one second, with a body of about their average size; before any real request it is answered at once with
/// an empty body.
package final class ChaffTracker: Sendable {
    /// One real request: its response body's size in bytes and how long it took.
    struct Sample: Sendable {
        var bytes: Int
        var seconds: Double
    }

    /// How many recent requests the averages cover (Google: 100).
    package let capacity: Int
    /// The longest chaff delay (Google's `CHAFF_REQUEST_MAX_LATENCY_MS`, `ChaffMaxLatencyMs`: 1000 ms).
    package let maximumDelay: Double
    private let samples = Locked<[Sample]>([])

    package init(capacity: Int = 100, maximumDelay: Double = 1) {
        self.capacity = max(1, capacity)
        self.maximumDelay = maximumDelay
    }

    /// Records a real request.
    package func record(bytes: Int, seconds: Double) {
        let capacity = capacity
        samples.withLock { samples in
            samples.append(Sample(bytes: bytes, seconds: seconds))
            if samples.count > capacity { samples.removeFirst(samples.count - capacity) }
        }
    }

    /// The average response size and latency of the recent real requests, or `nil` before the first.
    package var profile: (bytes: Int, delay: Double)? {
        samples.withLock { samples in
            guard !samples.isEmpty else { return nil }
            let bytes = samples.reduce(0) { $0 + $1.bytes } / samples.count
            let seconds = samples.reduce(0) { $0 + $1.seconds } / Double(samples.count)
            return (bytes, min(seconds, maximumDelay))
        }
    }
}
