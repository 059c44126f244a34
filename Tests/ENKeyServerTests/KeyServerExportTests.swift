import ENCore
import ENCrypto
import ENExportFormat
import ENKeyServer
import ENKeyServerSQLite
import ENTestSupport
import Foundation
import Testing

/// The start of the reference moment's UTC day (2026-05-09 00:00:00), in UTC seconds.
let dayStart: UInt64 = 1_778_284_800

/// The date `seconds` after `dayStart`.
func dayTime(_ seconds: TimeInterval) -> Date {
    Date(timeIntervalSince1970: TimeInterval(dayStart) + seconds)
}

@Suite("Key server: export batches, files as Google writes them, index.txt, leases")
struct KeyServerExportTests {
    /// A server exporting 4-hour batches, without padding unless `padding` is given.
    static func periodic(
        clock: TestClock, store: ENKeyServerSQLiteStore? = nil, padding: ENExportPadding? = nil,
        directory: URL? = nil, root: String = "", maximumKeysPerFile: Int = 500_000
    ) throws -> TestServer {
        try TestServer(clock: clock, maximumKeysPerFile: maximumKeysPerFile, store: store) {
            $0.exportPeriod = 4 * 3600
            $0.padding = padding
            $0.exportDirectory = directory
            $0.exportRoot = root
        }
    }

    @Test func batchesAreAlignedToThePeriodAndCutTwoHoursAfterTheirEnd() async throws {
        let clock = TestClock(dayTime(1.5 * 3600))
        let test = try Self.periodic(clock: clock)
        let a = makeKey(1, start: today.adding(-144))
        let b = makeKey(2, start: today.adding(-144))
        let c = makeKey(3, start: today.adding(-144))
        try await test.server.postDiagnosisKeys([a])
        clock.advance(by: 2.5 * 3600)  // 04:00:00, the first batch's end: the key belongs to the next batch
        try await test.server.postDiagnosisKeys([b])
        // 05:30: the batch 00:00-04:00 ended less than 2 hours ago; this first run makes only the last complete
        // batch, 20:00-00:00 of the day before, empty: no file.
        clock.advance(by: 1.5 * 3600)
        #expect(try await test.server.publish().isEmpty)
        clock.advance(by: 1800)  // 06:00: now 00:00-04:00 is due
        let first = try await test.server.publish()
        #expect(first.map(\.name) == ["\(dayStart)-\(dayStart + 14_400)-00001.zip"])
        #expect(try contents(of: first[0]).keys == [a])
        #expect(try await test.server.publish().isEmpty)

        // 14:59: the batches 04:00-08:00 (b) and 08:00-12:00 (empty, no file) are due, 12:00-16:00 is not.
        try await test.server.postDiagnosisKeys([c])  // arrived 06:00
        clock.advance(by: 8 * 3600 + 59 * 60)
        let later = try await test.server.publish()
        #expect(later.map(\.name) == ["\(dayStart + 14_400)-\(dayStart + 28_800)-00001.zip"])
        #expect(try sorted(contents(of: later[0]).keys) == sorted([b, c]))
        let counts = try await test.store.exportBatches().map(\.keys.count)
        #expect(counts == [0, 1, 2, 0])
        clock.advance(by: 3600)
        #expect(try await test.server.publish().isEmpty)
        #expect(try await test.store.exportBatches().count == 4)
        #expect(try await test.server.indexText() == (first + later).map(\.name).joined(separator: "\n"))
    }

    @Test func theFirstRunOfAPeriodicExporterSkipsOlderKeys() async throws {
        // Google's first run makes only the last complete batch; a key older than it is never exported.
        let clock = TestClock(dayTime(-3600))
        let test = try Self.periodic(clock: clock)
        try await test.server.postDiagnosisKeys([makeKey(1, start: today.adding(-144))])
        clock.advance(by: 7 * 3600)  // 06:00
        #expect(try await test.server.publish().isEmpty)
        #expect(try await test.store.exportBatches().map(\.keys.count) == [0])
    }

    /// Bad settings: a value and the field it goes to (negative values select a bad setting of the field).
    static let badSettings: [(Double, String)] = [
        (7 * 3600, "exportPeriod"), (0, "exportPeriod"), (1.5, "exportPeriod"), (48 * 3600, "exportPeriod"),
        (-1, "minimumWindowAge"), (-2, "exportLeaseDuration"), (-3, "exportRoot"), (-4, "exportRoot"),
    ]

    @Test(arguments: badSettings)
    func badExportSettingsAreRefused(value: Double, field: String) async throws {
        let test = try TestServer {
            switch field {
            case "exportPeriod": $0.exportPeriod = value
            case "minimumWindowAge": $0.minimumWindowAge = -.infinity
            case "exportLeaseDuration": $0.exportLeaseDuration = 0
            default: $0.exportRoot = value == -3 ? "../outside" : "/absolute"
            }
        }
        try await test.server.postDiagnosisKeys([makeKey(1, start: today)])
        let error = await #expect(throws: ENError.self) { try await test.server.publish() }
        #expect(error?.code == .badParameter)
        #expect(error?.context.field == field)
        #expect(try await test.store.exportBatches().isEmpty)
    }

    @Test func everyPeriodDividingADayIsAccepted() throws {
        for period: TimeInterval in [1, 60, 900, 3600, 14_400, 86_400] {
            var configuration = ENKeyServerConfiguration(region: "310", signers: [])
            configuration.exportPeriod = period
            try configuration.validateExportSettings()
        }
    }

    @Test func keysAreSortedNewThenRevisedAndSplitAsGoogleSplitsThem() async throws {
        let test = try TestServer(maximumKeysPerFile: 4)
        // Likely diagnoses, later found negative: a transition Google allows.
        let originals = (1...3).map {
            makeKey($0 * 50, start: today.adding(-144), reportType: .confirmedClinicalDiagnosis)
        }
        try await test.server.postDiagnosisKeys(originals)
        _ = try await test.server.publish()
        test.clock.advance(by: 60)
        let revisions = originals.map { key in
            var revision = key
            revision.diagnosisReportType = .revoked
            return revision
        }
        try await test.server.postDiagnosisKeys(revisions)
        let new = (1...5).map { makeKey(1000 - $0, start: today) }
        try await test.server.postDiagnosisKeys(new)
        let files = try await test.server.publish()
        // 5 new then 3 revised, 4 per file: [4 new], [1 new, 3 revised], each sorted by key bytes.
        let parts = try files.map(contents(of:))
        #expect(parts.map(\.keys.count) == [4, 1])
        #expect(parts.map(\.revised.count) == [0, 3])
        for part in parts {
            #expect(part.keys == sortedByBytes(part.keys))
            #expect(part.revised == sortedByBytes(part.revised))
        }
        #expect(parts[0].keys + parts[1].keys == sortedByBytes(new))
        #expect(Set(parts[1].revised) == Set(revisions))
    }

    @Test func aSmallBatchIsPaddedAsGooglePadsIt() async throws {
        let test = try TestServer { $0.padding = .googleServer }
        let keys = [
            makeKey(1, start: today.adding(-144)), makeKey(2, start: today.adding(-288)),
            makeKey(3, start: today.adding(-432)),
        ]
        try await test.server.postDiagnosisKeys(keys)
        let files = try await test.server.publish()
        #expect(files.count == 1)
        let published = try contents(of: files[0]).keys
        // n real keys, whole rounds until at least 1000 + r (r in 0...100): 3 * ceil(target / 3) keys.
        #expect((1002...1101).contains(published.count))
        #expect(published.count % 3 == 0)
        #expect(published == sortedByBytes(published))
        #expect(Set(keys).isSubset(of: Set(published)))
        let rounds = published.count / 3
        for key in keys {
            let copies = published.filter {
                $0.rollingStartNumber == key.rollingStartNumber && $0.rollingPeriod == key.rollingPeriod
                    && $0.transmissionRiskLevel == key.transmissionRiskLevel
                    && $0.diagnosisReportType == key.diagnosisReportType
                    && $0.daysSinceOnsetOfSymptoms == key.daysSinceOnsetOfSymptoms
            }
            #expect(copies.count == rounds)
        }
        // The padding is stored with the batch: the batch lists only the posted keys, the file stays the same.
        // Stored as the publish rules sort a request's keys: by start interval.
        #expect(try await test.store.exportBatches().map(\.keys) == [Array(keys.reversed())])
        #expect(try await test.store.diagnosisKeysAwaitingExport().isEmpty)
        #expect(try await test.server.file(named: files[0].name) == files[0])
        // A batch with 1000 keys or more is not padded.
        test.clock.advance(by: 60)
        let many = (10..<1010).map { makeKey($0, start: today.adding(-144)) }
        try await test.server.postDiagnosisKeys(many)
        let next = try await test.server.publish()
        #expect(try next.flatMap { try contents(of: $0).keys }.count == 1000)
    }

    @Test(.enabled(if: ExternalTool.protoc.isAvailable))
    func keyFieldsAreWrittenAsGoogleWritesThem() async throws {
        let test = try TestServer()
        let whole = ENTemporaryExposureKey(
            keyData: Data(repeating: 0x11, count: 16), rollingStartNumber: today.adding(-144), rollingPeriod: 144,
            transmissionRiskLevel: 0)
        let partial = ENTemporaryExposureKey(
            keyData: Data(repeating: 0x22, count: 16), rollingStartNumber: today, rollingPeriod: 30,
            transmissionRiskLevel: 3, diagnosisReportType: .confirmedClinicalDiagnosis, daysSinceOnsetOfSymptoms: -2)
        try await test.server.postDiagnosisKeys([whole, partial])
        let file = try #require(try await test.server.publish().first)
        let binary = try ENExportArchive(data: file.data).exportBinary
        let run = try ExternalTool.protoc.run(["--decode_raw"], stdin: binary.dropFirst(16))
        let text = String(decoding: run.stdout, as: UTF8.self)
        #expect(run.status == 0)
        // batch 1 of 1, two keys: TR always (0 included), period left out when 144, report type and DSOS.
        #expect(text.contains("4: 1\n5: 1\n"))
        let keys = text.components(separatedBy: "7 {").dropFirst().map { $0.components(separatedBy: "}")[0] }
        #expect(keys.count == 2)
        #expect(keys[0].contains("2: 0\n") && keys[0].contains("3: \(today.adding(-144))\n"))
        #expect(!keys[0].contains("\n  4:") && !keys[0].contains("\n  5:"))
        // Days since onset from Google's default onset, 4 days ago: 3, zigzag 6.
        #expect(keys[0].contains("6: 6\n"))
        #expect(keys[1].contains("2: 3\n") && keys[1].contains("4: 30\n") && keys[1].contains("5: 2\n"))
        #expect(keys[1].contains("6: 3\n"))  // sint32 -2, zigzag 3
    }

    @Test func everySignerSignsEveryFileWithTheECDSAOID() async throws {
        let keys = try (0..<2).map { _ in try P256SigningKey() }
        let test = try TestServer(signers: [
            ENExportSigner(signingKey: keys[0], keyID: "310", keyVersion: "v1"),
            ENExportSigner(signingKey: keys[1], keyID: "310", keyVersion: "v2"),
        ])
        try await test.server.postDiagnosisKeys([makeKey(1, start: today)])
        let archive = try ENExportArchive(data: try #require(try await test.server.publish().first).data)
        let signatures = try archive.signatures()
        #expect(signatures.map(\.signatureInfo?.verificationKeyVersion) == ["v1", "v2"])
        #expect(signatures.allSatisfy { $0.signatureInfo?.signatureAlgorithm == "1.2.840.10045.4.3.2" })
        #expect(signatures.allSatisfy { $0.batchNumber == 1 && $0.batchSize == 1 })
        for (key, signature) in zip(keys, signatures) {
            #expect(try key.publicKey.isValidSignature(signature.signature, for: archive.exportBinary))
        }
        #expect(!(try keys[0].publicKey.isValidSignature(signatures[1].signature, for: archive.exportBinary)))
    }

    @Test(.enabled(if: ExternalTool.openssl.isAvailable))
    func filesAndIndexAreWrittenToTheExportDirectory() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let clock = TestClock(dayTime(3600))
        let test = try Self.periodic(clock: clock, directory: directory.url, root: "exposures/310")
        let folder = directory.url.appendingPathComponent("exposures/310")
        try await test.server.postDiagnosisKeys([makeKey(1, start: today.adding(-144))])
        clock.advance(by: 4 * 3600)  // 05:00: nothing due, but index.txt is written (empty)
        #expect(try await test.server.publish().isEmpty)
        #expect(try String(contentsOf: folder.appendingPathComponent("index.txt"), encoding: .utf8) == "")
        clock.advance(by: 3600)
        let first = try await test.server.publish()
        clock.advance(by: 4 * 3600)
        try await test.server.postDiagnosisKeys([makeKey(2, start: today)])
        clock.advance(by: 4 * 3600)
        let second = try await test.server.publish()
        let files = first + second
        #expect(files.count == 2)
        let index = try String(contentsOf: folder.appendingPathComponent("index.txt"), encoding: .utf8)
        #expect(index == files.map { "exposures/310/\($0.name)" }.sorted().joined(separator: "\n"))
        #expect(try await test.server.indexText() == index)
        for file in files {
            let url = folder.appendingPathComponent(file.name)
            #expect(try Data(contentsOf: url) == file.data)
            // The zip on disk verifies with OpenSSL against the server's public key.
            let archive = try ENExportArchive(contentsOf: url)
            let bin = directory.url.appendingPathComponent("export.bin")
            let sig = directory.url.appendingPathComponent("signature.der")
            let pem = directory.url.appendingPathComponent("public.pem")
            try archive.exportBinary.write(to: bin)
            try archive.signatures()[0].signature.write(to: sig)
            try Data(test.signingKey.publicKey.pemRepresentation.utf8).write(to: pem)
            let run = try ExternalTool.openssl.run([
                "dgst", "-sha256", "-verify", pem.path, "-signature", sig.path, bin.path,
            ])
            #expect(run.status == 0)
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty)

        // A listed file missing on disk is written again from the store before index.txt is.
        try FileManager.default.removeItem(at: folder.appendingPathComponent(files[0].name))
        _ = try await test.server.publish()
        #expect(try Data(contentsOf: folder.appendingPathComponent(files[0].name)) == files[0].data)

        // Retention: 14 days after the first batch ended, its file leaves index.txt, the store and the disk.
        clock.set(Date(timeIntervalSince1970: TimeInterval(files[0].endTimestamp) + 14 * 86_400))
        #expect(try await test.server.deleteExpired() == 1)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent(files[0].name).path))
        #expect(
            try String(contentsOf: folder.appendingPathComponent("index.txt"), encoding: .utf8)
                == "exposures/310/\(files[1].name)")
        #expect(try await test.server.file(named: files[0].name) == nil)
    }

    @Test func twoServersOnOneStoreFileNeverExportABatchTwice() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let clock = TestClock(dayTime(-2 * 86_400))
        let path = directory.path("keys.sqlite")
        let signingKey = try P256SigningKey()
        let servers = try (0..<2).map { _ in
            try TestServer(
                clock: clock, store: try ENKeyServerSQLiteStore(path: path, clock: { clock.now }),
                signingKey: signingKey
            ) { $0.exportPeriod = 3600 }
        }
        // One batch, so that the next run makes every hourly batch since; then keys in 40 of them.
        clock.advance(by: 3 * 3600)
        _ = try await servers[0].server.publish()
        var posted: [ENTemporaryExposureKey] = []
        for hour in 0..<40 {
            let key = makeKey(hour + 1, start: ENIntervalNumber(date: clock.now).rollingStart.adding(-144))
            try await servers[hour % 2].server.postDiagnosisKeys([key])
            posted.append(key)
            clock.advance(by: 3600)
        }
        clock.advance(by: 3 * 3600)
        async let first = servers[0].server.publish()
        async let second = servers[1].server.publish()
        let (a, b) = try await (first, second)
        let files = a + b
        #expect(Set(files.map(\.name)).count == files.count)
        #expect(Set(files.map(\.index)).count == files.count)
        let exported = try files.flatMap { try contents(of: $0).keys }
        #expect(sorted(exported) == sorted(posted))
        let batches = try await servers[0].store.exportBatches()
        #expect(Set(batches.map(\.index)).count == batches.count)
        #expect(batches.flatMap(\.keys).count == posted.count)
    }

    @Test func aCrashedExportersBatchIsRedoneWhenItsLeaseExpires() async throws {
        let clock = TestClock(dayTime(3600))
        let test = try Self.periodic(clock: clock)
        let key = makeKey(1, start: today.adding(-144))
        try await test.server.postDiagnosisKeys([key])
        clock.advance(by: 5 * 3600)  // 06:00: batch 00:00-04:00 is due
        // Another exporter claims it and dies before completing.
        let crashed = try #require(
            try await test.store.claimExportBatch(test.server.configuration, owner: "crashed", at: clock.now))
        let read = try await test.store.exportBatchContents(crashed)
        #expect(read.keys == [key])
        #expect(try await test.server.publish().isEmpty)
        clock.advance(by: test.server.configuration.exportLeaseDuration)
        let files = try await test.server.publish()
        #expect(files.map(\.name) == ["\(dayStart)-\(dayStart + 14_400)-00001.zip"])
        #expect(try contents(of: files[0]).keys == [key])
        // The crashed exporter, back, cannot complete the batch any more.
        let error = await #expect(throws: ENError.self) {
            try await test.store.completeExportBatch(
                crashed, files: [Data([1])], paddingKeys: [], contents: read, at: clock.now)
        }
        #expect(error?.code == .invalidated)
        #expect(try await test.server.files(startingAt: 0) == files)
    }

    @Test func aFailedExportReleasesItsBatchForTheNextRun() async throws {
        let clock = TestClock(dayTime(3600))
        let store = try ENKeyServerSQLiteStore(clock: { clock.now })
        let broken = try Self.periodic(clock: clock, store: store, maximumKeysPerFile: 0)
        let key = makeKey(1, start: today.adding(-144))
        try await broken.server.postDiagnosisKeys([key])
        clock.advance(by: 5 * 3600)
        let error = await #expect(throws: ENError.self) { try await broken.server.publish() }
        #expect(error?.code == .badParameter)
        #expect(try await store.exportBatches().isEmpty)
        let fixed = try Self.periodic(clock: clock, store: store)
        let files = try await fixed.server.publish()
        #expect(try files.flatMap { try contents(of: $0).keys } == [key])
    }
}

/// Keys sorted by their bytes, as Go's `bytes.Compare` orders them.
func sortedByBytes(_ keys: [ENTemporaryExposureKey]) -> [ENTemporaryExposureKey] {
    keys.sorted { $0.keyData.lexicographicallyPrecedes($1.keyData) }
}
