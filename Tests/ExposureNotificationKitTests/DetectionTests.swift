import ENCore
import ENCrypto
import ENExportFormat
import ENSimulator
import ENStore
import ENTestSupport
import ExposureNotificationKit
import Foundation
import Synchronization
import Testing

/// Expects `body` to throw an `ENError` with `code`, and returns it.
@discardableResult
func expectENError(
    _ code: ENError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
) async -> ENError? {
    do {
        try await body()
        Issue.record("expected ENError.\(code), got success", sourceLocation: sourceLocation)
        return nil
    } catch let error as ENError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected ENError.\(code), got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

@Suite("ENManager: detection end to end (real broadcast, real signed files)")
struct DetectionTests {
    // The encounter: 6 scans 4 minutes apart at -60 dBm from a device broadcasting TX power 0, so attenuation
    // 60 dB. Scan rule (ENSightingScan): the first scan stands for 120 s, each later one for the 240 s since
    // the previous one: 120 + 5 x 240 = 1320 s.
    static let scanSeconds = [120, 240, 240, 240, 240, 240]
    /// The default memory budget, and none: verification then keeps only the file matching reads next.
    static let memoryBudgets = [ENLimits().detectionMemoryBudget, 0]

    @Test("version 2: a 20-minute encounter gives one window of six scans and the day summary by hand")
    func versionTwoEncounter() async throws {
        let scenario = try await DetectionScenario()
        defer { scenario.directory.cleanUp() }
        try scenario.encounter()
        let zip = try scenario.writeZip(try await scenario.releasedKeys(), name: "export-1.zip")
        scenario.detectAt()
        let summary = try await scenario.detect([zip])

        let windows = try await scenario.manager.getExposureWindows(summary: summary)
        try #require(windows.count == 1)
        let window = windows[0]
        #expect(window.date == Date(timeIntervalSince1970: 2_642_976 * 600))
        #expect(window.diagnosisReportType == .confirmedTest)
        #expect(window.infectiousness == .standard)
        #expect(window.calibrationConfidence == .high)
        #expect(window.scanInstances.map(\.secondsSinceLastScan) == Self.scanSeconds)
        #expect(window.scanInstances.allSatisfy { $0.typicalAttenuation == 60 && $0.minimumAttenuation == 60 })

        // 60 dB is in the near bucket (50, 70], weighted 50 %: 1320 s x 0.5 = 660 s; report type and
        // infectiousness weights 100 %. Every value a multiple of 60.
        try #require(summary.daySummaries.count == 1)
        let day = summary.daySummaries[0]
        #expect(day.date == window.date)
        #expect(day.daySummary == ENExposureSummaryItem(maximumScore: 660, scoreSum: 660, weightedDurationSum: 660))
        #expect(day.confirmedTestSummary == day.daySummary)
        #expect(day.selfReportedSummary == nil)
        // Version 2 leaves the version 1 properties empty, as iOS does.
        #expect(summary.matchedKeyCount == 0 && summary.attenuationDurations.isEmpty)
    }

    @Test("version 1: the same encounter gives one ENExposureInfo and the summary by hand")
    func versionOneEncounter() async throws {
        let scenario = try await DetectionScenario(apiVersion: .version1)
        defer { scenario.directory.cleanUp() }
        try scenario.encounter()
        let zip = try scenario.writeZip(try await scenario.releasedKeys(), name: "export-1.zip")
        scenario.detectAt()
        let summary = try await scenario.detect([zip])
        #expect(summary.matchedKeyCount == 1)
        #expect(summary.daysSinceLastExposure == 0)
        #expect(summary.daySummaries.isEmpty)

        let infos = try await scenario.manager.getExposureInfo(summary: summary, userExplanation: "You were exposed")
        #expect(scenario.notifications.shown.withLock { $0 } == ["You were exposed"])
        try #require(infos.count == 1)
        let info = infos[0]
        // 1320 s = 22 min. Level values are 1...8 by bucket index: attenuation 60 dB is bucket 2 (> 51) -> 3;
        // 0 days is bucket 7 (< 2) -> 8; 22 minutes is bucket 5 (<= 25) -> 6; transmission risk 4 -> 5.
        #expect(info.duration == 1320)
        #expect(info.attenuationValue == 3)
        #expect(info.totalRiskScoreFullRange == 3 * 8 * 6 * 5)
        #expect(info.totalRiskScore == 255)
        #expect(info.transmissionRiskLevel == 4)
        #expect(info.diagnosisReportType == .confirmedTest)
        #expect(info.attenuationDurations == [0, 1320, 0, 0])
        #expect(summary.maximumRiskScore == 255)
        #expect(summary.maximumRiskScoreFullRange == 720)
        #expect(summary.riskScoreSumFullRange == 720)
        #expect(summary.attenuationDurations == [0, 1320, 0, 0])
    }

    @Test("sightings outside the key's validity (beyond the 2-hour tolerance) do not match")
    func outsideValidity() async throws {
        let scenario = try await DetectionScenario()
        defer { scenario.directory.cleanUp() }
        // The identifiers of 10:00-10:20, heard 3 hours later: not within 12 intervals of their own interval.
        try scenario.encounter(shift: 3 * 3600)
        let zip = try scenario.writeZip(try await scenario.releasedKeys(), name: "export-1.zip")
        scenario.detectAt(DetectionScenario.encounterStart.addingTimeInterval(5 * 3600))
        let summary = try await scenario.detect([zip])
        #expect(summary.daySummaries.isEmpty)
        #expect(try await scenario.manager.getExposureWindows(summary: summary).isEmpty)
    }

    @Test(
        "revoked keys never match, also when the revocation comes in a later file (through the cache)",
        arguments: DetectionTests.memoryBudgets)
    func revocation(memoryBudget: Int) async throws {
        let scenario = try await DetectionScenario(limits: ENLimits(detectionMemoryBudget: memoryBudget))
        defer { scenario.directory.cleanUp() }
        try scenario.encounter()
        let keys = try await scenario.releasedKeys()
        let revoked = keys.map { $0.reported(as: .revoked) }
        let confirmed = try scenario.writeZip(keys, name: "confirmed.zip")
        let revocation = try scenario.writeZip([], revisedKeys: revoked, name: "revocation.zip")
        scenario.detectAt()
        let first = try await scenario.detect([confirmed])
        #expect(first.daySummaries.count == 1)
        let second = try await scenario.detect([revocation])
        #expect(second.daySummaries.isEmpty)
        #expect(try await scenario.manager.getExposureWindows(summary: second).isEmpty)
    }

    @Test("revoked keys among a file's keys never match")
    func revokedKeys() async throws {
        let scenario = try await DetectionScenario()
        defer { scenario.directory.cleanUp() }
        try scenario.encounter()
        let zip = try scenario.writeZip(try await scenario.releasedKeys(reportType: .revoked), name: "revoked.zip")
        scenario.detectAt()
        let summary = try await scenario.detect([zip])
        #expect(summary.daySummaries.isEmpty)
        #expect(try await scenario.manager.getExposureWindows(summary: summary).isEmpty)
    }

    @Test("a revision to another report type wins over the original key")
    func revision() async throws {
        let scenario = try await DetectionScenario()
        defer { scenario.directory.cleanUp() }
        try scenario.encounter()
        let keys = try await scenario.releasedKeys(reportType: .selfReported)
        let revised = keys.map { $0.reported(as: .confirmedTest) }
        let original = try scenario.writeZip(keys, name: "original.zip")
        let revision = try scenario.writeZip([], revisedKeys: revised, name: "revision.zip")
        scenario.detectAt()
        let summary = try await scenario.detect([original, revision])
        let windows = try await scenario.manager.getExposureWindows(summary: summary)
        #expect(windows.map(\.diagnosisReportType) == [.confirmedTest])
    }

    @Test(
        "a file given twice keeps its first place: a revision given between its two copies still wins",
        arguments: DetectionTests.memoryBudgets)
    func duplicateKeepsItsFirstPlace(memoryBudget: Int) async throws {
        let scenario = try await DetectionScenario(limits: ENLimits(detectionMemoryBudget: memoryBudget))
        defer { scenario.directory.cleanUp() }
        try scenario.encounter()
        let keys = try await scenario.releasedKeys(reportType: .selfReported)
        let original = try scenario.writeZip(keys, name: "original.zip")
        let copy = scenario.directory.url.appendingPathComponent("copy.zip")
        try FileManager.default.copyItem(at: original, to: copy)
        let revision = try scenario.writeZip(
            [], revisedKeys: keys.map { $0.reported(as: .confirmedTest) }, name: "revision.zip")
        scenario.detectAt()
        // Read newest first, the copy (last given) would be read before the revision; its place is the original's.
        let summary = try await scenario.detect([original, revision, copy])
        let windows = try await scenario.manager.getExposureWindows(summary: summary)
        #expect(windows.map(\.diagnosisReportType) == [.confirmedTest])
        #expect(try scenario.recordCounts().processedKeyFiles == 2)
    }

    @Test(
        "a bare .bin/.sig pair reads as the zip does; the same export.bin twice counts once",
        arguments: DetectionTests.memoryBudgets)
    func bareLayoutAndDuplicates(memoryBudget: Int) async throws {
        let scenario = try await DetectionScenario(limits: ENLimits(detectionMemoryBudget: memoryBudget))
        defer { scenario.directory.cleanUp() }
        try scenario.encounter()
        let keys = try await scenario.releasedKeys()
        let archive = try scenario.archive(keys)
        let zip = scenario.directory.url.appendingPathComponent("a.zip")
        try archive.write(to: zip)
        let bin = scenario.directory.url.appendingPathComponent("b.bin")
        let sig = scenario.directory.url.appendingPathComponent("b.sig")
        try archive.exportBinary.write(to: bin)
        try archive.signatureFile!.write(to: sig)
        scenario.detectAt()
        let summary = try await scenario.detect([sig, zip, bin, zip])
        let windows = try await scenario.manager.getExposureWindows(summary: summary)
        #expect(windows.count == 1)
        #expect(summary.daySummaries.first?.daySummary.weightedDurationSum == 660)
        let counts = try scenario.recordCounts()
        #expect(counts.cachedKeyFiles == 1)
        #expect(counts.processedKeyFiles == 1)
    }

    @Test(
        "an empty list detects over the cached keys; detectExposures(configuration:) gives the same result",
        arguments: DetectionTests.memoryBudgets)
    func cachedKeys(memoryBudget: Int) async throws {
        let scenario = try await DetectionScenario(limits: ENLimits(detectionMemoryBudget: memoryBudget))
        defer { scenario.directory.cleanUp() }
        try scenario.encounter()
        let zip = try scenario.writeZip(try await scenario.releasedKeys(), name: "export-1.zip")
        scenario.detectAt()
        let configuration = DetectionScenario.configuration
        let fromFiles = try await scenario.manager.detectExposures(
            configuration: configuration, diagnosisKeyURLs: [zip])
        try FileManager.default.removeItem(at: zip)
        let fromEmptyList = try await scenario.manager.detectExposures(
            configuration: configuration, diagnosisKeyURLs: [])
        let fromCache = try await scenario.manager.detectExposures(configuration: configuration)
        #expect(fromFiles.daySummaries.count == 1)
        #expect(fromEmptyList == fromFiles)
        #expect(fromCache == fromFiles)
        #expect(
            try await scenario.manager.getExposureWindows(summary: fromCache)
                == scenario.manager.getExposureWindows(summary: fromFiles))
        let counts = try scenario.recordCounts()
        #expect(counts.detections == 3 && counts.ledgerEntries == 3 && counts.cachedKeyFiles == 1)

        // 15 days later the cache has expired (and so have the keys).
        scenario.detectAt(DetectionScenario.encounterStart.addingTimeInterval(15 * 86_400))
        let expired = try await scenario.manager.detectExposures(configuration: configuration)
        #expect(expired.daySummaries.isEmpty)
    }

    @Test(
        "files that do not verify, or a .bin without its .sig, fail naming the file and store nothing",
        arguments: DetectionTests.memoryBudgets)
    func badFiles(memoryBudget: Int) async throws {
        let scenario = try await DetectionScenario(limits: ENLimits(detectionMemoryBudget: memoryBudget))
        defer { scenario.directory.cleanUp() }
        try scenario.encounter()
        let keys = try await scenario.releasedKeys()
        let good = try scenario.writeZip(keys, name: "good.zip")
        let untrusted = try scenario.writeZip(keys, name: "untrusted.zip", signer: try P256SigningKey())
        let (bin, sig) = try scenario.writePair(keys, name: "tampered")
        var tampered = try Data(contentsOf: bin)
        tampered[tampered.count - 3] ^= 0x01
        try tampered.write(to: bin)
        let (lonelyBin, lonelySig) = try scenario.writePair(keys, name: "lonely")
        let garbage = scenario.directory.url.appendingPathComponent("garbage.zip")
        try Data("not a zip".utf8).write(to: garbage)
        scenario.detectAt()
        let configuration = DetectionScenario.configuration
        let before = try scenario.recordCounts()

        let error1 = await expectENError(.badFormat) {
            _ = try await scenario.manager.detectExposures(
                configuration: configuration, diagnosisKeyURLs: [good, untrusted])
        }
        #expect(error1?.context.file == untrusted.path)
        #expect(error1?.context.section == "export.sig")
        let error2 = await expectENError(.badFormat) {
            _ = try await scenario.manager.detectExposures(configuration: configuration, diagnosisKeyURLs: [bin, sig])
        }
        #expect(error2?.context.file == bin.path)
        let error3 = await expectENError(.badParameter) {
            _ = try await scenario.manager.detectExposures(configuration: configuration, diagnosisKeyURLs: [lonelyBin])
        }
        #expect(error3?.context.file == lonelyBin.path)
        let error4 = await expectENError(.badParameter) {
            _ = try await scenario.manager.detectExposures(configuration: configuration, diagnosisKeyURLs: [lonelySig])
        }
        #expect(error4?.context.file == lonelySig.path)
        let error5 = await expectENError(.badFormat) {
            _ = try await scenario.manager.detectExposures(configuration: configuration, diagnosisKeyURLs: [garbage])
        }
        #expect(error5?.context.file == garbage.path)
        var invalid = configuration
        invalid.nearDurationWeight = 300
        await expectENError(.badParameter) {
            _ = try await scenario.manager.detectExposures(configuration: invalid, diagnosisKeyURLs: [good])
        }
        #expect(try scenario.recordCounts() == before)
    }

    @Test(
        "many files verified on two threads: the first failing file in the given order decides; files held back by the budget match",
        arguments: DetectionTests.memoryBudgets)
    func manyFilesOnTwoThreads(memoryBudget: Int) async throws {
        let scenario = try await DetectionScenario(
            limits: ENLimits(maximumDetectionThreads: 2, detectionMemoryBudget: memoryBudget))
        defer { scenario.directory.cleanUp() }
        try scenario.encounter()
        let keys = try await scenario.releasedKeys()
        var rng = SeededRandomNumberGenerator.forTest(defaultSeed: 4242)
        // Decoy files of random keys around the one with the encounter's keys.
        var good: [URL] = []
        for index in 0..<9 {
            let decoys = (0..<200).map { _ in
                ENTemporaryExposureKey(
                    keyData: Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) }),
                    rollingStartNumber: keys[0].rollingStartNumber, transmissionRiskLevel: 4)
            }
            good.append(try scenario.writeZip(index == 4 ? keys + decoys : decoys, name: "good-\(index).zip"))
        }
        let untrusted = try scenario.writeZip(keys, name: "untrusted.zip", signer: try P256SigningKey())
        let garbage = scenario.directory.url.appendingPathComponent("garbage.zip")
        try Data("not a zip".utf8).write(to: garbage)
        scenario.detectAt()
        let configuration = DetectionScenario.configuration
        let before = try scenario.recordCounts()
        for (urls, failing) in [
            (good + [untrusted, garbage], untrusted), (good + [garbage, untrusted], garbage),
            (Array(good[..<2]) + [untrusted] + good[2...] + [garbage], untrusted),
        ] {
            let error = await expectENError(.badFormat) {
                _ = try await scenario.manager.detectExposures(configuration: configuration, diagnosisKeyURLs: urls)
            }
            #expect(error?.context.file == failing.path)
        }
        #expect(try scenario.recordCounts() == before)

        let summary = try await scenario.manager.detectExposures(
            configuration: configuration, diagnosisKeyURLs: good + [good[4]])
        #expect(summary.daySummaries.first?.daySummary.weightedDurationSum == 660)
        #expect(try await scenario.manager.getExposureWindows(summary: summary).count == 1)
        let counts = try scenario.recordCounts()
        #expect(counts.cachedKeyFiles == 9 && counts.processedKeyFiles == 9)
        #expect(try await scenario.manager.detectExposures(configuration: configuration) == summary)
    }

    @Test("the rate limit is checked before any work and rolls over after 24 hours")
    func rateLimit() async throws {
        let scenario = try await DetectionScenario(limits: ENLimits(detectionsPerDayVersion2: 2))
        defer { scenario.directory.cleanUp() }
        scenario.detectAt()
        let configuration = DetectionScenario.configuration
        _ = try await scenario.manager.detectExposures(configuration: configuration, diagnosisKeyURLs: [])
        scenario.me.clock.advance(by: 3600)
        _ = try await scenario.manager.detectExposures(configuration: configuration, diagnosisKeyURLs: [])
        // Over the limit, even a file that does not exist is not looked at.
        let missing = scenario.directory.url.appendingPathComponent("missing.zip")
        await expectENError(.rateLimited) {
            _ = try await scenario.manager.detectExposures(configuration: configuration, diagnosisKeyURLs: [missing])
        }
        scenario.me.clock.advance(by: 23 * 3600)
        await expectENError(.rateLimited) {
            _ = try await scenario.manager.detectExposures(configuration: configuration, diagnosisKeyURLs: [])
        }
        scenario.me.clock.advance(by: 1)
        _ = try await scenario.manager.detectExposures(configuration: configuration, diagnosisKeyURLs: [])
    }

    @Test("cancelling the Progress at any moment either finishes the detection or stores nothing")
    func cancellation() async throws {
        let scenario = try await DetectionScenario()
        defer { scenario.directory.cleanUp() }
        try scenario.encounter()
        var keys = try await scenario.releasedKeys()
        var generator = SeededRandomNumberGenerator.forTest()
        keys += (0..<200_000).map { index in
            var key = ENTemporaryExposureKey()
            key.keyData = Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
            key.rollingStartNumber = 2_642_976 - 144 * UInt32(index % 10)
            key.rollingPeriod = 144
            return key
        }
        let zip = try scenario.writeZip(keys, name: "big.zip")
        scenario.detectAt()
        var outcomes: [String] = []
        for attempt in 0..<6 {
            let before = try scenario.recordCounts()
            let delay = UInt64.random(in: 0...150_000_000, using: &generator)
            let result: Result<ENExposureDetectionSummary, ENError> = await withCheckedContinuation { continuation in
                let progress = scenario.manager.detectExposures(
                    configuration: DetectionScenario.configuration, diagnosisKeyURLs: [zip]
                ) { summary, error in
                    if let summary {
                        continuation.resume(returning: .success(summary))
                    } else {
                        continuation.resume(returning: .failure(error as! ENError))
                    }
                }
                if attempt == 0 { progress.cancel() }
                Task {
                    try? await Task.sleep(nanoseconds: delay)
                    progress.cancel()
                }
            }
            // Nothing staged is left behind (counted before an open could sweep it): every stored export.bin
            // belongs to a cached file.
            let contents = try scenario.storedKeyFileContents()
            let after = try scenario.recordCounts()
            #expect(contents == after.cachedKeyFiles, "attempt \(attempt): \(contents) export.bin stored")
            switch result {
            case .success:
                outcomes.append("done")
                #expect(after.detections == before.detections + 1, "\(generator)")
            case .failure(let error):
                outcomes.append("cancelled")
                #expect(error.code == .invalidated, "\(error)")
                #expect(after == before, "attempt \(attempt) after \(delay) ns, \(generator)")
            }
        }
        #expect(outcomes.first == "cancelled")
    }

    @Test("summaries from another manager, or of the other API version, are refused; detection needs EN enabled")
    func misuse() async throws {
        let scenario = try await DetectionScenario()
        defer { scenario.directory.cleanUp() }
        scenario.detectAt()
        let configuration = DetectionScenario.configuration
        let summary = try await scenario.manager.detectExposures(configuration: configuration, diagnosisKeyURLs: [])
        await expectENError(.badParameter) {
            _ = try await scenario.otherManager.getExposureWindows(summary: summary)
        }
        await expectENError(.badParameter) {
            _ = try await scenario.manager.getExposureWindows(summary: ENExposureDetectionSummary())
        }
        await expectENError(.apiMisuse) {
            _ = try await scenario.manager.getExposureInfo(summary: summary, userExplanation: "x")
        }

        let v1 = try await DetectionScenario(apiVersion: .version1)
        defer { v1.directory.cleanUp() }
        await expectENError(.apiMisuse) { _ = try await v1.manager.detectExposures(configuration: configuration) }
        await expectENError(.apiMisuse) { _ = try await v1.manager.getExposureWindows(summary: summary) }
        await expectENError(.badParameter) {
            _ = try await v1.manager.getExposureInfo(summary: summary, userExplanation: "x")
        }

        try await scenario.manager.setExposureNotificationEnabled(false)
        await expectENError(.notEnabled) {
            _ = try await scenario.manager.detectExposures(configuration: configuration, diagnosisKeyURLs: [])
        }
        let fresh = scenario.me.manager()
        await expectENError(.apiMisuse) {
            _ = try await fresh.detectExposures(configuration: configuration, diagnosisKeyURLs: [])
        }
    }
}
