import ENCore
import ENStore
import ENTestSupport
import Foundation
import Synchronization
import Testing

@Suite("Concurrency")
struct ConcurrencyTests {
    static let keyFilesPerDetection = 3
    static let filesPerDetection = 4
    static let sightingsPerBatch = 50

    /// One writer records detections (a result, 4 processed key files, 3 cached key files of 16 KiB and a ledger
    /// entry each: 9 rows in four tables) and adds sightings in batches of 50, while eight readers (half async, half synchronous on
    /// threads of their own) read the record counts in one snapshot each. Every snapshot must hold whole
    /// detections and whole batches only, counts never go backwards, and nothing is lost.
    @Test func readersNeverSeeHalfADetectionOrHalfABatch() async throws {
        let detections = 150
        let race = try await Self.race(transactional: true, detections: detections)
        #expect(race.tornReads == 0, "\(race.firstTorn.map { "\($0)" } ?? "")")
        #expect(race.reads > 8)
        var expected = ENStoreRecordCounts()
        expected.detections = detections
        expected.ledgerEntries = detections
        expected.processedKeyFiles = detections * Self.filesPerDetection
        expected.cachedKeyFiles = detections * Self.keyFilesPerDetection
        expected.sightings = detections * Self.sightingsPerBatch
        #expect(race.final == expected)
    }

    /// The control that shows the test above can fail: the very same updates run without their transaction
    /// (each statement committing on its own) are seen half-written by the same readers.
    @Test func withoutTheTransactionTheSameReadersSeeHalfWrites() async throws {
        let race = try await Self.race(transactional: false, detections: 2_000, stopAtFirstTornRead: true)
        #expect(race.tornReads > 0, "no reader saw a partial write in \(race.reads) reads")
    }

    struct Race {
        var reads: Int
        var tornReads: Int
        var firstTorn: ENStoreRecordCounts?
        var final: ENStoreRecordCounts
    }

    /// Whether a snapshot holds whole detections and whole sighting batches only.
    static func isWhole(_ counts: ENStoreRecordCounts) -> Bool {
        counts.ledgerEntries == counts.detections
            && counts.processedKeyFiles == counts.detections * filesPerDetection
            && counts.cachedKeyFiles == counts.detections * keyFilesPerDetection
            && counts.sightings % sightingsPerBatch == 0
    }

    static func race(transactional: Bool, detections: Int, stopAtFirstTornRead: Bool = false) async throws -> Race {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = try ENDeviceStore(
            path: directory.path("store.sqlite"), configuration: TestClock(referenceDate).configuration())
        let writerDone = Flag()
        let tally = Tally()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                defer { writerDone.value.store(true, ordering: .releasing) }
                for n in 0..<detections {
                    if stopAtFirstTornRead, tally.torn.load(ordering: .relaxed) > 0 { break }
                    let record = ENDetectionRecord(
                        date: referenceDate, kind: "v2", result: n,
                        processedKeyFileHashes: (0..<filesPerDetection).map { f in
                            Data(repeating: UInt8(f), count: 8) + withUnsafeBytes(of: UInt64(n)) { Data($0) }
                        },
                        cachedKeyFiles: (0..<keyFilesPerDetection).map { k in
                            ENCachedKeyFile(
                                hash: Data(repeating: UInt8(k), count: 24)
                                    + withUnsafeBytes(of: UInt64(n)) { Data($0) },
                                exportBinary: Data(repeating: UInt8(truncatingIfNeeded: n), count: 16_384))
                        })
                    let sightings = (0..<sightingsPerBatch).map {
                        makeSighting(n * sightingsPerBatch + $0, at: referenceDate)
                    }
                    if transactional {
                        try await store.write(.recordDetection(record))
                        try await store.write(.addSightings(sightings))
                    } else {
                        try await store.write(
                            ENStoreUpdate<ENDeviceStore, Int64>.recordDetection(record).withoutTransaction())
                        try await store.write(
                            ENStoreUpdate<ENDeviceStore, Void>.addSightings(sightings).withoutTransaction())
                    }
                }
            }
            for reader in 0..<8 {
                group.addTask {
                    var last = ENStoreRecordCounts()
                    repeat {
                        let counts =
                            reader % 2 == 0
                            ? try await store.read(.recordCounts) : try await recordCountsOnThread(store)
                        if !isWhole(counts) {
                            if tally.torn.add(1, ordering: .relaxed).newValue == 1 {
                                tally.firstTorn.withLock { $0 = counts }
                            }
                        }
                        #expect(counts.detections >= last.detections)
                        #expect(counts.sightings >= last.sightings)
                        last = counts
                        tally.reads.add(1, ordering: .relaxed)
                        await Task.yield()
                    } while !writerDone.value.load(ordering: .acquiring)
                }
            }
            try await group.waitForAll()
        }
        return Race(
            reads: tally.reads.load(ordering: .relaxed), tornReads: tally.torn.load(ordering: .relaxed),
            firstTorn: tally.firstTorn.withLock { $0 }, final: try await store.read(.recordCounts))
    }
}

/// Calls the synchronous API on a thread of its own, as an embedder's non-async code would: the
/// synchronous forms block their thread, so they must not run on the (small) cooperative pool.
func recordCountsOnThread(_ store: ENDeviceStore) async throws -> ENStoreRecordCounts {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result { try store.read(.recordCounts) })
        }
        thread.start()
    }
}

/// What the readers of a race saw, shared between their tasks.
final class Tally: Sendable {
    let reads = Atomic<Int>(0)
    let torn = Atomic<Int>(0)
    let firstTorn = Locked<ENStoreRecordCounts?>(nil)
}

/// A flag shared between tasks.
final class Flag: Sendable {
    let value = Atomic<Bool>(false)
}
