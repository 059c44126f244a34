import ENCore
import ENCrypto
import ENExportFormat
import ENHTTPServer
import ENKeyServer
import ENKeyServerSQLite
import ENSimulator
import ENTestSupport
import EnserverKit
import ExposureNotificationKit
import Foundation
import Testing

/// A key server on a ``TestClock`` (what `enserver serve --test-clock` runs): Google's export settings (4-hour
/// batches under `exposureKeyExport-US`), accept-all verification for `sim`.
struct TestClockServer {
    let clock: TestClock
    let signingKey: P256SigningKey
    let http: KeyServerHTTP

    init(start: Date) throws {
        let clock = TestClock(start: start)
        self.clock = clock
        signingKey = try P256SigningKey()
        let store = try ENKeyServerSQLiteStore(clock: { clock.now })
        let exporter = ENKeyServerExporter(
            storage: store,
            configuration: ENKeyServerConfiguration(
                region: "US", signers: [ENExportSigner(signingKey: signingKey, keyID: "310", keyVersion: "v1")],
                exportPeriod: 4 * 3600, exportRoot: "exposureKeyExport-US"),
            clock: { clock.now })
        let publish = ENPublishHandler(
            storage: store,
            configuration: ENPublishConfiguration(
                authorizedApps: [
                    ENPublishAuthorizedApp(healthAuthorityID: "sim", verifier: ENAcceptAllCertificateVerifier())
                ],
                revisionTokenKeys: try ENRevisionTokenKeys.generate(), defaultRegion: "US"),
            clock: { clock.now })
        http = KeyServerHTTP(exporter: exporter, publish: publish, testClock: clock)
    }

    /// The simulation's view of this server on `port`, its admin listener on `adminPort`.
    func remote(port: Int, adminPort: Int? = nil) throws -> ENSimulation.RemoteKeyServer {
        let admin = try loopbackURL(port: adminPort ?? port)
        return ENSimulation.RemoteKeyServer(
            serverURL: try #require(URL(string: "http://127.0.0.1:\(port)")), adminURL: admin,
            exportRoot: "exposureKeyExport-US",
            healthAuthorityID: "sim",
            verificationKey: ENExportVerificationKey(
                keyID: "310", keyVersion: "v1", publicKey: try signingKey.publicKey),
            region: "US")
    }
}

/// `http://127.0.0.1:PORT`.
func loopbackURL(port: Int) throws -> URL {
    var components = URLComponents()
    components.scheme = "http"
    components.host = "127.0.0.1"
    components.port = port
    return try #require(components.url)
}

@Suite("enserver with ENSimulator: devices against a live server on a test clock")
struct EnserverSimulationTests {
    @Test("the test clock moves forward only, and only a server started with one has the routes")
    func testClockRoutes() async throws {
        let start = Date(timeIntervalSince1970: 1_585_699_200)  // 2020-04-01T00:00:00Z
        let server = try TestClockServer(start: start)
        // Not on the public routes.
        let onPublic = try await server.http.withRoutes { client in
            try await client.request(
                "/v1/test/clock", method: "POST", headers: ["Content-Type": "application/json"],
                body: Data(#"{"now": "2020-04-02T10:00:00Z"}"#.utf8))
        }
        #expect(onPublic.status == 404 || onPublic.status == 405)
        #expect(server.clock.now == start)
        try await server.http.withAdminRoutes { client in
            let json = ["Content-Type": "application/json"]
            let moved = try await client.request(
                "/v1/test/clock", method: "POST", headers: json, body: Data(#"{"now": "2020-04-02T10:00:00Z"}"#.utf8))
            #expect(moved.status == 200, "\(moved.text)")
            #expect(try jsonObject(moved.text)["now"] as? String == "2020-04-02T10:00:00Z")
            #expect(server.clock.now == start + 34 * 3600)
            let back = try await client.request(
                "/v1/test/clock", method: "POST", headers: json, body: Data(#"{"now": "2020-04-01T10:00:00Z"}"#.utf8))
            #expect(back.status == 409 && back.text.contains("before the clock"))
            for bad in [#"{"now": "tomorrow"}"#, "{}", "not json", #"{"now": 5}"#] {
                let reply = try await client.request(
                    "/v1/test/clock", method: "POST", headers: json, body: Data(bad.utf8))
                #expect(reply.status == 400, "\(bad)")
            }
            let big = try await client.request(
                "/v1/test/clock", method: "POST", headers: json, body: Data(repeating: 0x20, count: 4096))
            #expect(big.status == 413)
            #expect(server.clock.now == start + 34 * 3600)  // nothing refused moved it
            let export = try await client.request(
                "/v1/test/export", method: "POST", headers: json, body: Data("{}".utf8))
            #expect(export.status == 200)
            #expect((try jsonObject(export.text)["files"] as? [String]) == [])
        }
        // A server without a test clock has no such routes.
        let plain = try ServerUnderTest()
        try await plain.http.withAdminRoutes { client in
            let reply = try await client.request(
                "/v1/test/clock", method: "POST", headers: ["Content-Type": "application/json"],
                body: Data(#"{"now": "2030-01-01T00:00:00Z"}"#.utf8))
            #expect(reply.status == 404 || reply.status == 405)
            #expect(plain.clock.now == startDate)
        }
    }

    @Test(
        "the sample story against a live server: devices publish over HTTP, download through index.txt, B is notified")
    func sampleStoryOverHTTP() async throws {
        let scenario = ENScenario.sampleStory()
        let server = try TestClockServer(start: scenario.start)
        let report = try await server.http.withRunningServers(KeyServerListeners(adminPort: 0)) { bound in
            try await ENSimulation(
                scenario: scenario, keyServer: .remote(try server.remote(port: bound.port, adminPort: bound.adminPort))
            ).run()
        }
        let (a, b, c) = (report.devices[0], report.devices[1], report.devices[2])
        #expect(report.notifiedDevices == ["B"])
        #expect(a.keysShared > 0)
        #expect(report.keysAccepted == a.keysShared)
        // A shares on day 2 at 09:00: its keys of days 0 and 1 are exported at that night's detection; today's key,
        // still valid, is embargoed (Google's rule) and exported once it has expired.
        #expect(b.notifiedOnDay == 2)
        #expect(report.filesPublished >= 1)
        #expect(b.filesProcessed >= 1)
        let window = try #require(b.windows.first)
        #expect(window.date == scenario.start)
        #expect(window.scanInstances.count == b.sightings)
        #expect(!c.notified)

        // The same story in process notifies the same device on the same day with the same windows.
        let inProcess = try await ENSimulation(scenario: scenario).run()
        #expect(inProcess.notifiedDevices == report.notifiedDevices)
        #expect(inProcess.devices[1].windows == b.windows)
        #expect(inProcess.devices[1].notifiedOnDay == b.notifiedOnDay)
    }

    @Test(
        "the sample story against the `enserver` executable started with --test-clock, over loopback",
        .enabled(if: ExternalTool.enserver.isAvailable))
    func sampleStoryAgainstTheExecutable() async throws {
        let scenario = ENScenario.sampleStory()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let signingKey = try P256SigningKey()
        let pem = directory.path("signing.pem")
        try writeSecret(signingKey.pemRepresentation, toFile: pem)
        let output = directory.url.appendingPathComponent("enserver.log")
        // Output to a file: the test reads it while the server runs.
        let process = try ChildProcess(
            try #require(ExternalTool.enserver.path),
            [
                "serve", "--database", directory.path("keys.sqlite"), "--region", "US", "--signing-key", pem,
                "--key-id", "310", "--health-authority-id", "sim", "--export-root", "exposureKeyExport-US",
                "--ephemeral-revision-tokens",
                "--test-clock", "2020-04-01T00:00:00Z", "--port", "0", "--verifier", "accept-all",
                "--admin-port", "0",
            ], standardOutput: .file(output.path), standardError: .standardOutput)
        defer {
            process.send(SIGKILL)
            process.waitForExit()
        }
        // The ports it bound, from its "listening on" lines.
        var port: Int?
        var adminPort: Int?
        for _ in 0..<300 where port == nil || adminPort == nil {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            port = EnserverProcess.port(in: text, after: "enserver listening on http://")
            adminPort = EnserverProcess.port(in: text, after: "enserver admin listening on http://")
            if port == nil || adminPort == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        let log = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        let bound = try #require(port, "\(log)")
        let boundAdmin = try #require(adminPort, "\(log)")
        let remote = ENSimulation.RemoteKeyServer(
            serverURL: try #require(URL(string: "http://127.0.0.1:\(bound)")),
            adminURL: try loopbackURL(port: boundAdmin), exportRoot: "exposureKeyExport-US",
            healthAuthorityID: "sim",
            verificationKey: ENExportVerificationKey(
                keyID: "310", keyVersion: "v1", publicKey: try signingKey.publicKey),
            region: "US")
        let report = try await ENSimulation(scenario: scenario, keyServer: .remote(remote)).run()
        #expect(report.notifiedDevices == ["B"])
        #expect(report.devices[1].notifiedOnDay == 2)
        #expect(report.keysAccepted == report.devices[0].keysShared)
        // SIGTERM stops it gracefully.
        process.send(SIGTERM)
        let termination = await process.waitForExit(timeout: .seconds(60))
        #expect(
            termination?.exitStatus == 0, "\(termination.map(String.init(describing:)) ?? "still running after 60 s")")
    }

    @Test("a random town against a live server notifies the devices the in-process server notifies")
    func randomTownOverHTTP() async throws {
        let scenario = ENScenario.randomTown(devices: 12, days: 4, seed: 7)
        let server = try TestClockServer(start: scenario.start)
        let remote = try await server.http.withRunningServers(KeyServerListeners(adminPort: 0)) { bound in
            try await ENSimulation(
                scenario: scenario, keyServer: .remote(try server.remote(port: bound.port, adminPort: bound.adminPort))
            ).run()
        }
        let local = try await ENSimulation(scenario: scenario).run()
        #expect(remote.keysAccepted == local.keysAccepted)
        // Keys still valid when shared reach devices a day later from Google's server (embargo, export periods), so
        // the remote run notifies no one the local run does not, and everyone it notifies by the last day.
        #expect(Set(remote.notifiedDevices).isSubset(of: Set(local.notifiedDevices)))
        #expect(!remote.notifiedDevices.isEmpty, "local: \(local.notifiedDevices)")
        #expect(remote.filesPublished > 0 && remote.devices.allSatisfy { $0.detections == scenario.days })
        #expect(remote.devices.map(\.sightings) == local.devices.map(\.sightings))
    }

    @Test("a remote key server with directory storage, or one that is not there, is refused with a clear error")
    func remoteRefusals() async throws {
        let scenario = ENScenario.sampleStory()
        let server = try TestClockServer(start: scenario.start)
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        #expect(throws: ENError(.badParameter)) {
            try ENSimulation(
                scenario: scenario, storage: .directory(directory.url), keyServer: .remote(try server.remote(port: 9)))
        }
        let simulation = try ENSimulation(scenario: scenario, keyServer: .remote(try server.remote(port: 9)))
        do throws(ENError) {
            _ = try await simulation.run()
            Issue.record("a run against a closed port should fail")
        } catch {
            #expect(error.code == .dataInaccessible)
            #expect(error.description.contains("127.0.0.1:9"), "\(error)")
        }
    }
}
