import ENCore
import ENCrypto
import ENExportFormat
import ENHTTPServer
import ENRiskV2
import ENSimulator
import ENTestSupport
import ENVerificationServer
import EnverifyKit
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

/// `enverify serve --test-clock` and the simulator's remote mode against a live `enverify` and a live closed
/// `enserver`, both on test clocks the simulation moves.
@Suite("ENSimulator against live enverify and enserver")
struct SimulationAgainstServicesTests {
    @Test("--test-clock: POST /api/test/clock on the admin listener only moves the service's clock, forward only")
    func testClockRoute() async throws {
        let start = Date(timeIntervalSince1970: 1_585_699_200)  // 2020-04-01T00:00:00Z
        let clock = TestClock(start: start)
        var configuration = ENVerificationConfiguration()
        configuration.certificateIssuer = "example.gov"
        configuration.certificateKeyID = "v7"
        let service = try ENVerificationService(
            configuration: configuration, secrets: try ENVerificationSecrets(masterKey: Data(repeating: 9, count: 32)),
            tokenKey: try P256SigningKey(), certificateKey: try P256SigningKey(),
            storage: try ENVerificationSQLiteStore(), clock: { clock.now })
        let adminKey = try await service.createAPIKey(name: "lab", type: .admin)
        let admin = VerificationHTTP(service: service, api: .admin, testClock: clock).application()
        let device = VerificationHTTP(service: service, api: .device, testClock: clock).application()
        // Not on the device listener, even when given a clock.
        try await device.test(.router) { client in
            let answer = try await VerificationHTTPTests.post(
                client, "/api/test/clock", #"{"now": "2020-04-05T10:00:00Z"}"#, key: nil)
            #expect(answer.status == 404)
        }
        try await admin.test(.router) { client in
            // A symptom date of the clock's day is refused before the clock is there ("2020-04-04" is in the future)…
            let early = try await VerificationHTTPTests.post(
                client, "/api/issue", #"{"testType":"confirmed","symptomDate":"2020-04-04"}"#, key: adminKey)
            #expect(early.status == 400, "\(early.json)")
            let moved = try await VerificationHTTPTests.post(
                client, "/api/test/clock", #"{"now": "2020-04-05T10:00:00Z"}"#, key: nil)
            #expect(moved.status == 200, "\(moved.body)")
            #expect(moved.json["now"] as? String == "2020-04-05T10:00:00Z")
            #expect(clock.now == start + 4 * 86_400 + 10 * 3600)
            // …and accepted after it, with the code's expiry on the test clock.
            let issued = try await VerificationHTTPTests.post(
                client, "/api/issue", #"{"testType":"confirmed","symptomDate":"2020-04-04"}"#, key: adminKey)
            #expect(issued.status == 200, "\(issued.json)")
            let expires = try #require(issued.json["expiresAtTimestamp"] as? Int)
            #expect(expires == Int(clock.now.timeIntervalSince1970) + 15 * 60)
            let back = try await VerificationHTTPTests.post(
                client, "/api/test/clock", #"{"now": "2020-04-01T10:00:00Z"}"#, key: nil)
            #expect(back.status == 409)
            for bad in [#"{"now": "tomorrow"}"#, "{}", "not json"] {
                let reply = try await VerificationHTTPTests.post(client, "/api/test/clock", bad, key: nil)
                #expect(reply.status == 400, "\(bad)")
            }
            let big = try await VerificationHTTPTests.post(
                client, "/api/test/clock", String(repeating: " ", count: 4096), key: nil)
            #expect(big.status == 413)
            let get = try await VerificationHTTPTests.post(client, "/api/test/clock", "", key: nil, method: .get)
            #expect(get.status == 405)
            #expect(clock.now == start + 4 * 86_400 + 10 * 3600)  // nothing refused moved it
        }
        // Without --test-clock there is no such route.
        let plain = VerificationHTTP(service: service, api: .admin).application()
        try await plain.test(.router) { client in
            let answer = try await VerificationHTTPTests.post(
                client, "/api/test/clock", #"{"now": "2030-01-01T00:00:00Z"}"#, key: nil)
            #expect(answer.status == 404)
        }
    }

    @Test("enverify --test-clock refuses a date that is not ISO 8601 with exit 2, naming the option")
    func badTestClock() throws {
        let setup = try EnverifySetup()
        defer { setup.directory.cleanUp() }
        let outcome = try LiveEnverifyTests.run(setup.serveOptions + ["--test-clock", "yesterday", "--port", "0"])
        #expect(outcome.status == 2)
        #expect(String(decoding: outcome.standardError, as: UTF8.self).contains("--test-clock yesterday"))
    }

    @Test(
        "the sample story: A's code issued, verified and certified by a live enverify, a closed live enserver takes it, B is notified",
        .enabled(if: FileManager.default.isExecutableFile(atPath: ThreeServicesTests.enserver)))
    func sampleStory() async throws {
        let scenario = ENScenario.sampleStory()
        let services = try await LiveServices(start: scenario.start)
        defer { services.stop() }
        let report = try await ENSimulation(scenario: scenario, keyServer: .remote(services.remote())).run()
        let (a, b, c) = (report.devices[0], report.devices[1], report.devices[2])
        #expect(report.notifiedDevices == ["B"])
        #expect(a.keysShared > 0)
        #expect(report.keysAccepted == a.keysShared)
        #expect(b.notifiedOnDay == 2)
        #expect(!c.notified)
        // The certificate's claims reached the files: the keys are a confirmed test's.
        let window = try #require(b.windows.first)
        #expect(window.diagnosisReportType == .confirmedTest)
        #expect(b.windows.allSatisfy { $0.diagnosisReportType == .confirmedTest })

        // Both servers logged the codes and the publishes they answered.
        let verifyLog = try String(contentsOfFile: services.directory.path("enverify.err"), encoding: .utf8)
        #expect(verifyLog.contains("/api/issue") && verifyLog.contains("/api/certificate"))
    }

    @Test(
        "a random town against the live services notifies whom the in-process run notifies, every key certified",
        .enabled(if: FileManager.default.isExecutableFile(atPath: ThreeServicesTests.enserver)))
    func randomTown() async throws {
        let scenario = ENScenario.randomTown(devices: 12, days: 4, seed: 7)
        let services = try await LiveServices(start: scenario.start)
        defer { services.stop() }
        let remote = try await ENSimulation(scenario: scenario, keyServer: .remote(services.remote())).run()
        let local = try await ENSimulation(scenario: scenario).run()
        #expect(remote.keysAccepted == local.keysAccepted)
        #expect(remote.keysAccepted > 0)
        // Google's embargo and export periods delay keys still valid when shared, as without verification.
        #expect(Set(remote.notifiedDevices).isSubset(of: Set(local.notifiedDevices)))
        #expect(!remote.notifiedDevices.isEmpty, "local: \(local.notifiedDevices)")
        #expect(remote.devices.map(\.sightings) == local.devices.map(\.sightings))
        let windows = remote.devices.flatMap(\.windows)
        #expect(!windows.isEmpty && windows.allSatisfy { $0.diagnosisReportType == .confirmedTest })
    }

    @Test(
        "a wrong admin or device API key stops the run with the verification server's refusal",
        .enabled(if: FileManager.default.isExecutableFile(atPath: ThreeServicesTests.enserver)))
    func refusedKeys() async throws {
        for wrong in ["admin", "device"] {
            let scenario = ENScenario.sampleStory()
            let services = try await LiveServices(start: scenario.start)
            defer { services.stop() }
            var remote = try services.remote()
            if wrong == "admin" { remote.verification?.adminAPIKey = "not-a-key" }
            if wrong == "device" { remote.verification?.deviceAPIKey = "not-a-key" }
            do throws(ENError) {
                _ = try await ENSimulation(scenario: scenario, keyServer: .remote(remote)).run()
                Issue.record("a run with a wrong \(wrong) key should fail")
            } catch {
                #expect(error.code == .notAuthorized, "\(error)")
                #expect(error.description.contains("verification server"), "\(error)")
                if wrong == "device" { #expect(error.description.contains("unauthorized"), "\(error)") }
            }
        }
    }
}

/// A live `enverify` and a live `enserver --verifier certificate` (its default), both on test clocks that start at
/// `start`, the key server trusting the verification server's certificate key.
struct LiveServices {
    let directory: TemporaryDirectory
    let enverify: ChildProcess
    let enserver: ChildProcess
    let verifyURLs: [URL]
    let serverURLs: [URL]
    let signingKey: P256SigningKey
    let adminKey: String
    let deviceKey: String

    init(start: Date) async throws {
        let setup = try EnverifySetup()
        directory = setup.directory
        adminKey = try LiveEnverifyTests.createKey(setup, type: "admin", name: "lab")
        deviceKey = try LiveEnverifyTests.createKey(setup, type: "device", name: "app")
        let clock = start.formatted(.iso8601)
        let verifyOutput = directory.path("enverify.out")
        enverify = try ChildProcess(
            LiveEnverifyTests.executable,
            setup.serveOptions + ["--port", "0", "--admin-port", "0", "--test-clock", clock],
            standardOutput: .file(verifyOutput), standardError: .file(directory.path("enverify.err")))
        let certificatePublicKey = directory.path("certificate.pub.pem")
        try setup.certificateKey.publicKey.pemRepresentation.write(
            toFile: certificatePublicKey, atomically: true, encoding: .utf8)
        signingKey = try P256SigningKey()
        try writeSecret(signingKey.pemRepresentation, toFile: directory.path("signing.pem"))
        let serverOutput = directory.path("enserver.out")
        enserver = try ChildProcess(
            ThreeServicesTests.enserver,
            [
                "serve", "--database", directory.path("keys.sqlite"), "--region", "US", "--signing-key",
                directory.path("signing.pem"), "--key-id", "310", "--health-authority-id", "sim",
                "--export-root", "exposureKeyExport-US", "--certificate-issuer", "example.gov",
                "--certificate-audience", "exposure-notifications-server", "--certificate-key",
                "v7=\(certificatePublicKey)", "--ephemeral-revision-tokens", "--test-clock", clock, "--port", "0",
                "--admin-port", "0", "--publish-burst", "0",
            ], standardOutput: .file(serverOutput), standardError: .file(directory.path("enserver.err")))
        verifyURLs = try await ThreeServicesTests.listeningURLs(
            verifyOutput, prefix: "enverify listening on ", count: 2, enverify)
        serverURLs =
            try await ThreeServicesTests.listeningURLs(
                serverOutput, prefix: "enserver listening on ", count: 1, enserver)
            + ThreeServicesTests.listeningURLs(
                serverOutput, prefix: "enserver admin listening on ", count: 1, enserver)
    }

    /// The simulation's view of the two servers.
    func remote() throws -> ENSimulation.RemoteKeyServer {
        ENSimulation.RemoteKeyServer(
            serverURL: serverURLs[0], adminURL: serverURLs[1], exportRoot: "exposureKeyExport-US",
            healthAuthorityID: "sim",
            verificationKey: ENExportVerificationKey(
                keyID: "310", keyVersion: "v1", publicKey: try signingKey.publicKey),
            region: "US",
            verification: ENSimulation.RemoteVerificationServer(
                serverURL: verifyURLs[0], adminURL: verifyURLs[1], deviceAPIKey: deviceKey, adminAPIKey: adminKey))
    }

    /// Kills both servers and removes their files.
    func stop() {
        for child in [enverify, enserver] where child.isRunning {
            child.send(SIGKILL)
            _ = child.waitForExit()
        }
        directory.cleanUp()
    }
}
