internal import Synchronization

/// A flag that one thread sets and others read: how a task's cancellation reaches work running outside
/// Swift concurrency (the matcher's threads, a dispatch queue).
final class CancellationFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    /// Whether ``cancel()`` was called.
    var isCancelled: Bool { flag.load(ordering: .acquiring) }

    /// Sets the flag.
    func cancel() { flag.store(true, ordering: .releasing) }
}
