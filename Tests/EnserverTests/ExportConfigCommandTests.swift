import ENCore
import ENCrypto
import ENExportFormat
import ENHTTPServer
import ENKeyServer
import ENTestSupport
import EnserverKit
import Foundation
import Testing

/// `--export-config FILE`: several export configurations on one store, each with its own root, from `enserver
/// export` and `enserver serve`.
@Suite("enserver: several export configurations")
struct ExportConfigCommandTests {
    /// A CA configuration file in `directory` signing with `signingKey` as key id 302, with `extra` keys merged in.
    func caConfiguration(
        in directory: TemporaryDirectory, signingKey: P256SigningKey, name: String = "ca.json",
        _ extra: [String: Any] = [:]
    ) throws -> String {
        let pem = directory.path("ca-signing.pem")
        try writeSecret(signingKey.pemRepresentation, toFile: pem)
        var object: [String: Any] = [
            "name": "ca", "root": "ca", "region": "CA", "inputRegions": ["CA", "US"], "includeTravelers": true,
            "signingKeys": [["file": "ca-signing.pem", "keyID": "302", "keyVersion": "v1"]],
        ]
        object.merge(extra, uniquingKeysWith: { $1 })
        let path = directory.path(name)
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The published keys (numbered 1 to 14) a file carries, beside Google's random padding keys.
    func publishedKeys(_ data: Data) throws -> Set<Int> {
        let keys = Set(try ENExportArchive(data: data).keyExport().keys.map(\.keyData))
        return Set((1...14).filter { keys.contains(TestKeys.keyData($0)) })
    }

    func verifier(_ key: P256SigningKey, keyID: String) throws -> ENExportVerifier {
        ENExportVerifier(trustedKeys: [
            ENExportVerificationKey(keyID: keyID, keyVersion: "v1", publicKey: try key.publicKey)
        ])
    }

    @Test("`enserver serve` serves each configuration's index.txt and files under its root, each key once")
    func serveServesTwoRoots() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let usKey = try P256SigningKey()
        let caKey = try P256SigningKey()
        let pem = directory.path("signing.pem")
        try writeSecret(usKey.pemRepresentation, toFile: pem)
        let server = try await EnserverProcess.start(
            [
                "--database", directory.path("keys.sqlite"), "--region", "US", "--signing-key", pem, "--key-id", "310",
                "--health-authority-id", "com.example.app", "--ephemeral-revision-tokens", "--verifier", "accept-all",
                "--export-root", "us", "--only-non-travelers",
                "--export-config", try caConfiguration(in: directory, signingKey: caKey),
                "--test-clock", "2026-05-09T01:00:00Z",
            ], in: directory)
        do {
            let client = LoopbackClient(port: server.port)
            let admin = LoopbackClient(port: try #require(server.adminPort))
            let json = ["Content-Type": "application/json"]
            // Keys 1-3 of a user who stayed home, 4-6 of a traveller, all published for US.
            #expect(try await client.publish(publishBody(count: 3)).status == 200)
            let traveller = "{\"traveler\": true, " + publishBody(count: 3, first: 4).dropFirst()
            #expect(try await client.publish(traveller).status == 200)
            let moved = try await admin.request(
                "/v1/test/clock", method: "POST", headers: json, body: Data(#"{"now": "2026-05-09T09:00:00Z"}"#.utf8))
            #expect(moved.status == 200, "\(moved.text)")
            let exported = try await admin.request("/v1/test/export", method: "POST", headers: json)
            #expect(exported.status == 200, "\(exported.text)")

            let usIndex = try await client.request("/us/index.txt")
            let caIndex = try await client.request("/ca/index.txt")
            #expect(usIndex.status == 200 && caIndex.status == 200)
            let usNames = usIndex.text.split(separator: "\n").map(String.init)
            let caNames = caIndex.text.split(separator: "\n").map(String.init)
            #expect(usNames.count == 1 && caNames.count == 1)
            #expect(usNames.allSatisfy { $0.hasPrefix("us/") } && caNames.allSatisfy { $0.hasPrefix("ca/") })
            // One window, so one file name under each root, with different contents.
            #expect(usNames.map { $0.dropFirst(3) } == caNames.map { $0.dropFirst(3) })
            let usFile = try await client.request("/\(try #require(usNames.first))")
            let caFile = try await client.request("/\(try #require(caNames.first))")
            #expect(usFile.status == 200 && caFile.status == 200)
            #expect(try publishedKeys(usFile.body) == [1, 2, 3])
            #expect(try publishedKeys(caFile.body) == [1, 2, 3, 4, 5, 6])
            #expect(try ENExportArchive(data: caFile.body).keyExport().region == "CA")
            #expect(try verifier(caKey, keyID: "302").verify(ENExportArchive(data: caFile.body)).isVerified)
            #expect(try !verifier(usKey, keyID: "310").verify(ENExportArchive(data: caFile.body)).isVerified)
            #expect(try verifier(usKey, keyID: "310").verify(ENExportArchive(data: usFile.body)).isVerified)
            #expect(try await client.request("/other/index.txt").status == 404)

            // Nothing more is due: each configuration exported each key once.
            let again = try await admin.request("/v1/test/export", method: "POST", headers: json)
            #expect(try jsonObject(again.text)["files"] as? [String] == [])
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test("`enserver export --export-config` writes each configuration's files and index.txt under its root")
    func exportWritesEachRoot() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let usKey = try P256SigningKey()
        let pem = directory.path("signing.pem")
        try writeSecret(usKey.pemRepresentation, toFile: pem)
        let config = try caConfiguration(
            in: directory, signingKey: try P256SigningKey(), ["period": "1h", "excludedRegions": ["US"]])
        let exports = directory.path("exports")
        let base = [
            "--database", directory.path("keys.sqlite"), "--region", "US", "--signing-key", pem, "--key-id", "310",
            "--health-authority-id", "com.example.app", "--verifier", "accept-all", "--export-dir", exports,
            "--export-root", "us",
        ]
        try await runEnserver(["export"] + base + ["--export-config", config, "--now", "2026-05-09T06:00:00Z"])
        let us = try String(contentsOfFile: exports + "/us/index.txt", encoding: .utf8)
        let ca = try String(contentsOfFile: exports + "/ca/index.txt", encoding: .utf8)
        // No key was published; the 4-hour US period and the 1-hour CA period still cut their (empty) batches.
        #expect(us.isEmpty && ca.isEmpty)
        #expect(FileManager.default.fileExists(atPath: exports + "/ca"))
    }

    @Test("a bad --export-config file exits 2, naming the option, the file and what is wrong")
    func badConfigurationFiles() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let pem = directory.path("signing.pem")
        try writeSecret(try P256SigningKey().pemRepresentation, toFile: pem)
        let base = [
            "export", "--database", directory.path("keys.sqlite"), "--region", "US", "--signing-key", pem,
            "--key-id", "310", "--health-authority-id", "com.example.app", "--verifier", "accept-all",
            "--now", "2026-05-09T06:00:00Z",
        ]
        let key = try P256SigningKey()
        let cases: [([String: Any], String)] = [
            (["colour": "blue"], "unknown key \"colour\""),
            (["name": ""], "\"name\" is empty"),
            (["name": "c/a"], "exportName"),
            (["region": "C A"], "region"),
            (["inputRegions": ["E,U"]], "inputRegions"),
            (["period": "7h"], "24 hours"),
            (["period": "soon"], "period"),
            (["root": "../ca"], "exportRoot"),
            (["root": ""], "root ''"),
            (["signingKeys": []], "\"signingKeys\" is empty"),
            (["signingKeys": [["file": "missing.pem", "keyID": "302", "keyVersion": "v1"]]], "signingKeys[0].file"),
            (["signingKeys": [["file": "ca-signing.pem", "keyID": "302"]]], "missing \"signingKeys.0.keyVersion\""),
            (
                ["signingKeys": [["file": "ca-signing.pem", "keyID": "302", "keyVersion": "v1", "from": "today"]]],
                "signingKeys[0].from today"
            ),
            (["includeTravelers": "yes"], "\"includeTravelers\" has the wrong type"),
        ]
        for (extra, text) in cases {
            let config = try caConfiguration(in: directory, signingKey: key, extra)
            await expectEnserverFailure(base + ["--export-config", config], mentioning: text)
            await expectEnserverFailure(base + ["--export-config", config], mentioning: "--export-config \(config)")
        }
        let missing = directory.path("absent.json")
        await expectEnserverFailure(base + ["--export-config", missing], mentioning: "--export-config \(missing)")
        let config = try caConfiguration(in: directory, signingKey: key)
        await expectEnserverFailure(
            base + ["--export-config", config, "--export-config", config], mentioning: "named 'ca'")
        let loose = try caConfiguration(in: directory, signingKey: key)
        chmod(directory.path("ca-signing.pem"), 0o644)
        await expectEnserverFailure(base + ["--export-config", loose], mentioning: "chmod 600")
        #expect(!FileManager.default.fileExists(atPath: directory.path("keys.sqlite")))
    }

}
