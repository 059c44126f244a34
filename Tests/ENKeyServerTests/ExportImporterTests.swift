import ENCore
import ENCrypto
import ENExportFormat
import ENKeyServerSQLite
import ENTestSupport
import Foundation
import Testing

@testable import ENKeyServer

/// `ENExportImporter` on every storage, with server A's files fetched in process (the HTTP path is
/// `ImportCommandTests`'): what is imported, once; what is refused, whole, and retried; whose revisions count.
@Suite("Export import: another server's files, as Google's export-importer")
struct ExportImporterTests {
    /// Server A, whose files are imported, and a fetch of its index and files that can tamper with the files.
    struct Source {
        let a: TestServer
        let tampers = Locked(false)
        static let root = URL(string: "https://a.example")!

        init(clock: TestClock) throws { a = try TestServer(clock: clock) }

        var fetch: ENExportImporter.Fetch {
            { [a, tampers] url, maximumBytes throws(ENError) in
                let path = String(url.path.dropFirst())
                let data: Data
                if path == "index.txt" {
                    data = Data(try await a.server.indexText().utf8)
                } else if let file = try await a.server.file(named: path) {
                    data = file.data
                } else {
                    throw ENError(.dataInaccessible, "\(url.absoluteString): 404")
                }
                guard data.count <= maximumBytes else { throw ENError(.badFormat, "over \(maximumBytes) bytes") }
                // A tampered file: one byte of export.bin's keys changed, so that no signature verifies.
                if tampers.withLock({ $0 }), path != "index.txt" {
                    var archive = try ENExportArchive(data: data)
                    var binary = archive.exportBinary
                    binary[binary.count - 3] ^= 0x01
                    archive = ENExportArchive(exportBinary: binary, signatureFile: archive.signatureFile)
                    return try archive.zipData()
                }
                return data
            }
        }

        func configuration(name: String = "a", traveler: Bool = false) throws -> ENExportImportConfiguration {
            ENExportImportConfiguration(
                name: name, indexURL: Self.root.appendingPathComponent("index.txt"), exportRoot: Self.root,
                region: "A", traveler: traveler,
                trustedKeys: [
                    ENExportImportPublicKey(
                        ENExportVerificationKey(keyID: "310", keyVersion: "v1", publicKey: try a.signingKey.publicKey))
                ])
        }
    }

    @Test(
        "a file is imported once; a file that fails verification is refused whole and retried later",
        arguments: StorageKind.available)
    func importsOnceAndRetriesARefusedFile(kind: StorageKind) async throws {
        let clock = TestClock()
        let source = try Source(clock: clock)
        try await source.a.server.postDiagnosisKeys((1...3).map { makeKey($0, start: today.adding(-144)) })
        let first = try await source.a.server.publish()
        #expect(first.count == 1)
        try await kind.with(clock: clock) { stores in
            let importer = ENExportImporter(
                storage: stores[0], configuration: try source.configuration(traveler: true), clock: { clock.now },
                fetch: source.fetch)
            source.tampers.withLock { $0 = true }
            let refused = try await importer.run()
            #expect(refused.newFiles == 1 && refused.importedFiles.isEmpty && refused.failedFiles.count == 1)
            #expect(refused.failedFiles.first?.error.reason.contains("no signature verifies") == true)
            #expect(try await stores[0].storedKeys(withKeyData: (1...3).map(TestKeys.keyData)).isEmpty)
            #expect(try await stores[0].importFiles("a").map(\.retries) == [1])

            // Fixed, but not yet due: a failed file waits the retry interval times its failed tries.
            source.tampers.withLock { $0 = false }
            #expect(try await importer.run().importedFiles.isEmpty)
            clock.advance(by: 6 * 3600)
            let imported = try await importer.run()
            #expect(imported.importedFiles == [Source.root.absoluteString + "/" + first[0].name])
            let stored = try await stores[0].storedKeys(withKeyData: (1...3).map(TestKeys.keyData))
            #expect(stored.count == 3)
            #expect(
                stored.allSatisfy { $0.origin == ENKeyServerKeyOrigin(regions: ["A"], traveler: true, importName: "a") }
            )
            #expect(imported.insertedKeys == (try ENExportArchive(data: first[0].data).keyExport().keys.count))

            // Nothing twice; then only A's new file.
            let again = try await importer.run()
            #expect(again.newFiles == 0 && again.importedFiles.isEmpty && again.insertedKeys == 0)
            try await source.a.server.postDiagnosisKeys([makeKey(4, start: today.adding(-144))])
            clock.advance(by: 3600)
            let second = try await source.a.server.publish()
            let next = try await importer.run()
            #expect(next.newFiles == 1 && next.importedFiles == [Source.root.absoluteString + "/" + second[0].name])
            #expect(try await stores[0].importFiles("a").map(\.status) == [.complete, .complete])
        }
    }

    @Test(
        "a public key is trusted until its thru (Google's AllowedKeys); after it, a file signed by it alone is refused")
    func publicKeyThru() async throws {
        let clock = TestClock()
        let source = try Source(clock: clock)
        try await source.a.server.postDiagnosisKeys((1...3).map { makeKey($0, start: today.adding(-144)) })
        #expect(try await source.a.server.publish().count == 1)
        let store = try ENKeyServerSQLiteStore(clock: { clock.now })
        let aKey = try source.configuration().trustedKeys[0].verificationKey
        let newKey = ENExportVerificationKey(keyID: "310", keyVersion: "v2", publicKey: try P256SigningKey().publicKey)
        func run(_ name: String, _ keys: [ENExportImportPublicKey]) async throws -> ENExportImportResult {
            var configuration = try source.configuration(name: name)
            configuration.trustedKeys = keys
            return try await ENExportImporter(
                storage: store, configuration: configuration, clock: { clock.now }, fetch: source.fetch
            ).run()
        }
        // Trusted for another hour: imported.
        let trusted = try await run("a", [ENExportImportPublicKey(aKey, thru: clock.now.addingTimeInterval(3600))])
        #expect(trusted.importedFiles.count == 1 && trusted.failedFiles.isEmpty)
        #expect(try await store.storedKeys(withKeyData: (1...3).map(TestKeys.keyData)).count == 3)
        // Its thru now (exclusive), beside the rotation's new key: no signature verifies.
        let rotated = try await run(
            "b", [ENExportImportPublicKey(aKey, thru: clock.now), ENExportImportPublicKey(newKey)])
        #expect(rotated.importedFiles.isEmpty && rotated.failedFiles.count == 1)
        #expect(rotated.failedFiles.first?.error.reason.contains("no signature verifies") == true)
        // Every key's thru passed: the file is refused, naming why, and stays open.
        let expired = try await run("c", [ENExportImportPublicKey(aKey, thru: clock.now.addingTimeInterval(-1))])
        #expect(expired.failedFiles.first?.error.reason.contains("no public key of the import is trusted") == true)
        #expect(try await store.importFiles("c").map(\.status) == [.open])
        #expect(ENExportImportPublicKey(aKey).isTrusted(at: .distantFuture))
    }

    @Test(
        "killed after storing a file's keys but before recording it: the next run stores nothing twice",
        arguments: StorageKind.available)
    func crashBetweenKeysAndRecord(kind: StorageKind) async throws {
        let clock = TestClock()
        let source = try Source(clock: clock)
        try await source.a.server.postDiagnosisKeys((1...3).map { makeKey($0, start: today.adding(-144)) })
        let files = try await source.a.server.publish()
        try await kind.with(clock: clock) { stores in
            let importer = ENExportImporter(
                storage: stores[0], configuration: try source.configuration(), clock: { clock.now },
                fetch: source.fetch)
            let url = Source.root.absoluteString + "/" + files[0].name
            _ = try await stores[0].scheduleImportFiles("a", files: [url], at: clock.now)
            let stored = try await importer.importFile(url)
            // The run that follows the crash imports the file again: every key is already there.
            let rerun = try await importer.run()
            #expect(rerun.importedFiles == [url] && rerun.insertedKeys == 0)
            #expect(stored.inserted == (try ENExportArchive(data: files[0].data).keyExport().keys.count))
        }
    }

    @Test("a revised key revises only a key the same import brought", arguments: StorageKind.available)
    func revisionsOnlyOfTheSameImport(kind: StorageKind) async throws {
        let clock = TestClock()
        let source = try Source(clock: clock)
        let local = makeKey(1, start: today.adding(-144), reportType: .confirmedClinicalDiagnosis)
        let imported = makeKey(2, start: today.adding(-144), reportType: .confirmedClinicalDiagnosis)
        try await source.a.server.postDiagnosisKeys([local, imported])
        _ = try await source.a.server.publish()
        try await kind.with(clock: clock) { stores in
            // This server has key 1 from a publish of its own.
            _ = try await stores[0].insertAndRevise(
                inserting: [
                    ENKeyServerInsertion(
                        key: local, exportableAt: clock.now, origin: ENKeyServerKeyOrigin(regions: ["B"]))
                ], revising: [])
            let importer = ENExportImporter(
                storage: stores[0], configuration: try source.configuration(), clock: { clock.now },
                fetch: source.fetch)
            // Key 1 is stored already and left as it is (`SkipRevisions`); key 2 is imported.
            #expect(try await importer.run().insertedKeys == 1)

            // A revises both to confirmed: the import revises key 2, which it brought, and not key 1.
            clock.advance(by: 3600)
            var revised = [local, imported]
            for index in revised.indices { revised[index].diagnosisReportType = .confirmedTest }
            #expect(try await source.a.server.postDiagnosisKeys(revised).revised == 2)
            clock.advance(by: 3600)
            let files = try await source.a.server.publish()
            #expect(try files.flatMap { try contents(of: $0).revised }.count == 2)
            let result = try await importer.run()
            #expect(result.revisedKeys == 1 && result.droppedKeys == 1 && result.insertedKeys == 0)
            let stored = try await stores[0].storedKeys(withKeyData: [local.keyData, imported.keyData])
            #expect(stored[0].revision == nil && stored[0].origin.importName == nil)
            #expect(stored[1].revision?.reportType == .confirmedTest && stored[1].origin.importName == "a")
        }
    }

    @Test("keys are transformed as Google's FromExportKey and export-importer transform them")
    func transformRules() throws {
        let configuration = ENExportImportConfiguration(
            name: "a", indexURL: URL(string: "https://a.example/index.txt")!,
            exportRoot: URL(string: "https://a.example")!, region: "A", trustedKeys: [])
        let now = referenceDate
        let old = today.adding(-144)
        func transform(_ key: ENTemporaryExposureKey, revised: Bool = false) -> ENTemporaryExposureKey? {
            ImportedKeys.transform(key, revised: revised, configuration, now)?.0
        }
        // No report type: confirmed (BACKFILL_REPORT_TYPE), its transmission risk 2, days since onset 10.
        let plain = try #require(transform(TestKeys.key(1, start: old)))
        #expect(plain.diagnosisReportType == .confirmedTest)
        #expect(plain.transmissionRiskLevel == 2)
        #expect(plain.daysSinceOnsetOfSymptoms == 10)
        // A primary key may not be negative; a revised key may be only confirmed or negative.
        #expect(transform(TestKeys.key(1, start: old, reportType: .revoked)) == nil)
        #expect(transform(TestKeys.key(1, start: old, reportType: .revoked), revised: true) != nil)
        #expect(transform(TestKeys.key(1, start: old, reportType: .selfReported), revised: true) == nil)
        #expect(transform(TestKeys.key(1, start: old, reportType: .confirmedClinicalDiagnosis), revised: true) == nil)
        #expect(transform(TestKeys.key(1, start: old, reportType: .recursive)) == nil)
        // Out of range: days since onset beyond 14, a transmission risk over 8.
        #expect(transform(TestKeys.key(1, start: old, daysSinceOnset: 15)) == nil)
        #expect(transform(TestKeys.key(1, start: old, daysSinceOnset: -14))?.daysSinceOnsetOfSymptoms == -14)
        #expect(transform(TestKeys.key(1, start: old, transmissionRiskLevel: 9)) == nil)
        // Exportable from the import's hour, or for a key still valid from the hour after its end.
        let hour = (now.timeIntervalSince1970 / 3600).rounded(.down) * 3600
        #expect(
            ImportedKeys.transform(TestKeys.key(1, start: old), revised: false, configuration, now)?.1
                == Date(timeIntervalSince1970: hour))
        let current = ENIntervalNumber(date: now).rollingStart
        let end = Double(UInt64(current) + 144) * 600
        #expect(
            ImportedKeys.transform(TestKeys.key(1, start: current), revised: false, configuration, now)?.1
                == Date(timeIntervalSince1970: end + 3600))
    }

    @Test("an index naming a file outside the export root is refused, nothing recorded")
    func indexOutsideTheRoot() async throws {
        let configuration = ENExportImportConfiguration(
            name: "a", indexURL: URL(string: "https://a.example/index.txt")!,
            exportRoot: URL(string: "https://a.example/exports/")!, region: "A", trustedKeys: [])
        #expect(
            try configuration.fileURLs(index: Data(" r/1.zip \n\nr/2.zip\n".utf8)) == [
                "https://a.example/exports/r/1.zip", "https://a.example/exports/r/2.zip",
            ])
        for index in ["../secret.zip", "/etc/passwd", "r/../../x.zip", "r/a b.zip", "r//x.zip"] {
            let error = #expect(throws: ENError.self) {
                try configuration.fileURLs(index: Data(("r/1.zip\n" + index).utf8))
            }
            #expect(error?.code == .badFormat)
            #expect(error?.context.index == 1)
        }
    }
}
