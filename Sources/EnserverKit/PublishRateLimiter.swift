import ENCore
import Foundation

/// A token bucket per client for `POST /v1/publish` (chaff included, so that a refusal tells nothing about which
/// requests are real): each client may send `burst` requests at once and `ratePerMinute` a minute after that; over
/// it, the answer is 429 with `Retry-After`.
///
/// Memory is bounded: at most `maximumClients` buckets are kept; past that, buckets that have refilled (their
/// clients idle) are dropped, then the longest idle ones.
package final class PublishRateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    /// Requests a client may send at once.
    package let burst: Double
    /// Requests a client may send a minute once its burst is spent.
    package let ratePerMinute: Double
    /// The most clients whose buckets are kept.
    package let maximumClients: Int
    private let clock: @Sendable () -> Double
    private let buckets = Locked<[String: Bucket]>([:])

    /// A limiter on a monotonic clock in seconds (the system's uptime unless a test gives another).
    package init(
        burst: Int, ratePerMinute: Double, maximumClients: Int = 100_000,
        clock: @escaping @Sendable () -> Double = { ProcessInfo.processInfo.systemUptime }
    ) {
        self.burst = Double(max(1, burst))
        self.ratePerMinute = ratePerMinute
        self.maximumClients = max(1, maximumClients)
        self.clock = clock
    }

    /// Takes a token for `client`: `nil` when the request may go on, otherwise the seconds until it may.
    package func take(client: String) -> Double? {
        let now = clock()
        let rate = ratePerMinute / 60
        let (burst, maximumClients) = (burst, maximumClients)
        return buckets.withLock { buckets in
            var bucket = buckets[client] ?? Bucket(tokens: burst, updated: now)
            bucket.tokens = min(burst, bucket.tokens + max(0, now - bucket.updated) * rate)
            bucket.updated = now
            var wait: Double?
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
            } else {
                wait = rate > 0 ? (1 - bucket.tokens) / rate : 60
            }
            buckets[client] = bucket
            if buckets.count > maximumClients { Self.evict(&buckets, now: now, burst: burst, rate: rate, keep: client) }
            return wait
        }
    }

    /// How many clients have a bucket.
    package var clientCount: Int { buckets.withLock { $0.count } }

    private static func evict(_ buckets: inout [String: Bucket], now: Double, burst: Double, rate: Double, keep: String)
    {
        let limit = buckets.count - 1
        buckets = buckets.filter { $0.key == keep || $0.value.tokens + (now - $0.value.updated) * rate < burst }
        guard buckets.count > limit * 9 / 10 else { return }
        // Still nearly full: drop the longest idle tenth.
        let idle = buckets.filter { $0.key != keep }.sorted { $0.value.updated < $1.value.updated }
        for (client, _) in idle.prefix(max(1, limit / 10)) { buckets[client] = nil }
    }
}
