internal import ENCore
public import ExposureNotificationKit
public import Foundation

/// A scheduler whose periodic work runs when its owner calls ``fire()``, whatever the interval: the background
/// launcher of a simulated phone, where the simulation (or a test) decides when the phone gives the app its
/// background time, as iOS does.
///
/// `ENSimulator`'s `ENSimulation` gives each device one: at the scenario's detection minute it fires every device's
/// scheduler, the device's `ENManager` calls the app's `activityHandler` with `.periodicRun`, and the app's
/// handler downloads the new key files and detects.
public final class ENManualScheduler: ENScheduler {
    private final class Job: ENScheduledTask {
        let work: @Sendable () -> Void
        let cancelled = Locked(false)
        init(_ work: @escaping @Sendable () -> Void) { self.work = work }
        func cancel() { cancelled.withLock { $0 = true } }
    }

    private let jobs = Locked<[Job]>([])

    /// Creates a scheduler with no jobs.
    public init() {}

    /// Keeps `work` until its task is cancelled; `interval` is the owner's to honour.
    public func schedule(every interval: TimeInterval, _ work: @escaping @Sendable () -> Void) -> any ENScheduledTask {
        let job = Job(work)
        jobs.withLock { $0.append(job) }
        return job
    }

    /// Runs every job not cancelled, in the order they were scheduled, on the calling thread; returns how many
    /// ran.
    @discardableResult
    public func fire() -> Int {
        let live = jobs.withLock { jobs in
            jobs.removeAll { $0.cancelled.withLock { $0 } }
            return jobs
        }
        for job in live { job.work() }
        return live.count
    }
}
