public import ENCore
internal import ENCrypto
internal import ENExportFormat
internal import ENKeyServer
internal import ENRiskV2
internal import ExposureNotificationKit
public import Foundation
internal import Synchronization

/// Runs an ``ENScenario``: every device a real `ENManager` with its own environment (a consent provider that
/// always agrees, its own store, the key server's signing key trusted), an ``ENEther`` between them, an
/// `ENDiagnosisKeyServer` publishing signed files, and daily detection on every device as on a phone: at the scenario's
/// detection minute each phone's scheduler fires the manager's periodic run, the manager calls the app's
/// `activityHandler` with `.periodicRun`, and the app's handler downloads the files published since its last
/// index and calls `detectExposures(configuration:diagnosisKeyURLs:)`.
///
/// The devices' stores are in memory, so a town of any size holds no open file per device. With
/// ``Storage/directory(_:)`` each finished day is also kept as a checkpoint directory (the key server's SQLite file
/// and a snapshot of every device's store, written under a temporary name and renamed), so a run killed at any
/// moment resumes from the last finished day when started again on the same directory.
public struct ENSimulation: Sendable {
    /// Where the simulated devices and the key server keep their state.
    public enum Storage: Hashable, Sendable {
        /// In memory, for one run.
        case inMemory
        /// In memory, each finished day also written under this directory: resumable.
        case directory(URL)
    }

    /// The script.
    public let scenario: ENScenario
    /// Where the state goes.
    public let storage: Storage
    /// How many devices run their daily detection at the same time (each device's detection is independent of
    /// the others', so the report is the same for every value).
    public let concurrentDetections: Int
    /// The key server the devices use.
    public let keyServer: KeyServer

    /// Creates a simulation of `scenario`; `concurrentDetections` defaults to four times the number of active cores
    /// (a detection waits on its store and the manager's queues part of the time, so more of them than cores keep
    /// every core busy).
    ///
    /// - Throws: `badParameter` when the scenario is inconsistent (see ``ENScenario/validate()``),
    ///   `concurrentDetections` is below 1, or a remote key server is combined with directory storage (the
    ///   server's state would not resume with the devices').
    public init(
        scenario: ENScenario, storage: Storage = .inMemory, keyServer: KeyServer = .inProcess,
        concurrentDetections: Int? = nil
    ) throws(ENError) {
        try scenario.validate()
        let concurrency = concurrentDetections ?? 4 * ProcessInfo.processInfo.activeProcessorCount
        guard concurrency >= 1 else {
            throw ENError(
                .badParameter, "concurrentDetections must be at least 1, got \(concurrency)",
                context: .init(field: "concurrentDetections"))
        }
        if case .remote = keyServer, case .directory = storage {
            throw ENError(
                .badParameter, "a remote key server runs with in-memory storage only",
                context: .init(field: "keyServer"))
        }
        self.scenario = scenario
        self.storage = storage
        self.keyServer = keyServer
        self.concurrentDetections = concurrency
    }

    /// Runs the remaining days and returns the report; `onEvent` hears each step as it happens.
    ///
    /// - Throws: the first `ENError` of a device or of the key server; `dataInaccessible` naming the path when
    ///   the storage directory cannot be used.
    public func run(
        onEvent: @escaping @Sendable (ENSimulationEvent) -> Void = { _ in }
    ) async throws(ENError) -> ENSimulationReport {
        let runner = try SimulationRunner(
            scenario: scenario, storage: storage, keyServer: keyServer, concurrentDetections: concurrentDetections)
        return try await runner.run(onEvent: onEvent)
    }
}
