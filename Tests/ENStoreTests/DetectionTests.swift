import ENCore
import ENStore
import Foundation
import Testing

@Suite("Detection state and results")
struct DetectionTests {
    func hash(_ n: UInt8) -> Data { Data(repeating: n, count: 32) }

    @Test func aDetectionStoresResultAndAdvancesStateTogether() throws {
        let clock = TestClock(referenceDate)
        let store = try ENStore(inMemoryWith: clock.configuration())
        #expect(try store.detectionState() == ENDetectionState())
        let today = ENIntervalNumber(date: referenceDate).rollingStart
        let keys = (0..<5).map { makeKey($0, start: today.adding(-144 * $0)) }
        let id = try store.recordDetection(
            ENDetectionRecord(
                date: referenceDate, kind: "v2", result: SampleSummary(matchedKeyCount: 2, maximumScore: 1_800),
                processedKeyFileHashes: [hash(1), hash(2)], nextKeyFileIndex: 2, cachedKeys: keys))
        let state = try store.detectionState()
        #expect(state.nextKeyFileIndex == 2)
        #expect(state.lastDetectionDate == referenceDate)
        #expect(state.lastDetectionError == nil)
        #expect(try store.unprocessedKeyFileHashes([hash(1), hash(3), hash(2)]) == [hash(3)])
        #expect(Set(try store.cachedDiagnosisKeys()) == Set(keys))
        #expect(try store.rateLimitLedger(since: .distantPast) == [referenceDate])
        let stored = try #require(try store.latestDetection(as: SampleSummary.self))
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
        try await store.recordDetection(
            ENDetectionRecord(date: referenceDate, kind: "v2", result: 1, cachedKeys: [key, key]))
        key.diagnosisReportType = .revoked
        try await store.recordDetection(
            ENDetectionRecord(date: referenceDate, kind: "v2", result: 2, cachedKeys: [key]))
        #expect(try await store.cachedDiagnosisKeys() == [key])
    }

    @Test func theRateLimitIsCheckedInsideTheTransaction() async throws {
        let clock = TestClock(referenceDate)
        let store = try ENStore(inMemoryWith: clock.configuration())
        for n in 0..<6 {
            try await store.recordDetection(
                ENDetectionRecord(
                    date: clock.now, kind: "v2", result: n, processedKeyFileHashes: [hash(UInt8(n))],
                    nextKeyFileIndex: n + 1, rateLimit: .v2))
            clock.advance(by: 60)
        }
        await expectCodeAsync(.rateLimited) {
            try await store.recordDetection(
                ENDetectionRecord(
                    date: clock.now, kind: "v2", result: 99, processedKeyFileHashes: [hash(99)], nextKeyFileIndex: 99,
                    rateLimit: .v2))
        }
        // Nothing of the refused detection was written.
        #expect(try await store.detectionState().nextKeyFileIndex == 6)
        #expect(try await store.unprocessedKeyFileHashes([hash(99)]) == [hash(99)])
        #expect(try await store.detections(as: Int.self).map(\.result) == [0, 1, 2, 3, 4, 5])
        // A day after the first, one slot is free again.
        clock.advance(by: 86_400 - 6 * 60 + 1)
        try await store.recordDetection(ENDetectionRecord(date: clock.now, kind: "v2", result: 6, rateLimit: .v2))
    }

    @Test func aFailedDetectionSetsTheErrorButNotTheDateOrIndex() throws {
        let store = try ENStore(inMemoryWith: TestClock(referenceDate).configuration())
        try store.recordDetection(ENDetectionRecord(date: referenceDate, kind: "v1", result: "ok", nextKeyFileIndex: 4))
        try store.recordDetectionFailure(
            "BACKGROUND_TIMEOUT", at: referenceDate.addingTimeInterval(60), countsTowardRateLimit: true)
        let state = try store.detectionState()
        #expect(
            state
                == ENDetectionState(
                    nextKeyFileIndex: 4, lastDetectionDate: referenceDate, lastDetectionError: "BACKGROUND_TIMEOUT"))
        #expect(try store.rateLimitLedger(since: .distantPast).count == 2)
        // The next success clears the error.
        try store.recordDetection(
            ENDetectionRecord(date: referenceDate.addingTimeInterval(120), kind: "v1", result: "ok"))
        #expect(try store.detectionState().lastDetectionError == nil)
        #expect(try store.detectionState().nextKeyFileIndex == 4)
    }

    @Test func resultsAreSelectedByKindAndAWrongTypeIsABadFormat() throws {
        let store = try ENStore(inMemoryWith: TestClock(referenceDate).configuration())
        try store.recordDetection(
            ENDetectionRecord(
                date: referenceDate, kind: "v1", result: [ENExposureRecord(date: referenceDate, duration: 300)]))
        try store.recordDetection(
            ENDetectionRecord(
                date: referenceDate, kind: "v2", result: SampleSummary(matchedKeyCount: 1, maximumScore: 9)))
        #expect(
            try store.detections(as: [ENExposureRecord].self, kind: "v1").map(\.result) == [
                [ENExposureRecord(date: referenceDate, duration: 300)]
            ])
        #expect(try store.latestDetection(as: SampleSummary.self, kind: "v2")?.result.maximumScore == 9)
        #expect(try store.latestDetection(as: SampleSummary.self, kind: "v3") == nil)
        expectCode(.badFormat) { _ = try store.latestDetection(as: SampleSummary.self, kind: "v1") }
    }

    @Test func invalidInputWritesNothing() throws {
        let store = try ENStore(inMemoryWith: TestClock(referenceDate).configuration())
        let bad = ENTemporaryExposureKey(keyData: Data(count: 16), rollingStartNumber: 1, rollingPeriod: 145)
        expectCode(.badParameter) {
            try store.recordDetection(
                ENDetectionRecord(date: referenceDate, kind: "v2", result: 1, nextKeyFileIndex: 1, cachedKeys: [bad]))
        }
        expectCode(.badParameter) {
            try store.recordDetection(
                ENDetectionRecord(date: referenceDate, kind: "v2", result: 1, nextKeyFileIndex: -1))
        }
        expectCode(.badParameter) {
            try store.recordDetection(
                ENDetectionRecord(date: referenceDate, kind: "v2", result: 1, processedKeyFileHashes: [Data()]))
        }
        expectCode(.badParameter) { try store.setNextKeyFileIndex(-3) }
        #expect(try store.detectionState() == ENDetectionState())
        #expect(try store.detections(as: Int.self).isEmpty)
        try store.setNextKeyFileIndex(7)
        #expect(try store.detectionState().nextKeyFileIndex == 7)
    }
}
