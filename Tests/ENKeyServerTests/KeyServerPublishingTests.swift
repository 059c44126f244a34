import ENCore
import ENCrypto
import ENExportFormat
import ENKeyServer
import ENKeyServerSQLite
import ENTestSupport
import Foundation
import Testing

@Suite("Key server: publishing, revisions, serving, retention")
struct KeyServerPublishingTests {
    @Test func sharingTheSameKeysTwicePublishesThemOnce() async throws {
        let test = try TestServer()
        let keys = (1...5).map { makeKey($0, start: today.adding(-144 * $0)) }
        #expect(try await test.server.postDiagnosisKeys(keys) == ENKeyServerPostResult(accepted: 5))
        let first = try await test.server.publish()
        test.clock.advance(by: 3_600)
        #expect(try await test.server.postDiagnosisKeys(keys) == ENKeyServerPostResult(duplicates: 5))
        #expect(try await test.server.publish().isEmpty)
        #expect(try await test.server.files(startingAt: 0) == first)
        let published = try first.flatMap { try contents(of: $0).keys }
        #expect(sorted(published) == sorted(keys))
    }

    @Test func aRevisionIsPublishedOnceAsARevisedKeyWithTheOriginalRiskLevel() async throws {
        let test = try TestServer()
        let original = makeKey(7, start: today.adding(-144), reportType: .confirmedClinicalDiagnosis)
        try await test.server.postDiagnosisKeys([original])
        let first = try await test.server.publish()

        // The same key, re-posted as a confirmed test with a new onset and another risk level.
        test.clock.advance(by: 3_600)
        var revision = original
        revision.diagnosisReportType = .confirmedTest
        revision.daysSinceOnsetOfSymptoms = 2
        revision.transmissionRiskLevel = 1
        #expect(try await test.server.postDiagnosisKeys([revision]) == ENKeyServerPostResult(revised: 1))
        #expect(try await test.server.postDiagnosisKeys([revision]) == ENKeyServerPostResult(duplicates: 1))
        var expected = revision
        expected.transmissionRiskLevel = original.transmissionRiskLevel
        #expect(try await test.store.revisedKeysAwaitingExport() == [expected])
        #expect(try await test.store.diagnosisKeysAwaitingExport().isEmpty)

        let second = try await test.server.publish()
        #expect(second.count == 1)
        let (keys, revised) = try contents(of: second[0])
        #expect(keys.isEmpty)
        #expect(revised == [expected])
        #expect(revised.first?.transmissionRiskLevel == original.transmissionRiskLevel)
        #expect(revised.first?.diagnosisReportType == .confirmedTest)
        // The original file is unchanged, and the revision is not published again.
        #expect(try contents(of: first[0]).keys == [original])
        #expect(try await test.server.file(named: first[0].name) == first[0])
        #expect(try await test.server.postDiagnosisKeys([revision]) == ENKeyServerPostResult(duplicates: 1))
        #expect(try await test.server.publish().isEmpty)
        #expect(try await test.store.exportBatches(startingAt: 1).map(\.revisedKeys) == [[expected]])

        // A device reads the files newest first, each file's revised keys before its keys, and keeps the first
        // key of each key data (as ExposureNotificationKit's detector streams them to the matcher): the
        // revision wins.
        var seen: [Data: ENTemporaryExposureKey] = [:]
        for file in try await test.server.files(startingAt: 0).reversed() {
            let (keys, revised) = try contents(of: file)
            for key in revised + keys where seen[key.keyData] == nil { seen[key.keyData] = key }
        }
        #expect(seen[original.keyData]?.diagnosisReportType == .confirmedTest)
        #expect(seen[original.keyData]?.daysSinceOnsetOfSymptoms == 2)
    }

    @Test func aKeyRevisedBeforeItsFirstExportIsExportedWithItsRevision() async throws {
        // Google's exporter selects revised keys by `revised_at` alone (`internal/publish/database/exposure.go`,
        // `IterateExposures`): the batch that carries a key carries its revision too.
        let test = try TestServer()
        let original = makeKey(8, start: today.adding(-144), reportType: .selfReported)
        var revision = original
        revision.diagnosisReportType = .confirmedTest
        revision.daysSinceOnsetOfSymptoms = 3
        #expect(try await test.server.postDiagnosisKeys([original]) == ENKeyServerPostResult(accepted: 1))
        test.clock.advance(by: 60)
        #expect(try await test.server.postDiagnosisKeys([revision]) == ENKeyServerPostResult(revised: 1))
        #expect(try await test.store.revisedKeysAwaitingExport() == [revision])
        let files = try await test.server.publish()
        #expect(files.count == 1)
        let (keys, revised) = try contents(of: files[0])
        #expect(keys == [original])
        #expect(revised == [revision])
        #expect(try await test.store.revisedKeysAwaitingExport().isEmpty)
        #expect(try await test.server.publish().isEmpty)
    }

    @Test func filesVerifyAgainstTheSignersPublicKeyAndNotAnother() async throws {
        let test = try TestServer()
        try await test.server.postDiagnosisKeys((1...3).map { makeKey($0, start: today) })
        let file = try #require(try await test.server.publish().first)
        let archive = try ENExportArchive(data: file.data)
        #expect(try test.verifier.verify(archive).isVerified)
        let export = try archive.keyExport()
        #expect(export.region == "310")
        #expect(export.batchNumber == 1 && export.batchSize == 1)
        #expect(export.signatureInfos.map(\.verificationKeyID) == ["310"])

        let stranger = try TestServer()
        #expect(!(try stranger.verifier.verify(archive).isVerified))
    }

    @Test("published files verify with openssl", .enabled(if: ExternalTool.openssl.isAvailable))
    func filesVerifyWithOpenSSL() async throws {
        let test = try TestServer()
        try await test.server.postDiagnosisKeys((1...3).map { makeKey($0, start: today) })
        let file = try #require(try await test.server.publish().first)
        let archive = try ENExportArchive(data: file.data)
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let bin = directory.url.appendingPathComponent("export.bin")
        let sig = directory.url.appendingPathComponent("export.sig.der")
        let pem = directory.url.appendingPathComponent("public.pem")
        try archive.exportBinary.write(to: bin)
        try #require(try archive.signatures().first).signature.write(to: sig)
        try Data(test.signingKey.publicKey.pemRepresentation.utf8).write(to: pem)
        let run = try ExternalTool.openssl.run([
            "dgst", "-sha256", "-verify", pem.path, "-signature", sig.path, bin.path,
        ])
        #expect(run.status == 0, "\(String(decoding: run.stdout + run.stderr, as: UTF8.self))")
        #expect(run.output.contains("Verified OK"))
        // Another key's public key does not verify it.
        try Data(P256SigningKey().publicKey.pemRepresentation.utf8).write(to: pem)
        let other = try ExternalTool.openssl.run([
            "dgst", "-sha256", "-verify", pem.path, "-signature", sig.path, bin.path,
        ])
        #expect(other.status != 0)
    }

    @Test func aBatchIsSplitAtTheFileLimitAndNamedAsGoogleNamesIt() async throws {
        let test = try TestServer(maximumKeysPerFile: 3)
        let keys = (1...7).map { makeKey($0, start: today) }
        test.clock.advance(by: -600)
        try await test.server.postDiagnosisKeys(Array(keys[0..<4]))
        test.clock.advance(by: 600)
        try await test.server.postDiagnosisKeys(Array(keys[4...]))
        let files = try await test.server.publish()
        let start = UInt64(referenceDate.timeIntervalSince1970) - 600
        let end = UInt64(referenceDate.timeIntervalSince1970)
        #expect(files.map(\.index) == [0, 1, 2])
        #expect(files.map(\.name) == (1...3).map { "\(start)-\(end)-0000\($0).zip" })
        #expect(Set(files.map(\.batchIndex)) == [0])
        var all: [ENTemporaryExposureKey] = []
        for (number, file) in files.enumerated() {
            let archive = try ENExportArchive(data: file.data)
            let export = try archive.keyExport()
            #expect(export.keys.count <= 3)
            #expect(export.startTimestamp == start)
            // Google bumps each file's end by its 1-based number in a split batch (exportfile.go:220-226).
            #expect(export.endTimestamp == end + UInt64(number + 1))
            #expect(try test.verifier.verify(archive).isVerified)
            all += export.keys
        }
        #expect(sorted(all) == sorted(keys))

        // The next batch starts at its earliest key's arrival (never before this one's end), and its files
        // continue the indexes.
        test.clock.advance(by: 7_200)
        try await test.server.postDiagnosisKeys([makeKey(20, start: today)])
        test.clock.advance(by: 60)
        let next = try await test.server.publish()
        #expect(next.map(\.index) == [3])
        #expect(next.map(\.name) == ["\(end + 7_200)-\(end + 7_260)-00001.zip"])
        #expect(try await test.server.files(startingAt: 2).map(\.index) == [2, 3])
        #expect(try await test.server.files(startingAt: 4).isEmpty)
    }

    @Test func publishesWithinOneSecondGetDistinctWindowsAndNames() async throws {
        let test = try TestServer()
        let now = UInt64(referenceDate.timeIntervalSince1970)
        var names: [String] = []
        for n in 1...3 {
            try await test.server.postDiagnosisKeys([makeKey(n, start: today)])
            let files = try await test.server.publish()
            #expect(files.map(\.index) == [n - 1])
            names += files.map(\.name)
        }
        #expect(names == (0..<3).map { "\(now + UInt64($0))-\(now + UInt64($0) + 1)-00001.zip" })
        // Once the clock passes the last end, the next window runs from its key's arrival up to the clock.
        test.clock.advance(by: 60)
        try await test.server.postDiagnosisKeys([makeKey(4, start: today)])
        test.clock.advance(by: 30)
        #expect(try await test.server.publish().map(\.name) == ["\(now + 60)-\(now + 90)-00001.zip"])
    }

    @Test func everyDownloadIsTheSameBytes() async throws {
        let test = try TestServer()
        try await test.server.postDiagnosisKeys((1...50).map { makeKey($0, start: today) })
        let published = try await test.server.publish()
        let file = try #require(published.first)
        for _ in 0..<3 {
            #expect(try await test.server.file(named: file.name)?.data == file.data)
            #expect(try await test.server.files(startingAt: 0).first?.data == file.data)
        }
        #expect(try await test.server.file(named: "0-1-00001.zip") == nil)
    }

    @Test func indexTextListsTheFileNamesSortedWithoutATrailingNewline() async throws {
        let test = try TestServer(maximumKeysPerFile: 2)
        #expect(try await test.server.indexText() == "")
        var names: [String] = []
        for round in 0..<3 {
            try await test.server.postDiagnosisKeys((0..<3).map { makeKey(10 * round + $0, start: today) })
            names += try await test.server.publish().map(\.name)
            test.clock.advance(by: 4 * 3_600)
        }
        #expect(names.count == 6)
        let text = try await test.server.indexText()
        #expect(text == names.sorted().joined(separator: "\n"))
        #expect(!text.hasSuffix("\n"))
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 6)
        for line in lines {
            #expect(line.wholeMatch(of: /[0-9]+-[0-9]+-[0-9]{5}\.zip/) != nil, "\(line)")
            #expect(line.allSatisfy { $0.isASCII })
        }
    }

    @Test func retentionDropsKeysAndFilesAfterFourteenDays() async throws {
        let test = try TestServer()
        let old = (1...4).map { makeKey($0, start: today) }
        try await test.server.postDiagnosisKeys(old)
        let oldFiles = try await test.server.publish()
        let oldName = try #require(oldFiles.first).name

        test.clock.advance(by: 13 * 86_400)
        try await test.server.postDiagnosisKeys([makeKey(9, start: today.adding(13 * 144))])
        let newFiles = try await test.server.publish()
        #expect(try await test.server.deleteExpired() == 0)
        #expect(try await test.server.indexText() == "\(oldName)\n\(newFiles[0].name)")

        test.clock.advance(by: 86_400 + 1)
        // Expired files are no longer served, even before they are deleted.
        #expect(try await test.server.file(named: oldName) == nil)
        #expect(try await test.server.files(startingAt: 0) == newFiles)
        // index.txt lists the files of batches that started in the last 14 days (Google's rule): the new batch
        // started at its key's arrival, a day ago, so it is still listed, and the old one no longer.
        #expect(try await test.server.indexText() == newFiles[0].name)
        #expect(try await test.server.deleteExpired() == 4)
        #expect(try await test.server.deleteExpired() == 0)
        #expect(try await test.store.exportFiles(startingAt: 0) == newFiles)
        #expect(try await test.store.exportBatches().map(\.keys.count) == [0, 1])
        // Re-posting a dropped key makes it new again; indexes continue.
        #expect(try await test.server.postDiagnosisKeys([old[0]]) == ENKeyServerPostResult(accepted: 1))
        #expect(try await test.server.publish().map(\.index) == [2])
    }

    @Test func aFailingPublishLeavesNothingPublished() async throws {
        let test = try TestServer()
        let keys = (1...3).map { makeKey($0, start: today) }
        try await test.server.postDiagnosisKeys(keys)
        let tooMany = (0...ENExportWriter.maximumSignerCount).map { _ in
            ENExportSigner(signingKey: test.signingKey, keyID: "310", keyVersion: "v1")
        }
        for signers in [[], tooMany] {
            let failing = try TestServer(clock: test.clock, store: test.store, signers: signers)
            let error = await #expect(throws: ENError.self) { try await failing.server.publish() }
            #expect(error?.code == .badParameter)
        }
        let zeroLimit = try TestServer(clock: test.clock, maximumKeysPerFile: 0, store: test.store)
        await #expect(throws: ENError.self) { try await zeroLimit.server.publish() }

        #expect(try await test.server.files(startingAt: 0).isEmpty)
        #expect(try await test.server.indexText() == "")
        #expect(try await test.store.exportBatches().isEmpty)
        #expect(try await test.store.diagnosisKeysAwaitingExport() == keys)
        // The next good publish takes batch 0 and file 0.
        let files = try await test.server.publish()
        #expect(files.map(\.index) == [0])
        #expect(files.map(\.batchIndex) == [0])
    }

    @Test func theExposureConfigurationIsServedAsTheSampleServersJSON() async throws {
        var configuration = ENExposureConfiguration()
        configuration.minimumRiskScore = 7
        configuration.attenuationDurationThresholds = [40, 60]
        configuration.reportTypeSelfReportedWeight = 0.5
        let server = ENDiagnosisKeyServer(
            storage: try ENKeyServerSQLiteStore(),
            configuration: ENKeyServerConfiguration(region: "310", signers: [], exposureConfiguration: configuration))
        let json = try server.exposureConfigurationJSON()
        #expect(try ENExposureConfiguration(jsonData: json) == configuration)
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect(object["minimumRiskScore"] as? Int == 7)
        #expect(object["attenuationDurationThresholds"] as? [Int] == [40, 60])
    }
}
