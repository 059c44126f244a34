internal import ExposureNotificationKit
internal import Foundation
internal import Synchronization

/// The operating system's background launcher of one simulated phone: the `ENScheduler` its `ENManager` registers
/// the app's periodic activity with. The simulation decides when the phone launches the app (at the scenario's
/// detection minute each day) and calls ``fire()``, as iOS decides when an app gets its background time.
final class DeviceLauncher: ENScheduler {
    private final class Job: ENScheduledTask {
        let work: @Sendable () -> Void
        let cancelled = Mutex(false)
        init(_ work: @escaping @Sendable () -> Void) { self.work = work }
        func cancel() { cancelled.withLock { $0 = true } }
    }

    private let jobs = Mutex<[Job]>([])

    /// Keeps `work` until its task is cancelled; the interval is the simulation's to honour (once a day).
    func schedule(every interval: TimeInterval, _ work: @escaping @Sendable () -> Void) -> any ENScheduledTask {
        let job = Job(work)
        jobs.withLock { $0.append(job) }
        return job
    }

    /// Runs every job not cancelled (the manager's periodic run, which launches the app's `activityHandler` with
    /// `.periodicRun` on its queue); returns how many ran.
    @discardableResult
    func fire() -> Int {
        let live = jobs.withLock { jobs in
            jobs.removeAll { $0.cancelled.withLock { $0 } }
            return jobs
        }
        for job in live { job.work() }
        return live.count
    }
}
