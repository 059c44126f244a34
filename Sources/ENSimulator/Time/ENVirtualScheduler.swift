public import ExposureNotificationKit
public import Foundation

/// A scheduler on an ``ENVirtualClock``: periodic work runs when the simulation moves the clock past its time,
/// in time order, on the thread that moves the clock.
public final class ENVirtualScheduler: ENScheduler {
    private final class Job: ENScheduledTask {
        let interval: TimeInterval
        let work: @Sendable () -> Void
        let due: Locked<Date?>
        init(interval: TimeInterval, first: Date, work: @escaping @Sendable () -> Void) {
            self.interval = interval
            self.work = work
            due = Locked(first)
        }
        func cancel() { due.withLock { $0 = nil } }
    }

    private let clock: ENVirtualClock
    private let jobs = Locked<[Job]>([])

    /// Creates a scheduler on `clock`.
    public init(clock: ENVirtualClock) { self.clock = clock }

    /// Runs `work` every `interval` seconds of virtual time, the first time `interval` seconds from now.
    public func schedule(every interval: TimeInterval, _ work: @escaping @Sendable () -> Void) -> any ENScheduledTask {
        let job = Job(interval: max(interval, 1), first: clock.now + max(interval, 1), work: work)
        jobs.withLock { $0.append(job) }
        return job
    }

    /// The number of jobs not cancelled.
    public var activeJobCount: Int { jobs.withLock { $0.count { $0.due.withLock { $0 } != nil } } }

    /// Moves the clock to `date`, running each job every time it falls due on the way (earliest first, the clock
    /// set to the job's time while it runs); returns how many runs there were.
    @discardableResult
    public func advance(to date: Date) -> Int {
        var runs = 0
        while true {
            let live = jobs.withLock { jobs in
                jobs.removeAll { $0.due.withLock { $0 } == nil }
                return jobs
            }
            let next = live.compactMap { job in job.due.withLock { $0 }.map { (job, $0) } }
                .filter { $0.1 <= date }.min { $0.1 < $1.1 }
            guard let (job, due) = next else { break }
            clock.advance(to: due)
            job.due.withLock { if $0 != nil { $0 = due + job.interval } }
            job.work()
            runs += 1
        }
        clock.advance(to: date)
        return runs
    }
}
