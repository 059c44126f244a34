#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// A value behind a lock: the package's one lock for state shared across threads.
///
/// It is a POSIX mutex, which ThreadSanitizer intercepts, rather than the standard library's `Mutex`: on Linux
/// the `Mutex` of the Synchronization module parks waiters with a futex system call that ThreadSanitizer does not
/// see, so under contention it reports races on data the `Mutex` does protect (a plain test with eight threads
/// shows them), and a real race would hide among those reports.
///
/// The value is reached only inside ``withLock(_:)``; keep what escapes the closure `Sendable`.
package final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var value: Value

    /// Creates a lock guarding `value`.
    package init(_ value: Value) {
        self.value = value
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deinitialize(count: 1)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the value while holding the lock and returns its result.
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// Runs `body` with the value under the lock, then wakes every thread waiting in ``withLock(when:_:)``.
    package func withLockNotifyingAll<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer {
            pthread_cond_broadcast(condition)
            pthread_mutex_unlock(mutex)
        }
        return try body(&value)
    }

    /// Waits, without holding the lock, until `ready` is true of the value (checked under the lock, again after
    /// each ``withLockNotifyingAll(_:)``), then runs `body` with it under the lock.
    package func withLock<Result, Failure: Error>(
        when ready: (Value) -> Bool, _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !ready(value) { pthread_cond_wait(condition, mutex) }
        return try body(&value)
    }
}
