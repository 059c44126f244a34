import ENCore
import ENStore
import Foundation
import Testing

@Suite("Detection results and framework state")
struct DetectionTests {
    func hash(_ n: UInt8) -> Data { Data(repeating: n, count: 32) }

    @Test func aDetectionStoresResultAndAdvancesStateTogether() throws {
        let clock = TestClock(referenceDate)
        let store = try ENStore(inMemoryWith: clock.configuration())
        #expect(try store.read(.recordCounts) == ENStoreRecordCounts())
        let today = ENIntervalNumber(date: referenceDate).rollingStart
        let keys = (0..<5).map { makeKey($0, start: today.adding(-144 * $0)) }
        let id = try store.write(
            .recordDetection(
                ENDetectionRecord(
                    date: referenceDate, kind: "v2", result: SampleSummary(matchedKeyCount: 2, maximumScore: 1_800),
                    processedKeyFileHashes: [hash(1), hash(2)], cachedKeys: keys)))
        var counts = ENStoreRecordCounts()
        (counts.detections, counts.processedKeyFiles, counts.cachedDiagnosisKeys, counts.ledgerEntries) = (1, 2, 5, 1)
        #expect(try store.read(.recordCounts) == counts)
        #expect(try store.read(.unprocessedKeyFileHashes([hash(1), hash(3), hash(2)])) == [hash(3)])
        #expect(Set(try store.read(.cachedDiagnosisKeys)) == Set(keys))
        #expect(try store.read(.rateLimitLedger(since: .distantPast)) == [referenceDate])
        let stored = try #require(try store.read(.latestDetection(as: SampleSummary.self)))
        #expect(
            stored
                == ENStoredDetection(
                    id: id, date: referenceDate, kind: "v2",
                    result: SampleSummary(matchedKeyCount: 2, maximumScore: 1_800)))
    }

    @Test func cachedKeysAreOneKeyPerKeyDataAndStartWithTheLatestCopyWinning() async throws {
        let store = try ENStore(inMemoryWith: TestClock(referenceDate).configuration())
        let today = ENIntervalNumber(date: referenceDate).rollingStart
        var key = makeKey(1, start: today)
        try await store.write(
            .recordDetection(ENDetectionRecord(date: referenceDate, kind: "v2", result: 1, cachedKeys: [key, key])))
        key.diagnosisReportType = .revoked
        try await store.write(
            .recordDetection(ENDetectionRecord(date: referenceDate, kind: "v2", result: 2, cachedKeys: [key])))
        #expect(try await store.read(.cachedDiagnosisKeys) == [key])
    }

    @Test func theRateLimitIsCheckedInsideTheTransaction() async throws {
        let clock = TestClock(referenceDate)
        let store = try ENStore(inMemoryWith: clock.configuration())
        for n in 0..<6 {
            try await store.write(
                .recordDetection(
                    ENDetectionRecord(
                        date: clock.now, kind: "v2", result: n, processedKeyFileHashes: [hash(UInt8(n))],
                        rateLimit: .v2)))
            clock.advance(by: 60)
        }
        await expectCodeAsync(.rateLimited) {
            try await store.write(
                .recordDetection(
                    ENDetectionRecord(
                        date: clock.now, kind: "v2", result: 99, processedKeyFileHashes: [hash(99)], rateLimit: .v2)))
        }
        // Nothing of the refused detection was written.
        #expect(try await store.read(.rateLimitLedger(since: .distantPast)).count == 6)
        #expect(try await store.read(.unprocessedKeyFileHashes([hash(99)])) == [hash(99)])
        #expect(try await store.read(.detections(as: Int.self)).map(\.result) == [0, 1, 2, 3, 4, 5])
        // A day after the first, one slot is free again.
        clock.advance(by: 86_400 - 6 * 60 + 1)
        try await store.write(
            .recordDetection(ENDetectionRecord(date: clock.now, kind: "v2", result: 6, rateLimit: .v2)))
    }

    @Test func aFailedDetectionCountsTowardTheRateLimitOnly() throws {
        let clock = TestClock(referenceDate)
        let store = try ENStore(inMemoryWith: clock.configuration())
        try store.write(.recordDetection(ENDetectionRecord(date: referenceDate, kind: "v1", result: "ok")))
        try store.write(.recordFailedDetection(at: referenceDate.addingTimeInterval(60)))
        try store.write(.recordFailedDetection())
        #expect(
            try store.read(.rateLimitLedger(since: .distantPast)) == [
                referenceDate, referenceDate, referenceDate.addingTimeInterval(60),
            ])
        #expect(try store.read(.detections(as: String.self)).map(\.result) == ["ok"])
        // A detection that does not count adds no ledger entry.
        try store.write(
            .recordDetection(
                ENDetectionRecord(date: referenceDate, kind: "v1", result: "free", countsTowardRateLimit: false)))
        #expect(try store.read(.rateLimitLedger(since: .distantPast)).count == 3)
    }

    @Test func resultsAreSelectedByKindAndAWrongTypeIsABadFormat() throws {
        let store = try ENStore(inMemoryWith: TestClock(referenceDate).configuration())
        try store.write(
            .recordDetection(
                ENDetectionRecord(
                    date: referenceDate, kind: "v1", result: [ENExposureRecord(date: referenceDate, duration: 300)])))
        try store.write(
            .recordDetection(
                ENDetectionRecord(
                    date: referenceDate, kind: "v2", result: SampleSummary(matchedKeyCount: 1, maximumScore: 9))))
        #expect(
            try store.read(.detections(as: [ENExposureRecord].self, kind: "v1")).map(\.result) == [
                [ENExposureRecord(date: referenceDate, duration: 300)]
            ])
        #expect(try store.read(.latestDetection(as: SampleSummary.self, kind: "v2"))?.result.maximumScore == 9)
        #expect(try store.read(.latestDetection(as: SampleSummary.self, kind: "v3")) == nil)
        expectCode(.badFormat) { _ = try store.read(.latestDetection(as: SampleSummary.self, kind: "v1")) }
    }

    @Test func invalidInputWritesNothing() throws {
        let store = try ENStore(inMemoryWith: TestClock(referenceDate).configuration())
        let bad = ENTemporaryExposureKey(keyData: Data(count: 16), rollingStartNumber: 1, rollingPeriod: 145)
        expectCode(.badParameter) {
            try store.write(
                .recordDetection(ENDetectionRecord(date: referenceDate, kind: "v2", result: 1, cachedKeys: [bad])))
        }
        expectCode(.badParameter) {
            try store.write(
                .recordDetection(
                    ENDetectionRecord(date: referenceDate, kind: "v2", result: 1, processedKeyFileHashes: [Data()])))
        }
        // JSON has no NaN: the result does not encode.
        expectCode(.badParameter) {
            try store.write(.recordDetection(ENDetectionRecord(date: referenceDate, kind: "v2", result: Double.nan)))
        }
        #expect(try store.read(.recordCounts) == ENStoreRecordCounts())
        #expect(try store.read(.detections(as: Int.self)).isEmpty)
    }
}
