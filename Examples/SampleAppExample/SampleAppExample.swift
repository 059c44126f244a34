// The example's driver (not sample code): sets up what iOS and the health authority provide (the environment
// set-up), then goes through the sample app's story on the ported sample code and prints what happens.
//
//     swift run SampleAppExample [--api-version 1|2]
//
// Everything runs on ENSimulator's virtual clock: a neighbour's phone and this one meet in an `ENEther`, the
// neighbour shares keys through the sample's `Server` (an `ENDiagnosisKeyServer` that signs and publishes files), and the
// framework's scheduler launches the app's `activityHandler` with `.periodicRun` once a day, which downloads the
// new files and detects, as on a phone.
import ENCrypto
import ENExportFormat
import ENKeyServer
import ENKeyServerSQLite
import ENSimulator
import ExposureNotificationKit
import ExposureNotificationKitTesting
import Foundation

@main
struct SampleAppExample {
    /// 2021-03-01 08:00 UTC.
    static let start = Date(timeIntervalSince1970: 1_614_556_800 + 8 * 3600)
    static let region = "310"

    static func main() async {
        var apiVersion = ENAPIVersion.version2
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let flag = arguments.firstIndex(of: "--api-version"), flag + 1 < arguments.count {
            guard let number = Int(arguments[flag + 1]), let version = ENAPIVersion(rawValue: number) else {
                print("usage: SampleAppExample [--api-version 1|2]")
                exit(2)
            }
            apiVersion = version
        }
        do {
            try await run(apiVersion: apiVersion)
        } catch {
            print("error: \(error)")
            exit(1)
        }
    }

    static func run(apiVersion: ENAPIVersion) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "SampleAppExample-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("downloads"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        // What the OS and the health authority provide: a clock, a radio, the key server and its signing key.
        let clock = ENVirtualClock(start)
        let scheduler = ENVirtualScheduler(clock: clock)
        let ether = ENEther()
        let signingKey = try P256SigningKey()
        let keyServer = ENDiagnosisKeyServer(
            storage: try ENKeyServerSQLiteStore(path: directory.appendingPathComponent("keyserver.sqlite").path) {
                clock.now
            },
            configuration: ENKeyServerConfiguration(
                region: region, signers: [ENExportSigner(signingKey: signingKey, keyID: region, keyVersion: "v1")]),
            // The story shares keys on the day of an encounter: the server releases the day's key at once (Google's
            // DEBUG_RELEASE_SAME_DAY_KEYS); a production server holds it until the day ends.
            rules: ENPublishConfiguration(releasesStillValidKeys: true), clock: { clock.now })
        let trustedKey = ENExportVerificationKey(keyID: region, keyVersion: "v1", publicKey: try signingKey.publicKey)
        ENEnvironment.default = ENEnvironment(
            consent: ENFixedConsent(true), radio: ether.radio(for: "you"), clock: clock,
            storeLocation: .directory(directory.appendingPathComponent("framework")), trustedKeys: [trustedKey],
            region: region, apiVersion: apiVersion, scheduler: scheduler,
            limits: ENLimits(periodicRunInterval: 86_400))
        SampleAppBackend.database = try SampleAppDatabase(path: directory.appendingPathComponent("app.sqlite").path)
        SampleAppBackend.keyServer = keyServer
        SampleAppBackend.downloads = directory.appendingPathComponent("downloads")
        print("Sample app, ENAPIVersion \(apiVersion.rawValue), starting \(stamp(clock.now))")

        // Launch: the app's ExposureManager activates its ENManager and enables Exposure Notification.
        let manager = ExposureManager.shared.manager
        // The launch activity handler (the iOS 12.5 path, Apple's `activityHandler`): once a day the framework
        // launches the app with `.periodicRun`, and the app downloads the new files and detects.
        manager.activityHandler = { flags in
            if flags.contains(.periodicRun) {
                print("  periodic run (.periodicRun): the app downloads the new key files and detects")
                _ = ExposureManager.shared.detectExposures { success in PeriodicRuns.finished(success) }
            }
        }
        for _ in 0..<3000 where !manager.exposureNotificationEnabled { try await Task.sleep(nanoseconds: 10_000_000) }
        guard manager.exposureNotificationEnabled else { throw ENError(.internal, "Exposure Notification is off") }
        LocalStore.shared.isOnboarded = true
        print("Launch: status \(manager.exposureNotificationStatus), authorization \(ENManager.authorizationStatus)")

        // A neighbour's phone, also broadcasting and scanning.
        let neighbour = ENManager(
            environment: ENEnvironment(
                consent: ENFixedConsent(true), radio: ether.radio(for: "neighbour"), clock: clock, region: region,
                apiVersion: apiVersion, scheduler: ENVirtualScheduler(clock: clock)))
        neighbour.dispatchQueue = DispatchQueue(label: "neighbour")
        try await neighbour.activate()
        try await neighbour.setExposureNotificationEnabled(true)
        ether.transmitAll(at: clock.now)

        // Day 0, 12:00: twenty minutes at 1.5 m.
        await advance(to: start + 4 * 3600, scheduler: scheduler, ether: ether)
        var random = ENSeededRandom(seed: 12, stream: [0])
        let heard = ether.encounter(
            "you", "neighbour", from: clock.now, length: 20 * 60, distance: 1.5, using: &random)
        print("Day 0: 20 minutes near the neighbour; this phone heard \(heard.first) advertisements")

        // Day 1, 07:00: the neighbour tests positive and shares keys through the sample's server.
        await advance(to: start + 23 * 3600, scheduler: scheduler, ether: ether)
        let neighbourKeys = try await neighbour.getDiagnosisKeys()
        try await waitFor { (done: @escaping (Error?) -> Void) in
            Server.shared.postDiagnosisKeys(neighbourKeys, completion: done)
        }
        let files = try await SampleAppBackend.publish()
        print("Day 1: the neighbour shares \(neighbourKeys.count) keys; the server publishes \(files.count) file(s)")

        // Day 1, 08:00: the framework's daily launch.
        try await periodicRun(until: start + 86_400, scheduler: scheduler, ether: ether)
        report("after the periodic run")

        // Day 2: another periodic run, no new files (the sample passes an empty list of URLs).
        try await periodicRun(until: start + 2 * 86_400, scheduler: scheduler, ether: ether)
        report("after a periodic run without new files")

        // The earlier API: the same keys through an ENExposureDetectionSession, in batches.
        let sessionSucceeded = await waitFor { (done: @escaping (Bool) -> Void) in
            ExposureManager.shared.detectExposuresWithSession(completionHandler: done)
        }
        print("ENExposureDetectionSession flow: \(sessionSucceeded ? "succeeded" : "failed")")
        report("after the session flow")

        // Day 3: this user tests positive and shares keys (getAndPostDiagnosisKeys), then pre-authorizes.
        await advance(to: start + 3 * 86_400 + 3600, scheduler: scheduler, ether: ether)
        let testResult = TestResult(id: UUID(), isAdded: true, dateAdministered: clock.now, isShared: false)
        LocalStore.shared.testResults[testResult.id] = testResult
        let before = Server.shared.diagnosisKeys.count
        try await waitFor { (done: @escaping (Error?) -> Void) in
            ExposureManager.shared.getAndPostDiagnosisKeys(testResult: testResult, completion: done)
        }
        LocalStore.shared.testResults[testResult.id]?.isShared = true
        print("Day 3: positive test; getAndPostDiagnosisKeys posts \(Server.shared.diagnosisKeys.count - before) keys")
        try await waitFor { (done: @escaping (Error?) -> Void) in
            ExposureManager.shared.preAuthorizeKeys(completion: done)
        }
        await advance(to: start + 4 * 86_400 + 3600, scheduler: scheduler, ether: ether)
        let beforeRequest = Server.shared.diagnosisKeys.count
        try await waitFor { (done: @escaping (Error?) -> Void) in
            ExposureManager.shared.requestPreAuthorizedKeys(completion: done)
        }
        print(
            "Day 4: pre-authorized release posts \(Server.shared.diagnosisKeys.count - beforeRequest) keys; "
                + "the server publishes \(try await SampleAppBackend.publish().count) file(s)")

        print("Outcome:")
        print("  onboarded: \(LocalStore.shared.isOnboarded)")
        print(
            "  testResults: \(LocalStore.shared.testResults.count), shared: \(LocalStore.shared.testResults.values.filter(\.isShared).count)"
        )
        print("  exposures: \(LocalStore.shared.exposures.count)")
        print("  nextDiagnosisKeyFileIndex: \(LocalStore.shared.nextDiagnosisKeyFileIndex)")
        print("  serverFiles: \(try await keyServer.files(startingAt: 0).count)")
        print("  lastError: \(LocalStore.shared.exposureDetectionErrorLocalizedDescription ?? "none")")
        neighbour.invalidate()
        try SampleAppBackend.database?.close()
    }

    /// Moves the clock to `date`; the scheduler launches the app's activity handler on the way (once a day), and
    /// this waits until every detection it started has finished. Throws if one failed or none ran.
    static func periodicRun(until date: Date, scheduler: ENVirtualScheduler, ether: ENEther) async throws {
        guard await advance(to: date, scheduler: scheduler, ether: ether) == true else {
            throw ENError(
                .internal,
                "the periodic run failed: \(LocalStore.shared.exposureDetectionErrorLocalizedDescription ?? "not run")")
        }
    }

    /// Moves the clock to `date` (the scheduler runs what falls due on the way) and waits for the detections of
    /// the periodic runs it launched; the phones broadcast all day, so each makes the day's key. Returns whether
    /// every run succeeded, `nil` when none ran.
    @discardableResult
    static func advance(to date: Date, scheduler: ENVirtualScheduler, ether: ENEther) async -> Bool? {
        // The handlers run on the main queue, which this (main-actor) code holds until it suspends below.
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool?, Never>) in
            PeriodicRuns.pending = continuation
            PeriodicRuns.remaining = scheduler.advance(to: date)
            PeriodicRuns.succeeded = true
            ether.transmitAll(at: date)
            if PeriodicRuns.remaining == 0 {
                PeriodicRuns.pending = nil
                continuation.resume(returning: nil)
            }
        }
    }

    /// Prints the app's `LocalStore` as the sample's UI would show it.
    static func report(_ moment: String) {
        let exposures = LocalStore.shared.exposures.map { exposure -> String in
            var text = stamp(exposure.date).prefix(10).description
            if let duration = exposure.duration { text += " \(Int(duration / 60)) min" }
            if let score = exposure.totalRiskScore { text += " score \(score)" }
            return text
        }
        print(
            "  LocalStore \(moment): exposures [\(exposures.joined(separator: ", "))], "
                + "next file index \(LocalStore.shared.nextDiagnosisKeyFileIndex), "
                + "last error \(LocalStore.shared.exposureDetectionErrorLocalizedDescription ?? "none")")
    }

    static func stamp(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

    /// Runs one of the sample's `completion: (Error?) -> Void` functions and throws its error.
    static func waitFor(_ body: (@escaping (Error?) -> Void) -> Void) async throws {
        let error = await withCheckedContinuation { (continuation: CheckedContinuation<Error?, Never>) in
            body { continuation.resume(returning: $0) }
        }
        if let error = error { throw error }
    }

    /// Runs one of the sample's `completionHandler: (Bool) -> Void` functions and returns its answer.
    static func waitFor(_ body: (@escaping (Bool) -> Void) -> Void) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            body { continuation.resume(returning: $0) }
        }
    }
}

/// The detections the periodic runs of one `advance(to:)` started, for the driver to wait on.
enum PeriodicRuns {
    nonisolated(unsafe) static var pending: CheckedContinuation<Bool?, Never>?
    nonisolated(unsafe) static var remaining = 0
    nonisolated(unsafe) static var succeeded = true

    static func finished(_ success: Bool) {
        succeeded = succeeded && success
        remaining -= 1
        guard remaining == 0, let continuation = pending else { return }
        pending = nil
        continuation.resume(returning: succeeded)
    }
}
