internal import ENCore
internal import ExposureNotificationKit
internal import ExposureNotificationKitTesting
internal import Foundation
internal import Synchronization

/// The exposure-notification app on a simulated phone, reduced to its launch activity handler: when the phone
/// launches it with `.periodicRun`, it runs the work the simulation handed it for that launch (download the files
/// published since its last index, detect, read the results) and reports back.
///
/// The work is handed over per launch so that each launch's result goes to the one waiting for it; a launch
/// without work (a periodic run the simulation did not ask for) does nothing.
final class SimulatedApp: Sendable {
    /// What one periodic run returns to the simulation.
    typealias Work = @Sendable () async throws(ENError) -> SimulatedDetection

    private struct Pending {
        let launch: UInt64
        let work: Work
        let continuation: CheckedContinuation<Void, Never>
    }

    let name: String
    private let pending = Locked<Pending?>(nil)
    /// Each launch's outcome, put here before its continuation is resumed and taken by the launch after it.
    ///
    /// The continuation only signals: the outcome travels through this lock so that ThreadSanitizer sees the
    /// handoff. On Linux it does not see the ordering between `CheckedContinuation.resume` on a dispatch queue and
    /// the awaiting task's next step on the global executor, and reports the outcome's fields as a race (see
    /// Documentation/Reliability.md and Scripts/tsan-continuation-handoff.swift).
    private let outcomes = Locked<[UInt64: Result<SimulatedDetection, ENError>]>([:])
    private let launches = Atomic<UInt64>(0)

    init(name: String) { self.name = name }

    /// The app's `activityHandler`.
    func activity(_ flags: ENActivityFlags) {
        guard flags.contains(.periodicRun), let launch = pending.withLock({ $0.take() }) else { return }
        Task {
            let outcome: Result<SimulatedDetection, ENError>
            do throws(ENError) {
                outcome = .success(try await launch.work())
            } catch {
                outcome = .failure(error)
            }
            outcomes.withLock { $0[launch.launch] = outcome }
            launch.continuation.resume()
        }
    }

    /// Hands `work` to the app, lets `launcher` launch it, and waits for the work's result.
    ///
    /// - Throws: the work's error; `internal` when the phone did not launch the app (no periodic run registered,
    ///   Exposure Notification off, or no activity handler).
    func launch(
        by launcher: ENManualScheduler, queue: DispatchQueue, doing work: @escaping Work
    ) async throws(ENError) -> SimulatedDetection {
        let name = name
        let launch = launches.add(1, ordering: .relaxed).newValue
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            pending.withLock { $0 = Pending(launch: launch, work: work, continuation: continuation) }
            launcher.fire()
            // The manager delivers the handler on its serial queue: once the queue has passed it, a launch that
            // did not happen leaves this launch's work pending (a later launch's work is not this one's to fail).
            queue.async { [self] in
                let missed = pending.withLock { pending -> Pending? in
                    guard pending?.launch == launch else { return nil }
                    return pending.take()
                }
                guard let missed else { return }
                outcomes.withLock {
                    $0[launch] = .failure(
                        ENError(.internal, "the phone of \(name) did not launch the app's periodic run"))
                }
                missed.continuation.resume()
            }
        }
        return try outcomes.withLock { $0.removeValue(forKey: launch)! }.get()
    }
}

/// What one periodic run of a simulated app found.
struct SimulatedDetection: Sendable {
    /// The device's outcome after the run.
    var report: ENSimulationReport.Device
    /// Where the device is in the key server's files after the run.
    var cursor: SimulationFileCursor
    /// How many files the run downloaded.
    var files: Int
}
