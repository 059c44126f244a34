internal import ENCore
internal import ENCrypto
internal import ENExportFormat
internal import ENKeyServer
internal import ENKeyServerSQLite
internal import ENMatching
internal import ENRiskV2
internal import ENStore
internal import ExposureNotificationKit
internal import ExposureNotificationKitTesting
internal import Foundation

/// What a directory-backed run journals with each finished day.
struct SimulationCheckpoint: Codable {
    var report: ENSimulationReport
    var nextFileIndex: [String: Int]
    /// The last `index.txt` entry each device processed (a remote key server).
    var lastEntry: [String: String]?

    /// Where `device` is in the key server's files.
    func cursor(_ device: String) -> SimulationFileCursor {
        SimulationFileCursor(nextIndex: nextFileIndex[device] ?? 0, lastEntry: lastEntry?[device])
    }

    /// Records where `device` is in the key server's files.
    mutating func setCursor(_ cursor: SimulationFileCursor, of device: String) {
        nextFileIndex[device] = cursor.nextIndex
        if let entry = cursor.lastEntry { lastEntry = (lastEntry ?? [:]).merging([device: entry]) { $1 } }
    }
}

/// One simulated phone for one stretch of the run: its `ENManager`, radio, background launcher and app.
struct SimulatedDevice: Sendable {
    let script: ENScenario.Device
    let manager: ENManager
    let radio: ENEtherRadio
    let launcher: ENManualScheduler
    let app: SimulatedApp
}

/// The machinery behind ``ENSimulation/run(onEvent:)``.
final class SimulationRunner: Sendable {
    let scenario: ENScenario
    let storage: ENSimulation.Storage
    let keyServer: ENSimulation.KeyServer
    let region: String
    let clock: ENVirtualClock
    let scheduler: ENVirtualScheduler
    let ether: ENEther
    let signingKey: P256SigningKey
    let trustedKey: ENExportVerificationKey
    let scratch: URL
    let sightings = Locked<[String: Int]>([:])
    /// The key files written to disk in this run, by name (see ``download(_:)``).
    let downloaded = Locked<[String: URL]>([:])
    /// How many devices run their daily detection at once.
    let concurrentDetections: Int
    /// One copy of each cached key file for every in-memory store (the devices all cache the same files).
    let sharedKeyFiles = ENSharedKeyFiles()
    /// The identifiers of each key file's keys, derived once for every device (they all match the same files).
    let sharedIdentifiers = ENSharedIdentifiers()
    /// Each downloaded key file's archive, read once for every device (they all download the same files).
    let sharedArchives = ENSharedArchives()

    static let region = "310"

    init(
        scenario: ENScenario, storage: ENSimulation.Storage, keyServer: ENSimulation.KeyServer,
        concurrentDetections: Int
    ) throws(ENError) {
        self.scenario = scenario
        self.storage = storage
        self.keyServer = keyServer
        self.concurrentDetections = max(1, concurrentDetections)
        clock = ENVirtualClock(scenario.start)
        scheduler = ENVirtualScheduler(clock: clock)
        ether = ENEther(pathLoss: scenario.pathLoss, scanTiming: scenario.scanTiming)
        switch storage {
        case .inMemory:
            signingKey = try P256SigningKey()
            scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
                "ENSimulation-\(UUID().uuidString)")
        case .directory(let url):
            try Self.createDirectory(url)
            signingKey = try Self.signingKey(in: url)
            scratch = url.appendingPathComponent("downloads")
        }
        switch keyServer {
        case .inProcess:
            region = Self.region
            trustedKey = ENExportVerificationKey(
                keyID: Self.region, keyVersion: "v1", publicKey: try signingKey.publicKey)
        case .remote(let remote):
            region = remote.region
            trustedKey = remote.verificationKey
        }
    }

    static func createDirectory(_ url: URL) throws(ENError) {
        do { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) } catch {
            throw ENError(.dataInaccessible, "cannot create the directory", context: .init(file: url.path))
        }
    }

    /// The key server's signing key of a directory run: made once, written under a temporary name and renamed.
    static func signingKey(in directory: URL) throws(ENError) -> P256SigningKey {
        let url = directory.appendingPathComponent("signing-key.pem")
        if let pem = try? String(contentsOf: url, encoding: .utf8) {
            return try P256SigningKey(pemRepresentation: pem)
        }
        let key = try P256SigningKey()
        let temporary = directory.appendingPathComponent("signing-key.pem.partial")
        do {
            try Data(key.pemRepresentation.utf8).write(to: temporary)
            guard rename(temporary.path, url.path) == 0 else { throw CocoaError(.fileWriteUnknown) }
        } catch {
            throw ENError(.dataInaccessible, "cannot write the signing key", context: .init(file: url.path))
        }
        return key
    }

    // MARK: Running

    func run(onEvent: @escaping @Sendable (ENSimulationEvent) -> Void) async throws(ENError) -> ENSimulationReport {
        defer {
            switch storage {
            case .inMemory: try? FileManager.default.removeItem(at: scratch)
            case .directory: try? FileManager.default.removeItem(at: scratch.appendingPathComponent("files"))
            }
        }
        var checkpoint = SimulationCheckpoint(
            report: ENSimulationReport(scenario: scenario),
            nextFileIndex: Dictionary(uniqueKeysWithValues: scenario.devices.map { ($0.name, 0) }))
        switch storage {
        case .inMemory:
            let server: any SimulationKeyServer
            switch keyServer {
            case .inProcess:
                server = InProcessKeyServer(
                    server: ENDiagnosisKeyServer(
                        storage: try ENKeyServerSQLiteStore(clock: clock.nowFunction),
                        configuration: serverConfiguration, clock: clock.nowFunction),
                    runner: self, authority: try await SimulationHealthAuthority(clock: clock.nowFunction))
            case .remote(let remote):
                server = RemoteKeyServerClient(
                    remote, clock: clock, downloads: scratch.appendingPathComponent("remote"))
            }
            let devices = try await openDevices(location: { _ in .inMemory })
            for day in 0..<scenario.days {
                try await runDay(day, devices: devices, server: server, checkpoint: &checkpoint, onEvent: onEvent)
            }
            close(devices)
        case .directory(let root):
            let resumed = try latestCheckpoint(in: root)
            var first = 0
            if let (day, saved) = resumed {
                checkpoint = saved
                first = day + 1
            }
            guard first < scenario.days else { break }
            // The phones live in memory for the whole run (no open file each: a town of them would exhaust the
            // process's descriptors); each finished day writes a snapshot of every phone's store.
            let snapshots = resumed.map { Self.checkpointURL(root, $0.0).appendingPathComponent("devices") }
            let devices = try await openDevices(location: { _ in .inMemory }, snapshots: snapshots)
            for day in first..<scenario.days {
                checkpoint = try await runCheckpointedDay(
                    day, root: root, previous: day > 0 ? day - 1 : nil, devices: devices, checkpoint: checkpoint,
                    resumed: day == first && resumed != nil, onEvent: onEvent)
            }
            close(devices)
        }
        return checkpoint.report
    }

    /// A local copy of a published file for the devices' detections. The key server serves a file's bytes
    /// unchanged once published, so every device downloading it would write the same bytes: the run writes each
    /// file once (at its first download in this process, replacing what an earlier, killed run left) and the
    /// devices read that copy.
    ///
    /// - Throws: `dataInaccessible` naming the directory when the file cannot be written.
    func download(_ file: ENKeyServerFile) throws(ENError) -> URL {
        return try downloaded.withLock { (downloaded: inout [String: URL]) throws(ENError) -> URL in
            if let url = downloaded[file.name] { return url }
            let directory = scratch.appendingPathComponent("files")
            let url = directory.appendingPathComponent(file.name)
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                try file.data.write(to: url, options: .atomic)
            } catch {
                throw ENError(
                    .dataInaccessible, "cannot write a downloaded key file", context: .init(file: directory.path))
            }
            downloaded[file.name] = url
            return url
        }
    }

    var serverConfiguration: ENKeyServerConfiguration {
        ENKeyServerConfiguration(
            region: Self.region,
            signers: [ENExportSigner(signingKey: signingKey, keyID: Self.region, keyVersion: "v1")],
            exposureConfiguration: scenario.configuration)
    }

    /// One day of a directory run: copy the last checkpoint's key server into `day-N.partial`, run the day on it
    /// (the phones in memory), write a snapshot of every phone's store beside it, journal, rename to `day-N`, drop
    /// the previous checkpoint.
    func runCheckpointedDay(
        _ day: Int, root: URL, previous: Int?, devices: [SimulatedDevice], checkpoint: SimulationCheckpoint,
        resumed: Bool, onEvent: @escaping @Sendable (ENSimulationEvent) -> Void
    ) async throws(ENError) -> SimulationCheckpoint {
        let files = FileManager.default
        let work = root.appendingPathComponent(String(format: "day-%04d.partial", day))
        let snapshots = work.appendingPathComponent("devices")
        try? files.removeItem(at: work)
        do {
            try files.createDirectory(at: snapshots, withIntermediateDirectories: true)
            if let previous {
                for suffix in ["", "-wal"] {
                    let source = Self.checkpointURL(root, previous).appendingPathComponent("keyserver.sqlite" + suffix)
                    guard files.fileExists(atPath: source.path) else { continue }
                    try files.copyItem(at: source, to: work.appendingPathComponent("keyserver.sqlite" + suffix))
                }
            }
        } catch {
            throw ENError(.dataInaccessible, "cannot prepare the day's directory", context: .init(file: work.path))
        }
        var checkpoint = checkpoint
        do {
            let server = InProcessKeyServer(
                server: ENDiagnosisKeyServer(
                    storage: try ENKeyServerSQLiteStore(
                        path: work.appendingPathComponent("keyserver.sqlite").path, clock: clock.nowFunction),
                    configuration: serverConfiguration, clock: clock.nowFunction),
                runner: self, authority: try await SimulationHealthAuthority(clock: clock.nowFunction))
            if resumed { clock.advance(to: dayStart(day)) }
            try await runDay(
                day, devices: devices, server: server, checkpoint: &checkpoint, resumed: resumed, onEvent: onEvent)
        }
        for device in devices {
            try device.manager.writeStoreSnapshot(to: Self.snapshotURL(snapshots, device.script.name))
        }
        let journal = work.appendingPathComponent("checkpoint.json")
        do {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            try encoder.encode(checkpoint).write(to: journal)
            let done = Self.checkpointURL(root, day)
            try? files.removeItem(at: done)
            try files.moveItem(at: work, to: done)
            if let previous { try? files.removeItem(at: Self.checkpointURL(root, previous)) }
        } catch {
            throw ENError(.dataInaccessible, "cannot record the finished day", context: .init(file: journal.path))
        }
        return checkpoint
    }

    /// The snapshot of device `name`'s store in a checkpoint's `devices` directory.
    static func snapshotURL(_ directory: URL, _ name: String) -> URL {
        directory.appendingPathComponent(name + ".sqlite")
    }

    static func checkpointURL(_ root: URL, _ day: Int) -> URL {
        root.appendingPathComponent(String(format: "day-%04d", day))
    }

    /// The newest finished day under `root` and its journal, or `nil` to start over.
    func latestCheckpoint(in root: URL) throws(ENError) -> (Int, SimulationCheckpoint)? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        let days = names.compactMap { name -> Int? in
            guard name.hasPrefix("day-"), name.count == 8 else { return nil }
            return Int(name.dropFirst(4))
        }.sorted(by: >)
        for day in days {
            let journal = Self.checkpointURL(root, day).appendingPathComponent("checkpoint.json")
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            guard let data = try? Data(contentsOf: journal),
                let checkpoint = try? decoder.decode(SimulationCheckpoint.self, from: data),
                checkpoint.report.scenario == scenario.name, checkpoint.report.seed == scenario.seed,
                checkpoint.report.devices.count == scenario.devices.count
            else { continue }
            return (day, checkpoint)
        }
        return nil
    }

    func dayStart(_ day: Int) -> Date { scenario.start + TimeInterval(day) * 86_400 }

    /// Makes and activates every device's manager, its store at `location`; in memory with `snapshots`, each
    /// store starts from its device's snapshot in that directory.
    func openDevices(
        location: (String) -> ENEnvironment.StoreLocation, snapshots: URL? = nil
    ) async throws(ENError) -> [SimulatedDevice] {
        var devices: [SimulatedDevice] = []
        for script in scenario.devices {
            let radio = ether.radio(for: script.name, txPower: script.txPower, rssiCorrection: script.rssiCorrection)
            // The phone launches the app once a day, when the simulation fires the launcher.
            let launcher = ENManualScheduler()
            var environment = ENEnvironment(
                consent: ENFixedConsent(true), radio: radio, clock: clock, storeLocation: location(script.name),
                trustedKeys: [trustedKey], region: region,
                apiVersion: script.apiVersion == 1 ? .version1 : .version2, scheduler: launcher,
                limits: ENLimits(periodicRunInterval: 86_400, maximumDetectionThreads: 1))
            environment.inMemorySnapshot = snapshots.map { Self.snapshotURL($0, script.name) }
            environment.sharedKeyFiles = sharedKeyFiles
            environment.sharedIdentifiers = sharedIdentifiers
            environment.sharedArchives = sharedArchives
            let manager = ENManager(environment: environment)
            manager.dispatchQueue = DispatchQueue(label: "ENSimulation.\(script.name)")
            let app = SimulatedApp(name: script.name)
            manager.activityHandler = { flags in app.activity(flags) }
            try await manager.activate()
            if !manager.exposureNotificationEnabled { try await manager.setExposureNotificationEnabled(true) }
            devices.append(
                SimulatedDevice(script: script, manager: manager, radio: radio, launcher: launcher, app: app))
        }
        return devices
    }

    func close(_ devices: [SimulatedDevice]) {
        for device in devices { device.manager.invalidate() }
    }
}

extension ENVirtualClock {
    /// The clock as a closure, for the key server.
    var nowFunction: @Sendable () -> Date { { [self] in self.now } }
}
