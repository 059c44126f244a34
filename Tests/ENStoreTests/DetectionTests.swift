import ENCore
import ENCrypto
import ENStore
import ENTestSupport
import Foundation
import GRDB
import Synchronization
import Testing

@Suite("Detection results and framework state")
struct DetectionTests {
    func hash(_ n: UInt8) -> Data { Data(repeating: n, count: 32) }

    /// Real key files' `export.bin`s (from Tests/ENTestSupport/Fixtures/export), cached under their SHA-256.
    static let exportBinaryFixtures = [
        "export/generated/bare-export.bin", "export/en-internals/app_raw_export.bin",
        "export/en-internals/cpp_testdata_export.bin",
    ]

    func keyFile(_ exportBinary: Data) -> ENCachedKeyFile {
        ENCachedKeyFile(hash: SHA256.hash(exportBinary), exportBinary: exportBinary)
    }

    /// A cached key file whose contents must never be read; reading them counts in `reads` and fails.
    func unreadKeyFile(_ hash: Data, _ reads: Counter) -> ENCachedKeyFile {
        ENCachedKeyFile(hash: hash) { () throws(ENError) in
            reads.value.add(1, ordering: .relaxed)
            throw ENError(.internal, "the contents of an already cached file were read")
        }
    }

    @Test func aDetectionStoresResultAndAdvancesStateTogether() throws {
        let clock = TestClock(referenceDate)
        let store = try ENDeviceStore(inMemoryWith: clock.configuration())
        #expect(try store.read(.recordCounts) == ENStoreRecordCounts())
        let files = try Self.exportBinaryFixtures.map { path in keyFile(try Fixtures.data(path)) }
        let id = try store.write(
            .recordDetection(
                ENDetectionRecord(
                    date: referenceDate, kind: "v2", result: SampleSummary(matchedKeyCount: 2, maximumScore: 1_800),
                    processedKeyFileHashes: [hash(1), hash(2)], cachedKeyFiles: files)))
        var counts = ENStoreRecordCounts()
        (counts.detections, counts.processedKeyFiles, counts.cachedKeyFiles, counts.ledgerEntries) = (1, 2, 3, 1)
        #expect(try store.read(.recordCounts) == counts)
        #expect(try store.read(.unprocessedKeyFileHashes([hash(1), hash(3), hash(2)])) == [hash(3)])
        #expect(try store.read(.cachedKeyFileHashes) == files.map(\.hash))
        #expect(try store.read(.rateLimitLedger(since: .distantPast)) == [referenceDate])
        let stored = try #require(try store.read(.latestDetection(as: SampleSummary.self)))
        #expect(
            stored
                == ENStoredDetection(
                    id: id, date: referenceDate, kind: "v2",
                    result: SampleSummary(matchedKeyCount: 2, maximumScore: 1_800)))
    }

    /// Each real `export.bin` reads back byte for byte, from a file store reopened, one file per read.
    @Test func cachedKeyFilesReadBackWholeFromAFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("store.sqlite")
        let clock = TestClock(referenceDate)
        let binaries = try Self.exportBinaryFixtures.map { path in try Fixtures.data(path) }
        let store = try ENDeviceStore(path: path, configuration: clock.configuration())
        try await store.write(
            .recordDetection(
                ENDetectionRecord(date: referenceDate, kind: "v2", result: 1, cachedKeyFiles: binaries.map(keyFile))))
        try store.close()

        let reopened = try ENDeviceStore(path: path, configuration: clock.configuration())
        let hashes = try await reopened.read(.cachedKeyFileHashes)
        #expect(hashes == binaries.map { SHA256.hash($0) })
        for (hash, binary) in zip(hashes, binaries) {
            #expect(try await reopened.read(.cachedKeyFile(hash)) == binary)
        }
        #expect(try await reopened.read(.cachedKeyFile(hash(7))) == nil)
        #expect(try await reopened.read(.cachedKeyFile(Data())) == nil)
    }

    /// The same file in two detections (and twice in one) is cached once, with its first contents and date;
    /// the later copies' contents are never read.
    @Test func aFileCachedTwiceIsStoredOnceAndNotReadAgain() async throws {
        let clock = TestClock(referenceDate)
        let store = try ENDeviceStore(inMemoryWith: clock.configuration())
        let binary = try Fixtures.data("export/generated/bare-export.bin")
        let reads = Counter()
        let file = keyFile(binary)
        try await store.write(
            .recordDetection(
                ENDetectionRecord(
                    date: clock.now, kind: "v2", result: 1, cachedKeyFiles: [file, unreadKeyFile(file.hash, reads)])))
        clock.advance(by: 3_600)
        try await store.write(
            .recordDetection(
                ENDetectionRecord(
                    date: clock.now, kind: "v2", result: 2,
                    cachedKeyFiles: [unreadKeyFile(file.hash, reads), keyFile(Data("another file".utf8))])))
        #expect(reads.value.load(ordering: .relaxed) == 0)
        #expect(try await store.read(.cachedKeyFileHashes) == [file.hash, SHA256.hash(Data("another file".utf8))])
        #expect(try await store.read(.cachedKeyFile(file.hash)) == binary)
        #expect(try await store.read(.recordCounts).cachedKeyFiles == 2)
        #expect(try await store.read(.detections(as: Int.self)).map(\.result) == [1, 2])
    }

    /// Staged files are adopted by the detection that caches them (their contents are not read again), are not
    /// part of the store's data until then, and are deleted by a discard, by the next open and by retention.
    @Test func stagedKeyFilesAreAdoptedOrDiscarded() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("store.sqlite")
        let clock = TestClock(referenceDate)
        let store = try ENDeviceStore(path: path, configuration: clock.configuration())
        let binaries = try Self.exportBinaryFixtures.map { path in try Fixtures.data(path) }
        let files = binaries.map(keyFile)
        let reads = Counter()

        #expect(try await store.write(.stageCachedKeyFiles(files)) == 3)
        // Staged again, or staged once cached: nothing is read or written.
        #expect(try await store.write(.stageCachedKeyFiles(files.map { unreadKeyFile($0.hash, reads) })) == 0)
        #expect(try await store.read(.recordCounts) == ENStoreRecordCounts())
        #expect(try await store.read(.cachedKeyFile(files[0].hash)) == nil)
        #expect(try storedContents(path) == 3)

        // The detection adopts the first two without reading them; the third stays staged only.
        try await store.write(
            .recordDetection(
                ENDetectionRecord(
                    date: clock.now, kind: "v2", result: 1,
                    cachedKeyFiles: files.prefix(2).map { unreadKeyFile($0.hash, reads) })))
        #expect(reads.value.load(ordering: .relaxed) == 0)
        #expect(try await store.read(.cachedKeyFileHashes) == files.prefix(2).map(\.hash))
        for (file, binary) in zip(files.prefix(2), binaries) {
            #expect(try await store.read(.cachedKeyFile(file.hash)) == binary)
        }
        #expect(try await store.read(.cachedKeyFile(files[2].hash)) == nil)
        #expect(try await store.read(.recordCounts).cachedKeyFiles == 2)

        // A discard deletes the one not adopted, and only it.
        #expect(try await store.write(.discardStagedKeyFiles) == 1)
        #expect(try storedContents(path) == 2)

        // Staged and left behind (a crash): the next open deletes it, with retention on open or without.
        #expect(try await store.write(.stageCachedKeyFiles([files[2]])) == 1)
        try store.close()
        let withoutRetention = try ENDeviceStore(
            path: path, configuration: ENStoreConfiguration(now: { referenceDate }, deletesExpiredRecordsOnOpen: false))
        #expect(try storedContents(path) == 2)
        #expect(try await withoutRetention.write(.stageCachedKeyFiles([files[2]])) == 1)
        try withoutRetention.close()
        let reopened = try ENDeviceStore(path: path, configuration: clock.configuration())
        #expect(try storedContents(path) == 2)

        // Staged and then not staged any more (another sweep came first): the detection writes it itself.
        #expect(try await reopened.write(.stageCachedKeyFiles([files[2]])) == 1)
        #expect(try await reopened.write(.discardStagedKeyFiles) == 1)
        try await reopened.write(
            .recordDetection(ENDetectionRecord(date: clock.now, kind: "v2", result: 2, cachedKeyFiles: [files[2]])))
        #expect(try await reopened.read(.cachedKeyFile(files[2].hash)) == binaries[2])

        // Retention deletes the expired files' contents with them.
        clock.advance(by: 15 * 86_400)
        #expect(try await reopened.write(.deleteExpiredRecords()).cachedKeyFiles == 3)
        #expect(try storedContents(path) == 0)
    }

    /// Staging refuses what recording refuses, and writes nothing then.
    @Test func stagingBadFilesWritesNothing() async throws {
        let store = try ENDeviceStore(inMemoryWith: TestClock(referenceDate).configuration())
        let error = await #expect(throws: ENError.self) {
            try await store.write(
                .stageCachedKeyFiles([
                    keyFile(Data([1])), ENCachedKeyFile(hash: Data([1, 2]), exportBinary: Data([3])),
                ]))
        }
        #expect(error?.context == ENError.Context(section: "cachedKeyFiles", index: 1, field: "hash"))
        let empty = await #expect(throws: ENError.self) {
            try await store.write(
                .stageCachedKeyFiles([keyFile(Data([1])), ENCachedKeyFile(hash: hash(4), exportBinary: Data())]))
        }
        #expect(empty?.context == ENError.Context(section: "cachedKeyFiles", index: 1, field: "exportBinary"))
        #expect(try await store.write(.discardStagedKeyFiles) == 0)
    }

    /// An error thrown while a file is read aborts the whole detection, and is the error the caller sees.
    @Test func aFileThatCannotBeReadWritesNothing() async throws {
        let clock = TestClock(referenceDate)
        let store = try ENDeviceStore(inMemoryWith: clock.configuration())
        try await store.write(
            .recordDetection(
                ENDetectionRecord(
                    date: clock.now, kind: "v2", result: 1, processedKeyFileHashes: [hash(1)],
                    cachedKeyFiles: [keyFile(Data("first".utf8))])))
        let before = try await store.read(.recordCounts)
        let failure = ENError(.dataInaccessible, "export.bin vanished", context: ENError.Context(file: "batch-2.zip"))
        let error = await #expect(throws: ENError.self) {
            try await store.write(
                .recordDetection(
                    ENDetectionRecord(
                        date: clock.now, kind: "v2", result: 2, processedKeyFileHashes: [hash(2)],
                        cachedKeyFiles: [
                            keyFile(Data("second".utf8)),
                            ENCachedKeyFile(hash: hash(3)) { () throws(ENError) in throw failure },
                        ])))
        }
        #expect(error?.code == .dataInaccessible)
        #expect(error?.context == failure.context)
        #expect(try await store.read(.recordCounts) == before)
        #expect(try await store.read(.detections(as: Int.self)).map(\.result) == [1])
        #expect(try await store.read(.rateLimitLedger(since: .distantPast)) == [referenceDate])
        #expect(try await store.read(.unprocessedKeyFileHashes([hash(1), hash(2)])) == [hash(2)])
        #expect(try await store.read(.cachedKeyFileHashes) == [SHA256.hash(Data("first".utf8))])
    }

    @Test func theRateLimitIsCheckedInsideTheTransaction() async throws {
        let clock = TestClock(referenceDate)
        let store = try ENDeviceStore(inMemoryWith: clock.configuration())
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
        let store = try ENDeviceStore(inMemoryWith: clock.configuration())
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
        let store = try ENDeviceStore(inMemoryWith: TestClock(referenceDate).configuration())
        try store.write(
            .recordDetection(
                ENDetectionRecord(
                    date: referenceDate, kind: "v1", result: [SampleExposure(date: referenceDate, duration: 300)])))
        try store.write(
            .recordDetection(
                ENDetectionRecord(
                    date: referenceDate, kind: "v2", result: SampleSummary(matchedKeyCount: 1, maximumScore: 9))))
        #expect(
            try store.read(.detections(as: [SampleExposure].self, kind: "v1")).map(\.result) == [
                [SampleExposure(date: referenceDate, duration: 300)]
            ])
        #expect(try store.read(.latestDetection(as: SampleSummary.self, kind: "v2"))?.result.maximumScore == 9)
        #expect(try store.read(.latestDetection(as: SampleSummary.self, kind: "v3")) == nil)
        expectCode(.badFormat) { _ = try store.read(.latestDetection(as: SampleSummary.self, kind: "v1")) }
    }

    @Test func invalidInputWritesNothing() throws {
        let store = try ENDeviceStore(inMemoryWith: TestClock(referenceDate).configuration())
        let reads = Counter()
        // A hash that is not a SHA-256 is refused before any file is read.
        for badHash in [Data(), Data(count: 31), Data(count: 33)] {
            let error = #expect(throws: ENError.self) {
                try store.write(
                    .recordDetection(
                        ENDetectionRecord(
                            date: referenceDate, kind: "v2", result: 1, processedKeyFileHashes: [hash(1)],
                            cachedKeyFiles: [unreadKeyFile(hash(2), reads), unreadKeyFile(badHash, reads)])))
            }
            #expect(error?.code == .badParameter)
            #expect(error?.context == ENError.Context(section: "cachedKeyFiles", index: 1, field: "hash"))
        }
        #expect(reads.value.load(ordering: .relaxed) == 0)
        // An empty export.bin is refused, and the file read before it is not kept.
        let error = #expect(throws: ENError.self) {
            try store.write(
                .recordDetection(
                    ENDetectionRecord(
                        date: referenceDate, kind: "v2", result: 1,
                        cachedKeyFiles: [keyFile(Data([1])), ENCachedKeyFile(hash: hash(4), exportBinary: Data())])))
        }
        #expect(error?.code == .badParameter)
        #expect(error?.context == ENError.Context(section: "cachedKeyFiles", index: 1, field: "exportBinary"))
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

/// A count shared with `@Sendable` closures.
final class Counter: Sendable {
    let value = Atomic<Int>(0)
}
