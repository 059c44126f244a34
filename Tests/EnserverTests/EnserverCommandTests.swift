import ArgumentParser
import ENCore
import ENCrypto
import ENExportFormat
import ENHTTPServer
import ENKeyServer
import ENKeyServerSQLite
import ENTestSupport
import EnserverKit
import Foundation
import Testing

@Suite("enserver: the command line")
struct EnserverCommandTests {
    /// Runs `enserver ARGUMENTS` in process.
    func run(_ arguments: [String]) async throws { try await runEnserver(arguments) }

    /// The options every run needs, with files in `directory`.
    func baseOptions(_ directory: TemporaryDirectory, signingKey: P256SigningKey) throws -> [String] {
        let pem = directory.path("signing.pem")
        try writeSecret(signingKey.pemRepresentation, toFile: pem)
        return [
            "--database", directory.path("keys.sqlite"), "--region", "US", "--signing-key", pem, "--key-id", "310",
            "--health-authority-id", "com.example.app", "--verifier", "accept-all",
        ]
    }

    /// Publishes `count` keys at `startDate` (01:00) through Google's publish API into the store file
    /// `keys.sqlite` in `directory`, which the command then opens; the store is closed on return.
    func publish(
        count: Int, into directory: TemporaryDirectory, regions: [String] = [], traveler: Bool = false
    ) async throws {
        let store = try ENKeyServerSQLiteStore(path: directory.path("keys.sqlite"), clock: { startDate })
        let handler = ENPublishHandler(
            storage: store,
            configuration: ENPublishConfiguration(
                authorizedApps: [
                    ENPublishAuthorizedApp(
                        healthAuthorityID: "com.example.app", verifier: ENAcceptAllCertificateVerifier(),
                        regions: regions)
                ],
                revisionTokenKeys: try ENRevisionTokenKeys.generate(), defaultRegion: "US"),
            clock: { startDate })
        var body = publishBody(count: count)
        if traveler { body = "{\"traveler\": true, " + body.dropFirst() }
        let reply = await handler.handle(contentType: "application/json", body: Data(body.utf8))
        #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self).prefix(300))")
    }

    func expectFailure(_ arguments: [String], mentioning text: String) async {
        do {
            try await run(arguments)
            Issue.record("enserver \(arguments) should fail")
        } catch let failure as EnserverFailure {
            #expect(failure.exitCode == 2)
            #expect(failure.message.contains(text), "\(failure.message)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("`enserver export --now` cuts the due batch into signed files, writes them and index.txt, once")
    func export() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let signingKey = try P256SigningKey()
        // Keys published at 01:00 into the store file the command then opens.
        try await publish(count: 7, into: directory)
        let exports = directory.path("exports")
        let arguments =
            ["export"] + (try baseOptions(directory, signingKey: signingKey)) + [
                "--export-dir", exports, "--export-root", "exposureKeyExport-US", "--export-period", "4h",
                "--now", "2026-05-09T06:00:00Z",
            ]
        try await run(arguments)
        let index = try String(contentsOfFile: exports + "/exposureKeyExport-US/index.txt", encoding: .utf8)
        let names = index.split(separator: "\n").map(String.init)
        #expect(names.count == 1)
        let verifier = ENExportVerifier(trustedKeys: [
            ENExportVerificationKey(keyID: "310", keyVersion: "v1", publicKey: try signingKey.publicKey)
        ])
        for name in names {
            let archive = try ENExportArchive(contentsOf: URL(fileURLWithPath: exports + "/" + name))
            #expect(try verifier.verify(archive).isVerified)
            #expect(try archive.keyExport().region == "US")
        }
        // A second run at the same moment finds nothing due.
        try await run(arguments)
        #expect(try String(contentsOfFile: exports + "/exposureKeyExport-US/index.txt", encoding: .utf8) == index)
    }

    @Test("--additional-signing-key: files signed by every key active at the export, newest first; bad specs exit 2")
    func additionalSigningKeys() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let (current, previous, retired) = (try P256SigningKey(), try P256SigningKey(), try P256SigningKey())
        try await publish(count: 3, into: directory)
        for (name, key) in [("previous", previous), ("retired", retired)] {
            try writeSecret(key.pemRepresentation, toFile: directory.path("\(name).pem"))
        }
        let base = try baseOptions(directory, signingKey: current) + ["--key-version", "v3"]
        let exports = directory.path("exports")
        // v2 signs until the end of the day, v1 ended the day before: at 06:00 v3 and v2 sign, in that order.
        try await run(
            ["export"] + base + [
                "--additional-signing-key", "v2=\(directory.path("previous.pem")),until=2026-05-09T23:59:59Z",
                "--additional-signing-key",
                "v1=\(directory.path("retired.pem")),from=2026-04-01T00:00:00Z,until=2026-05-08T23:59:59Z",
                "--export-dir", exports, "--now", "2026-05-09T06:00:00Z",
            ])
        let names = try String(contentsOfFile: exports + "/index.txt", encoding: .utf8).split(separator: "\n")
        #expect(names.count == 1)
        let archive = try ENExportArchive(contentsOf: URL(fileURLWithPath: exports + "/" + String(names[0])))
        let signatures = try archive.signatures()
        #expect(signatures.map(\.signatureInfo?.verificationKeyVersion) == ["v3", "v2"])
        #expect(try current.publicKey.isValidSignature(signatures[0].signature, for: archive.exportBinary))
        #expect(try previous.publicKey.isValidSignature(signatures[1].signature, for: archive.exportBinary))

        let pem = directory.path("previous.pem")
        for (spec, text) in [
            ("v2", "want NAME=VALUE"),
            ("v2=", "want VERSION=PEM-FILE"),
            ("v2=\(pem),since=2026-01-01T00:00:00Z", "is not from= or until="),
            ("v2=\(pem),until=soon", "until=soon is not an ISO 8601 date"),
            ("v2=\(pem),from=2026-02-01T00:00:00Z,until=2026-01-01T00:00:00Z", "until= is before from="),
            ("v3=\(pem)", "the key version v3 is given twice"),
            ("v2=\(directory.path("none.pem"))", "--additional-signing-key"),
        ] {
            await expectFailure(
                ["export"] + base + ["--additional-signing-key", spec, "--now", "2026-05-09T06:00:00Z"],
                mentioning: text)
        }
        let eleven = (0..<10).flatMap { ["--additional-signing-key", "w\($0)=\(pem)"] }
        await expectFailure(["export"] + base + eleven, mentioning: "at most 10 signing keys")
    }

    @Test(
        "the files `enserver export` writes verify with entool and OpenSSL and read with protoc",
        .enabled(if: ExternalTool.entool.isAvailable && ExternalTool.openssl.isAvailable),
        .enabled(if: ExternalTool.protoc.isAvailable))
    func outsideCheckers() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let signingKey = try P256SigningKey()
        try await publish(count: 5, into: directory)
        let exports = directory.path("exports")
        try await run(
            ["export"] + (try baseOptions(directory, signingKey: signingKey)) + [
                "--export-dir", exports, "--export-root", "exposureKeyExport-US", "--now", "2026-05-09T06:00:00Z",
            ])
        let publicPEM = directory.path("public.pem")
        try signingKey.publicKey.pemRepresentation.write(toFile: publicPEM, atomically: true, encoding: .utf8)
        let otherPEM = directory.path("other.pem")
        try P256SigningKey().publicKey.pemRepresentation.write(toFile: otherPEM, atomically: true, encoding: .utf8)
        let index = try String(contentsOfFile: exports + "/exposureKeyExport-US/index.txt", encoding: .utf8)
        let names = index.split(separator: "\n").map(String.init)
        #expect(names.count == 1)
        for name in names {
            let zip = exports + "/" + name
            let verified = try ExternalTool.entool.run(
                ["verify", zip, "--public-key", publicPEM, "--key-id", "310", "--key-version", "v1"])
            #expect(verified.status == 0, "\(String(decoding: verified.stderr, as: UTF8.self))")
            let refused = try ExternalTool.entool.run(["verify", zip, "--public-key", otherPEM])
            #expect(refused.status == 1)
            let archive = try ENExportArchive(contentsOf: URL(fileURLWithPath: zip))
            let bin = directory.url.appendingPathComponent("export.bin")
            let sig = directory.url.appendingPathComponent("signature.der")
            try archive.exportBinary.write(to: bin)
            try archive.signatures()[0].signature.write(to: sig)
            let openssl = try ExternalTool.openssl.run([
                "dgst", "-sha256", "-verify", publicPEM, "-signature", sig.path, bin.path,
            ])
            #expect(openssl.status == 0 && openssl.output.contains("Verified OK"))
            let decoded = try ExternalTool.protoc.run(["--decode_raw"], stdin: archive.exportBinary.dropFirst(16))
            #expect(decoded.status == 0)
            // region "US", batch 1 of 1, and the five keys (field 7), each 16 bytes.
            #expect(decoded.output.contains("3: \"US\"") && decoded.output.contains("4: 1\n5: 1\n"))
            #expect(decoded.output.components(separatedBy: "7 {").count - 1 >= 5)
        }
    }

    @Test("--input-region, --exclude-region, --include-travelers, --only-non-travelers select the files' keys")
    func regionOptions() async throws {
        let cases: [([String], Bool)] = [
            ([], false), (["--include-travelers"], true), (["--input-region", "ca"], true),
            (["--input-region", "CA", "--only-non-travelers"], false),
            (["--include-travelers", "--exclude-region", "MX", "--exclude-region", "CA"], false),
        ]
        for (options, exported) in cases {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            // A traveller's keys, published by an app of CA and MX.
            try await publish(count: 7, into: directory, regions: ["CA", "MX"], traveler: true)
            let exports = directory.path("exports")
            try await run(
                ["export"] + (try baseOptions(directory, signingKey: try P256SigningKey())) + options + [
                    "--export-dir", exports, "--export-period", "4h", "--now", "2026-05-09T06:00:00Z",
                ])
            let names = try String(contentsOfFile: exports + "/index.txt", encoding: .utf8)
                .split(separator: "\n").map(String.init)
            // The published keys among the files' (which Google's padding fills up with random ones).
            var found = Set<Data>()
            for name in names {
                let export = try ENExportArchive(contentsOf: URL(fileURLWithPath: exports + "/" + name)).keyExport()
                found.formUnion(export.keys.map(\.keyData))
            }
            #expect(found.intersection((1...7).map(TestKeys.keyData)).count == (exported ? 7 : 0), "\(options)")
        }
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let base = try baseOptions(directory, signingKey: try P256SigningKey())
        await expectFailure(["export"] + base + ["--exclude-region", "E U"], mentioning: "--exclude-region: region")
        await expectFailure(["export"] + base + ["--input-region", ""], mentioning: "--input-region: region")
        await expectFailure(
            ["export"] + base + ["--health-authority-region", "A,B"], mentioning: "--health-authority-region: region")
    }

    @Test("bad options: a clear message and exit status 2, before anything is served or written")
    func badOptions() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let base = try baseOptions(directory, signingKey: try P256SigningKey())
        await expectFailure(["export"] + base + ["--export-period", "5x"], mentioning: "--export-period 5x")
        await expectFailure(["export"] + base + ["--export-period", "7h"], mentioning: "24")
        await expectFailure(
            ["export"] + base + ["--postgres", "postgres://en@127.0.0.1/keys"], mentioning: "exclude each other")
        var noDatabase = base
        noDatabase.removeSubrange(
            noDatabase.firstIndex(of: "--database")!...noDatabase.firstIndex(of: "--database")! + 1)
        await expectFailure(["export"] + noDatabase, mentioning: "--database FILE or --postgres URL")
        #if PostgreSQL
            for (url, text) in [
                ("mysql://en@127.0.0.1/keys", "PostgreSQL URL"), ("postgres://127.0.0.1/keys", "no user"),
                ("postgres://en:secret@127.0.0.1/keys?sslmode=maybe", "sslmode"),
                ("postgres://en@127.0.0.1/keys?colour=blue", "unknown PostgreSQL URL parameter colour"),
                ("postgres://en@127.0.0.1/keys?pool_max=0", "pool_max"),
            ] {
                await expectFailure(["export"] + noDatabase + ["--postgres", url], mentioning: text)
            }
        #else
            // A build without the PostgreSQL trait refuses --postgres, naming the trait.
            await expectFailure(
                ["export"] + noDatabase + ["--postgres", "postgres://en@127.0.0.1/keys"],
                mentioning: "without the PostgreSQL trait")
        #endif
        await expectFailure(["serve"] + base + ["--test-clock", "yesterday"], mentioning: "--test-clock yesterday")
        await expectFailure(["export"] + base + ["--verifier", "certificate"], mentioning: "--certificate-issuer")
        try writeSecret("1=AAAA\n", toFile: directory.path("tokens"))
        await expectFailure(
            ["export"] + base + ["--revision-token-keys-file", directory.path("tokens")],
            mentioning: "--revision-token-keys-file \(directory.path("tokens")): entry 1")
        await expectFailure(["export"] + base + ["--now", "yesterday"], mentioning: "--now yesterday")
        var missingKey = base
        missingKey[missingKey.firstIndex(of: "--signing-key")! + 1] = directory.path("missing.pem")
        await expectFailure(["export"] + missingKey, mentioning: "cannot read")
        #expect(!FileManager.default.fileExists(atPath: directory.path("keys.sqlite")))
    }
}
