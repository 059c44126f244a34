internal import ENCore

/// Every manager's status changes, process-wide: what key-value observing on an app's own object re-reads its key
/// path on (`observe(\.manager.exposureNotificationStatus)` on an `NSObject` that holds a manager), since such a
/// key path does not say which manager it reaches.
package enum ENStatusChanges {
    private static let subscribers = Locked(
        (next: UInt64(0), continuations: [UInt64: AsyncStream<Void>.Continuation]()))

    /// A sequence with one element after each status change of any manager, until the caller stops iterating.
    package static func subscribe() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let id = subscribers.withLock { subscribers in
            subscribers.next += 1
            subscribers.continuations[subscribers.next] = continuation
            return subscribers.next
        }
        continuation.onTermination = { _ in
            _ = subscribers.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Tells every subscriber that a manager's status, enabled flag or authorization changed.
    package static func post() {
        for continuation in subscribers.withLock({ Array($0.continuations.values) }) { continuation.yield() }
    }
}
