import ArgumentParser
import ENCore
import ENCrypto
import ENExportFormat
import ENHTTPServer
import ENKeyServer
import ENKeyServerSQLite
import ENSimulator
import ENTestSupport
import ExposureNotificationKit
import ExposureNotificationKitTesting
import Foundation
import Testing

@testable import EnserverKit

/// `enserver import` between two servers on loopback: A serves its files over HTTP, B imports them verified against
/// A's public key, and B's own export configuration decides whether its files carry them.
@Suite("enserver import: two key servers on loopback")
struct ImportCommandTests {
    /// B's options: a key server for region CA on `b.sqlite` in `directory`.
    func options(_ directory: TemporaryDirectory, signingKey: P256SigningKey, database: String = "b.sqlite") throws
        -> [String]
    {
        let pem = directory.path("b-signing.pem")
        try writeSecret(signingKey.pemRepresentation, toFile: pem)
        return [
            "--database", directory.path(database), "--region", "CA", "--signing-key", pem, "--key-id", "302",
            "--health-authority-id", "ca.example.app", "--verifier", "accept-all",
        ]
    }

    /// The keys of the files B's export writes with `selection`, from `database`, verified with B's key.
    func exportedKeys(
        _ directory: TemporaryDirectory, database: String, bKey: P256SigningKey, selection: [String]
    ) async throws -> Set<Data> {
        let exports = directory.path("exports-\(database)")
        try await runEnserver(
            ["export"] + (try options(directory, signingKey: bKey, database: database)) + selection + [
                "--export-dir", exports, "--export-period", "4h", "--now", "2026-05-09T12:00:00Z",
            ])
        let verifier = ENExportVerifier(trustedKeys: [
            ENExportVerificationKey(keyID: "302", keyVersion: "v1", publicKey: try bKey.publicKey)
        ])
        var keys = Set<Data>()
        let index = try String(contentsOfFile: exports + "/index.txt", encoding: .utf8)
        for name in index.split(separator: "\n") {
            let archive = try ENExportArchive(contentsOf: URL(fileURLWithPath: exports + "/" + name))
            #expect(try verifier.verify(archive).isVerified, "a phone trusting B verifies B's file")
            keys.formUnion(try archive.keyExport().keys.map(\.keyData))
        }
        return keys
    }

    @Test("B imports A's files once, verified; B's files carry A's keys when its configuration selects them")
    func importsBetweenTwoServers() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        // A: region US, 7 keys published at 01:00, exported at 07:00 as Google's 4-hour batches.
        let a = try ServerUnderTest()
        let published = try await a.live { client in try await client.publish(publishBody(count: 7)) }
        #expect(published.status == 200)
        a.clock.advance(hours: 6)
        let aFiles = try await a.server.publish()
        #expect(aFiles.count == 1)
        // Every key of A's file, A's 7 and the random ones Google's padding adds, is imported once.
        let aFileKeys = try aFiles.flatMap { try ENExportArchive(data: $0.data).keyExport().keys }
        let aKey = directory.path("a-public.pem")
        try (try a.signingKey.publicKey).pemRepresentation.write(toFile: aKey, atomically: true, encoding: .utf8)
        let aKeys = Set((1...7).map(TestKeys.keyData))

        let bKey = try P256SigningKey()
        try await a.http.withRunningServer { port in
            let index = "http://127.0.0.1:\(port)/exposureKeyExport-US/index.txt"
            // D imports A's keys as travellers' keys.
            for database in ["b.sqlite", "c.sqlite", "d.sqlite", "e.sqlite"] {
                let traveler = database == "d.sqlite" || database == "e.sqlite" ? ["--import-traveler"] : []
                let arguments =
                    ["import"] + (try options(directory, signingKey: bKey, database: database)) + traveler + [
                        "--import-name", "us", "--import-index", index, "--import-region", "US",
                        "--import-public-key", "310/v1=\(aKey)", "--now", "2026-05-09T07:00:00Z",
                    ]
                try await runEnserver(arguments)
                // Again: the file is recorded as imported, nothing is imported twice.
                try await runEnserver(arguments)
            }
            // A key that did not sign A's files: the file is refused whole, stays open, and counts a failed try.
            let wrong = directory.path("wrong-public.pem")
            try (try P256SigningKey().publicKey).pemRepresentation.write(
                toFile: wrong, atomically: true, encoding: .utf8)
            do {
                try await runEnserver(
                    ["import"] + (try options(directory, signingKey: bKey)) + [
                        "--import-name", "us-wrong-key", "--import-index", index, "--import-region", "US",
                        "--import-public-key", "310/v1=\(wrong)", "--now", "2026-05-09T07:00:00Z",
                    ])
                Issue.record("an import of files that do not verify should fail")
            } catch let failure as EnserverFailure {
                #expect(failure.exitCode == 1)
                #expect(failure.message.contains("no signature verifies"), "\(failure.message)")
            }
        }

        let store = try ENKeyServerSQLiteStore(path: directory.path("b.sqlite"))
        let stored = try await store.storedKeys(withKeyData: Array(aKeys))
        #expect(stored.count == 7)
        #expect(stored.allSatisfy { $0.origin == ENKeyServerKeyOrigin(regions: ["US"], importName: "us") })
        #expect(try await store.diagnosisKeysAwaitingExport().count == aFileKeys.count)
        #expect(try await store.importFiles("us").map(\.status) == [.complete])
        let refused = try await store.importFiles("us-wrong-key")
        #expect(refused.map(\.status) == [.open] && refused.map(\.retries) == [1])
        try store.close()

        // B with CA and US as input regions exports A's keys; C, for CA alone, does not.
        let fromB = try await exportedKeys(
            directory, database: "b.sqlite", bKey: bKey, selection: ["--input-region", "CA", "--input-region", "US"])
        #expect(fromB.isSuperset(of: aKeys))
        let fromC = try await exportedKeys(directory, database: "c.sqlite", bKey: bKey, selection: [])
        #expect(fromC.isDisjoint(with: aKeys))
        // Travellers' keys go into a CA file that includes travellers, unless their region is excluded.
        let fromD = try await exportedKeys(
            directory, database: "d.sqlite", bKey: bKey, selection: ["--include-travelers"])
        #expect(fromD.isSuperset(of: aKeys))
        let fromE = try await exportedKeys(
            directory, database: "e.sqlite", bKey: bKey, selection: ["--include-travelers", "--exclude-region", "US"])
        #expect(fromE.isDisjoint(with: aKeys))
    }

    @Test(
        "B's export configurations on one store: A's keys, imported as travellers', go once into each file that selects them"
    )
    func exportConfigurationsOfB() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let a = try ServerUnderTest()
        #expect(try await a.live { client in try await client.publish(publishBody(count: 7)) }.status == 200)
        a.clock.advance(hours: 6)
        #expect(try await a.server.publish().count == 1)
        let aKeys = Set((1...7).map(TestKeys.keyData))
        let aKey = directory.path("a-public.pem")
        try (try a.signingKey.publicKey).pemRepresentation.write(toFile: aKey, atomically: true, encoding: .utf8)
        let bKey = try P256SigningKey()
        let base = try options(directory, signingKey: bKey)
        try await a.http.withRunningServer { port in
            try await runEnserver(
                ["import"] + base + [
                    "--import-name", "us", "--import-index", "http://127.0.0.1:\(port)/exposureKeyExport-US/index.txt",
                    "--import-region", "US", "--import-traveler", "--import-public-key", "310/v1=\(aKey)", "--now",
                    "2026-05-09T07:00:00Z",
                ])
        }
        // B's configurations, as Google's export configs select keys: its own region's (the default), travellers'
        // included, travellers' included but not US's, and CA with US for non-travellers only.
        func configuration(_ name: String, _ selection: [String: Any]) throws -> String {
            var object: [String: Any] = [
                "name": name, "root": name, "region": "CA", "inputRegions": ["CA"],
                "signingKeys": [["file": "b-signing.pem", "keyID": "302", "keyVersion": "v1"]],
            ]
            object.merge(selection, uniquingKeysWith: { $1 })
            let path = directory.path("\(name).json")
            try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
            return path
        }
        let exports = directory.path("exports")
        try await runEnserver(
            ["export"] + base + [
                "--export-dir", exports, "--export-root", "ca", "--export-period", "4h", "--now",
                "2026-05-09T12:00:00Z",
                "--export-config", try configuration("ca-travelers", ["includeTravelers": true]),
                "--export-config",
                try configuration("ca-not-us", ["includeTravelers": true, "excludedRegions": ["US"]]),
                "--export-config",
                try configuration("ca-us-residents", ["inputRegions": ["CA", "US"], "onlyNonTravelers": true]),
            ])
        let verifier = ENExportVerifier(trustedKeys: [
            ENExportVerificationKey(keyID: "302", keyVersion: "v1", publicKey: try bKey.publicKey)
        ])
        func keys(under root: String) throws -> [Data] {
            let index = try String(contentsOfFile: "\(exports)/\(root)/index.txt", encoding: .utf8)
            return try index.split(separator: "\n").flatMap { line in
                #expect(line.hasPrefix("\(root)/"))
                let archive = try ENExportArchive(contentsOf: URL(fileURLWithPath: "\(exports)/\(line)"))
                #expect(try verifier.verify(archive).isVerified, "a phone trusting B verifies \(line)")
                return try archive.keyExport().keys.map(\.keyData)
            }
        }
        let travelers = try keys(under: "ca-travelers")
        #expect(travelers.filter(aKeys.contains).count == aKeys.count, "each of A's keys once")
        #expect(Set(travelers).isSuperset(of: aKeys))
        for root in ["ca", "ca-not-us", "ca-us-residents"] {
            #expect(Set(try keys(under: root)).isDisjoint(with: aKeys), "\(root)")
        }
    }

    @Test("a phone trusting only B's key is notified of an exposure to a key first published to A")
    func phoneTrustingBDetectsAKeyPublishedToA() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        // The day before A's clock, the user's phone hears the patient's phone for 20 minutes.
        let encounter = startDate.addingTimeInterval(-15 * 3_600)
        let (patientClock, userClock) = (ENVirtualClock(encounter), ENVirtualClock(encounter))
        let patientRadio = ENEther().radio(for: "patient")
        let userRadio = ENEther().radio(for: "user")
        func enabledPhone(_ radio: ENEtherRadio, _ clock: ENVirtualClock, trusting: [ENExportVerificationKey])
            async throws -> ENManager
        {
            let manager = ENManager(
                environment: ENEnvironment(
                    consent: ENFixedConsent(true), radio: radio, clock: clock, trustedKeys: trusting,
                    scheduler: ENManualScheduler()))
            try await manager.activate()
            try await manager.setExposureNotificationEnabled(true)
            return manager
        }
        let bKey = try P256SigningKey()
        let patient = try await enabledPhone(patientRadio, patientClock, trusting: [])
        let user = try await enabledPhone(
            userRadio, userClock,
            trusting: [ENExportVerificationKey(keyID: "302", keyVersion: "v1", publicKey: try bKey.publicKey)])
        for minute in stride(from: 0, through: 20, by: 4) {
            let moment = encounter.addingTimeInterval(TimeInterval(minute * 60))
            let advertisement = try patientRadio.advertisement(at: moment)
            _ = userRadio.hear(ENSighting(rpi: advertisement.rpi, aem: advertisement.aem, timestamp: moment, rssi: -60))
        }
        // The patient's keys go to A (region US), which exports them; B (region CA) imports A's files and exports
        // them because US is one of its input regions.
        patientClock.set(encounter.addingTimeInterval(3_600))
        let keys = try await patient.getDiagnosisKeys()
        #expect(!keys.isEmpty)
        let a = try ServerUnderTest()
        let body = PublishRequestBody(keys: keys, healthAuthorityID: "com.example.app").json
        #expect(try await a.live { client in try await client.publish(body) }.status == 200)
        a.clock.advance(hours: 6)
        #expect(try await a.server.publish().count == 1)
        let aKey = directory.path("a-public.pem")
        try (try a.signingKey.publicKey).pemRepresentation.write(toFile: aKey, atomically: true, encoding: .utf8)
        try await a.http.withRunningServer { port in
            try await runEnserver(
                ["import"] + (try options(directory, signingKey: bKey)) + [
                    "--import-name", "us", "--import-index", "http://127.0.0.1:\(port)/exposureKeyExport-US/index.txt",
                    "--import-region", "US", "--import-public-key", "310/v1=\(aKey)", "--now", "2026-05-09T07:00:00Z",
                ])
        }
        let fromB = try await exportedKeys(
            directory, database: "b.sqlite", bKey: bKey, selection: ["--input-region", "CA", "--input-region", "US"])
        #expect(fromB.isSuperset(of: keys.map(\.keyData)))
        let exports = directory.url.appendingPathComponent("exports-b.sqlite")
        let index = try String(contentsOf: exports.appendingPathComponent("index.txt"), encoding: .utf8)
        let urls = index.split(separator: "\n").map { exports.appendingPathComponent(String($0)) }

        // The user's phone, trusting only B's key, downloads B's files and is notified.
        userClock.set(startDate.addingTimeInterval(12 * 3_600))
        var configuration = ENExposureConfiguration()
        configuration.infectiousnessByDaysSinceOnsetOfSymptoms = Dictionary(
            uniqueKeysWithValues: ((-14...14).map { ($0, ENInfectiousness.standard) })
                + [(ENDaysSinceOnsetOfSymptomsUnknown, .standard)])
        let summary = try await user.detectExposures(configuration: configuration, diagnosisKeyURLs: urls)
        let windows = try await user.getExposureWindows(summary: summary)
        #expect(!windows.isEmpty)
        #expect(!summary.daySummaries.isEmpty)
        #expect(
            Set(windows.map { ENIntervalNumber(date: $0.date).rollingStart })
                == [ENIntervalNumber(date: encounter).rollingStart])
    }

    @Test("`enserver serve --import-name` imports A's files on an interval")
    func serveImportsOnAnInterval() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let a = try ServerUnderTest()
        #expect(try await a.live { client in try await client.publish(publishBody(count: 5)) }.status == 200)
        a.clock.advance(hours: 6)
        #expect(try await a.server.publish().count == 1)
        let aKey = directory.path("a-public.pem")
        try (try a.signingKey.publicKey).pemRepresentation.write(toFile: aKey, atomically: true, encoding: .utf8)
        try await a.http.withRunningServer { port in
            let b = try await EnserverProcess.start(
                (try options(directory, signingKey: try P256SigningKey())) + [
                    "--ephemeral-revision-tokens", "--import-name", "us", "--import-index",
                    "http://127.0.0.1:\(port)/exposureKeyExport-US/index.txt", "--import-region", "US",
                    "--import-public-key", "310/v1=\(aKey)", "--import-interval", "1s",
                ], in: directory)
            var imported = 0
            for _ in 0..<300 where imported < 5 {
                try await Task.sleep(for: .milliseconds(100))
                let store = try ENKeyServerSQLiteStore(path: directory.path("b.sqlite"))
                imported = try await store.storedKeys(withKeyData: (1...5).map(TestKeys.keyData)).count
                try store.close()
            }
            await b.stop()
            #expect(imported == 5, "\(b.log)")
        }
        let failure = #expect(throws: EnserverFailure.self) {
            _ = try ImportOptions.parse(["--import-region", "US"]).configuration(required: false)
        }
        #expect(failure?.message.contains("need --import-name") == true)
    }

    @Test(
        "kill -9 of `enserver import` at any moment: a file recorded as imported has all its keys; a rerun imports the rest once",
        .enabled(if: ExternalTool.enserver.isAvailable))
    func killDuringAnImport() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let aKey = try P256SigningKey()
        let files = try await signedExportFiles(rounds: 6, signingKey: aKey)
        try #require(files.count >= 6)
        let root = "exposureKeyExport-US"
        let server = StaticFileServer(delay: .milliseconds(40))
        for file in files { server.set("\(root)/\(file.name)", file.data) }
        server.set("\(root)/index.txt", Data(files.map { "\(root)/\($0.name)" }.joined(separator: "\n").utf8))
        let keysByFile = try Dictionary(
            uniqueKeysWithValues: files.map {
                ($0.name, try ENExportArchive(data: $0.data).keyExport().keys.map(\.keyData))
            })
        let allKeys = Set(keysByFile.values.joined())
        let publicKey = directory.path("a-public.pem")
        try (try aKey.publicKey).pemRepresentation.write(toFile: publicKey, atomically: true, encoding: .utf8)
        let bKey = try P256SigningKey()
        let enserver = try #require(ExternalTool.enserver.path)
        try await server.withRunning { url in
            var random = SeededRandomNumberGenerator(seed: 38)
            var interrupted = 0
            for round in 0..<8 {
                let database = "killed-\(round).sqlite"
                let arguments =
                    ["import"] + (try options(directory, signingKey: bKey, database: database)) + [
                        "--import-name", "us", "--import-index", "\(url.absoluteString)/\(root)/index.txt",
                        "--import-region", "US", "--import-public-key", "310/v1=\(publicKey)", "--now",
                        "2026-05-10T14:00:00Z",
                    ]
                let child = try ChildProcess(enserver, arguments)
                try await Task.sleep(for: .milliseconds(Int.random(in: 0..<600, using: &random)))
                child.send(SIGKILL)
                _ = await child.waitForExit()
                // Whatever the moment: the store is whole, and every file recorded as imported has all its keys.
                let store = try ENKeyServerSQLiteStore(path: directory.path(database))
                try store.checkIntegrity()
                let recorded = try await store.importFiles("us")
                for file in recorded where file.status == .complete {
                    let name = String(file.url.split(separator: "/").last ?? "")
                    let keys = try #require(keysByFile[name])
                    #expect(
                        try await store.storedKeys(withKeyData: keys).count == keys.count,
                        "round \(round): \(name) is recorded as imported without all its keys")
                }
                if recorded.count < files.count || recorded.contains(where: { $0.status != .complete }) {
                    interrupted += 1
                }
                try store.close()
                // A run to its end imports the rest: every key once, every file recorded as imported once.
                let outcome = try await ChildProcess.runAsync(enserver, arguments, timeout: .seconds(300))
                #expect(
                    outcome.termination.exitStatus == 0, "\(String(decoding: outcome.standardError, as: UTF8.self))")
                let after = try ENKeyServerSQLiteStore(path: directory.path(database))
                let stored = try await after.storedKeys(withKeyData: Array(allKeys))
                #expect(stored.count == allKeys.count, "round \(round)")
                #expect(stored.allSatisfy { $0.origin == ENKeyServerKeyOrigin(regions: ["US"], importName: "us") })
                let imported = try await after.importFiles("us")
                #expect(imported.count == files.count && imported.allSatisfy { $0.status == .complete })
                try after.close()
            }
            // Some kills did land in the middle of an import.
            #expect(interrupted > 0)
        }
    }

    @Test("bad import options exit 2 naming the option")
    func badOptions() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let base = ["import"] + (try options(directory, signingKey: try P256SigningKey()))
        let good = [
            "--import-name", "us", "--import-index", "http://127.0.0.1:9/index.txt", "--import-region", "US",
        ]
        await expectEnserverFailure(base + good, mentioning: "--import-public-key")
        let pem = directory.path("key.pem")
        try (try P256SigningKey().publicKey).pemRepresentation.write(toFile: pem, atomically: true, encoding: .utf8)
        await expectEnserverFailure(
            base + good + ["--import-public-key", pem], mentioning: "KEY-ID/KEY-VERSION=PEM-FILE")
        await expectEnserverFailure(
            base + good + ["--import-public-key", "310/v1=/missing.pem"], mentioning: "cannot read")
        let key = ["--import-public-key", "310/v1=\(pem)"]
        await expectEnserverFailure(
            base + ["--import-name", "us", "--import-index", "ftp://example/index.txt", "--import-region", "US"] + key,
            mentioning: "--import-index")
        await expectEnserverFailure(
            base + ["--import-name", "us", "--import-index", "http://127.0.0.1:9/index.txt", "--import-region", "U S"]
                + key,
            mentioning: "--import-region")
        await expectEnserverFailure(base + good + key + ["--import-retry", "soon"], mentioning: "--import-retry")
        await expectEnserverFailure(
            base + good + key + ["--import-public-key-thru", "310/v1"], mentioning: "KEY-ID/KEY-VERSION=DATE")
        await expectEnserverFailure(
            base + good + key + ["--import-public-key-thru", "310/v1=tomorrow"], mentioning: "--import-public-key-thru")
        await expectEnserverFailure(
            base + good + key + ["--import-public-key-thru", "310/v2=2026-06-01T00:00:00Z"],
            mentioning: "no --import-public-key 310/v2")
        await expectEnserverFailure(
            base + good + key + [
                "--import-public-key-thru", "310/v1=2026-06-01T00:00:00Z", "--import-public-key-thru",
                "310/v1=2026-07-01T00:00:00Z",
            ], mentioning: "given twice")
        // The date reaches the key's configuration (what the importer then does with it: ExportImporterTests).
        let parsed = try ImportOptions.parse(
            good + key + ["--import-public-key-thru", "310/v1=2026-06-01T00:00:00Z"]
        ).configuration(required: true)
        let thru = try #require(parsed?.trustedKeys.first?.thru)
        #expect(thru == Date(timeIntervalSince1970: 1_780_272_000))
        await expectEnserverFailure(
            base + ["--import-public-key-thru", "310/v1=2026-06-01T00:00:00Z"], mentioning: "--import-name")
    }
}
