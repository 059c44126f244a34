import ENCore
import ENStore
import ENTestSupport
import Foundation
import Testing

@Suite("Retention and erasure")
struct RetentionTests {
    @Test func everyKindExpiresAfter14DaysByTheInjectedClock() throws {
        let clock = TestClock(referenceDate)
        let store = try ENDeviceStore(inMemoryWith: clock.configuration())
        let today = ENIntervalNumber(date: referenceDate).rollingStart
        for day in 0..<3 {
            try store.write(
                .saveOwnKey(
                    ENTemporaryExposureKey(
                        keyData: Data(repeating: UInt8(day), count: 16), rollingStartNumber: today.adding(144 * day))))
        }
        try store.write(
            .addSightings([
                makeSighting(1, at: referenceDate), makeSighting(2, at: referenceDate.addingTimeInterval(2 * 86_400)),
            ]))
        try store.write(
            .recordDetection(
                ENDetectionRecord(
                    date: referenceDate, kind: "v2", result: 1, processedKeyFileHashes: [Data([1])],
                    cachedKeyFiles: [ENCachedKeyFile(hash: Data(repeating: 1, count: 32), exportBinary: Data([1]))])))
        try store.write(.setExposureNotificationEnabled(true))

        // 14 days later, nothing is old enough yet.
        clock.advance(by: 14 * 86_400 - 600)
        #expect(try store.write(.deleteExpiredRecords()).total == 0)

        // 14 days after the first day ended: day 0's key, the first sighting, the detection's records go.
        clock.advance(by: 86_400)
        let report = try store.write(.deleteExpiredRecords())
        var expected = ENStoreRecordCounts()
        expected.ownKeys = 1
        expected.sightings = 1
        expected.cachedKeyFiles = 1
        expected.processedKeyFiles = 1
        expected.ledgerEntries = 1
        expected.detections = 1
        #expect(report == expected)
        #expect(try store.read(.ownKeys).map(\.rollingStartNumber) == [today.adding(144), today.adding(288)])
        #expect(
            try store.read(.sightings(from: .distantPast)) == [
                makeSighting(2, at: referenceDate.addingTimeInterval(2 * 86_400))
            ])
        #expect(try store.read(.cachedKeyFileHashes).isEmpty)
        #expect(try store.read(.detections(as: Int.self)).isEmpty)
        #expect(try store.read(.unprocessedKeyFileHashes([Data([1])])) == [Data([1])])
        // The manager state is not a record with an age.
        #expect(try store.read(.managerState).exposureNotificationEnabled)
    }

    /// An in-memory store first asks one query whether anything expired: each kind of record, alone in the store,
    /// must still be found and deleted (and staged contents no detection recorded, which have no age).
    @Test(arguments: ["own key", "sighting", "cached key file", "processed key file", "ledger entry", "detection"])
    func eachKindAloneExpiresFromAnInMemoryStore(kind: String) throws {
        let clock = TestClock(referenceDate)
        let store = try ENDeviceStore(inMemoryWith: clock.configuration())
        let file = ENCachedKeyFile(hash: Data(repeating: 7, count: 32), exportBinary: Data(repeating: 7, count: 50))
        var expected = ENStoreRecordCounts()
        switch kind {
        case "own key":
            try store.write(
                .saveOwnKey(
                    ENTemporaryExposureKey(
                        keyData: Data(repeating: 1, count: 16),
                        rollingStartNumber: ENIntervalNumber(date: referenceDate).rollingStart)))
            expected.ownKeys = 1
        case "sighting":
            try store.write(.addSightings([makeSighting(1, at: referenceDate)]))
            expected.sightings = 1
        case "cached key file":
            try store.write(
                .recordDetection(
                    ENDetectionRecord(
                        date: referenceDate, kind: "v2", result: 0, cachedKeyFiles: [file],
                        countsTowardRateLimit: false)))
            expected.cachedKeyFiles = 1
            expected.detections = 1
        case "processed key file":
            try store.write(
                .recordDetection(
                    ENDetectionRecord(
                        date: referenceDate, kind: "v2", result: 0, processedKeyFileHashes: [Data([1])],
                        countsTowardRateLimit: false)))
            expected.processedKeyFiles = 1
            expected.detections = 1
        case "ledger entry":
            try store.write(.recordFailedDetection(at: referenceDate))
            expected.ledgerEntries = 1
        default:
            try store.write(
                .recordDetection(
                    ENDetectionRecord(date: referenceDate, kind: "v2", result: 0, countsTowardRateLimit: false)))
            expected.detections = 1
        }
        clock.advance(by: 14 * 86_400 - 600)
        #expect(try store.write(.deleteExpiredRecords()).total == 0)
        clock.advance(by: 2 * 86_400)
        #expect(try store.write(.deleteExpiredRecords()) == expected)
        #expect(try store.write(.deleteExpiredRecords()).total == 0)
        #expect(try store.read(.recordCounts).total == 0)
        #expect(try store.read(.cachedKeyFile(file.hash)) == nil)
    }

    /// Contents a detection staged without recording go at the next sweep of an in-memory store, although nothing
    /// else expired.
    @Test func stagedContentsGoAtTheNextSweepOfAnInMemoryStore() throws {
        let clock = TestClock(referenceDate)
        let store = try ENDeviceStore(inMemoryWith: clock.configuration())
        let staged = ENCachedKeyFile(hash: Data(repeating: 3, count: 32), exportBinary: Data(repeating: 3, count: 50))
        #expect(try store.write(.stageCachedKeyFiles([staged])) == 1)
        try store.write(.deleteExpiredRecords())
        // Staging it again writes it again: the sweep deleted the earlier copy.
        #expect(try store.write(.stageCachedKeyFiles([staged])) == 1)
    }

    /// A key file goes 14 days after it was first cached, even when a later detection brought it again.
    @Test func cachedKeyFilesGo14DaysAfterTheyWereFirstCached() async throws {
        let clock = TestClock(referenceDate)
        let store = try ENDeviceStore(inMemoryWith: clock.configuration())
        func file(_ n: UInt8) -> ENCachedKeyFile {
            ENCachedKeyFile(hash: Data(repeating: n, count: 32), exportBinary: Data(repeating: n, count: 100))
        }
        try await store.write(
            .recordDetection(ENDetectionRecord(date: clock.now, kind: "v2", result: 0, cachedKeyFiles: [file(1)])))
        clock.advance(by: 2 * 86_400)
        try await store.write(
            .recordDetection(
                ENDetectionRecord(date: clock.now, kind: "v2", result: 1, cachedKeyFiles: [file(1), file(2)])))
        // 14 days after the first detection, to the second: nothing is older than 14 days yet.
        clock.advance(by: 12 * 86_400)
        #expect(try await store.write(.deleteExpiredRecords()).cachedKeyFiles == 0)
        clock.advance(by: 1)
        #expect(try await store.write(.deleteExpiredRecords()).cachedKeyFiles == 1)
        #expect(try await store.read(.cachedKeyFileHashes) == [file(2).hash])
        #expect(try await store.read(.cachedKeyFile(file(1).hash)) == nil)
        #expect(try await store.read(.cachedKeyFile(file(2).hash)) == Data(repeating: 2, count: 100))
        clock.advance(by: 2 * 86_400)
        #expect(try await store.write(.deleteExpiredRecords()).cachedKeyFiles == 1)
        #expect(try await store.read(.cachedKeyFileHashes).isEmpty)
    }

    @Test func expiredRecordsAreDeletedWhenTheStoreOpens() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("store.sqlite")
        let clock = TestClock(referenceDate)
        try ENDeviceStore(path: path, configuration: clock.configuration()).write(
            .addSightings([makeSighting(1, at: referenceDate)]))
        clock.advance(by: 15 * 86_400)
        #expect(try ENDeviceStore(path: path, configuration: clock.configuration()).read(.recordCounts).sightings == 0)
    }

    @Test func eraseAllDeletesEverythingAndTheStoreStaysUsable() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("store.sqlite")
        let store = try ENDeviceStore(path: path, configuration: TestClock(referenceDate).configuration())
        let today = ENIntervalNumber(date: referenceDate).rollingStart
        let secret = Data(repeating: 0xC3, count: 16)
        let cachedFile = Data("EK Export v1    a cached key file".utf8)
        try await store.write(.saveOwnKey(ENTemporaryExposureKey(keyData: secret, rollingStartNumber: today)))
        try await store.write(.addSightings((0..<100).map { makeSighting($0, at: referenceDate) }))
        try await store.write(
            .recordDetection(
                ENDetectionRecord(
                    date: referenceDate, kind: "v2", result: 1, processedKeyFileHashes: [Data([9])],
                    cachedKeyFiles: [ENCachedKeyFile(hash: Data(repeating: 9, count: 32), exportBinary: cachedFile)])))
        try await store.write(.setExposureNotificationEnabled(true))
        try await store.write(.setAuthorizationStatus(.authorized))
        try await store.write(.setPreAuthorization(ENPreAuthorization(authorizedAt: referenceDate)))

        try await store.write(.eraseAll)

        #expect(try await store.read(.ownKeys).isEmpty)
        #expect(try await store.read(.recordCounts) == ENStoreRecordCounts())
        #expect(try await store.read(.detections(as: Int.self)).isEmpty)
        #expect(try await store.read(.cachedKeyFileHashes).isEmpty)
        #expect(try await store.read(.unprocessedKeyFileHashes([Data([9])])) == [Data([9])])
        #expect(try await store.read(.rateLimitLedger(since: .distantPast)).isEmpty)
        #expect(try await store.read(.managerState) == ENManagerState())
        // Secure delete and the truncated log leave no copy of the erased key on disk.
        try store.close()
        #expect(try !fileContains(path, secret))
        #expect(try !fileContains(path + "-wal", secret))
        #expect(try !fileContains(path, cachedFile))
        #expect(try !fileContains(path + "-wal", cachedFile))
        // Still usable.
        let reopened = try ENDeviceStore(path: path, configuration: TestClock(referenceDate).configuration())
        try await reopened.write(.addSightings([makeSighting(1, at: referenceDate)]))
        #expect(try await reopened.read(.recordCounts).sightings == 1)
    }
}
