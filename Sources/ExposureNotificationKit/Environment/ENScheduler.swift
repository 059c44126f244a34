public import Foundation

/// What launches an app for background work: iOS's background task scheduler, or a simulation's scheduler on a
/// virtual clock.
///
/// The manager asks it for periodic runs (at least once a day) from activation until invalidation: each deletes what
/// is past retention and, while Exposure Notification is enabled, makes the day's key and runs the app's
/// `activityHandler`.
public protocol ENScheduler: Sendable {
    /// Runs `work` every `interval` seconds until the returned task is cancelled.
    func schedule(every interval: TimeInterval, _ work: @escaping @Sendable () -> Void) -> any ENScheduledTask
}

/// A periodic job of an ``ENScheduler``.
public protocol ENScheduledTask: Sendable {
    /// Stops the job; it does not run again.
    func cancel()
}

/// A scheduler on Dispatch timers, in real time.
public struct ENDispatchScheduler: ENScheduler {
    /// Creates the scheduler.
    public init() {}

    /// Runs `work` on a global queue every `interval` seconds.
    public func schedule(every interval: TimeInterval, _ work: @escaping @Sendable () -> Void) -> any ENScheduledTask {
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler(handler: work)
        timer.resume()
        return DispatchTimerTask(timer: timer)
    }

    private struct DispatchTimerTask: ENScheduledTask, @unchecked Sendable {
        // DispatchSource is thread-safe; it is not marked Sendable.
        let timer: any DispatchSourceTimer
        func cancel() { timer.cancel() }
    }
}
