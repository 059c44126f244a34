import ENCore
import ENStore
import ENTestSupport
import Foundation
import Synchronization
import Testing

@Suite("Concurrency")
struct ConcurrencyTests {
    /// One writer adds sightings in batches of 50 while eight readers (half async, half synchronous on
    /// threads of their own) read concurrently: every read sees
    /// whole batches only, counts never go backwards, and nothing is lost.
    @Test func manyReadersAndOneWriter() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = try ENStore(
            path: directory.path("store.sqlite"), configuration: TestClock(referenceDate).configuration())
        let batches = 40
        let batchSize = 50
        let writerDone = Flag()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                defer { writerDone.value.store(true, ordering: .releasing) }
                for batch in 0..<batches {
                    let sightings = (0..<batchSize).map { makeSighting(batch * batchSize + $0, at: referenceDate) }
                    try await store.addSightings(sightings)
                    try await store.recordDetection(
                        ENDetectionRecord(date: referenceDate, kind: "v2", result: batch, nextKeyFileIndex: batch + 1))
                }
            }
            for reader in 0..<8 {
                group.addTask {
                    var lastCount = 0
                    var reads = 0
                    repeat {
                        let count: Int
                        if reader % 2 == 0 {
                            count = try await store.sightings(from: .distantPast).count
                        } else {
                            count = try await syncSightingCountOnThread(store)
                        }
                        #expect(count % batchSize == 0)
                        #expect(count >= lastCount)
                        // The detection state and results move together.
                        let state = try await store.detectionState()
                        let results = try await store.detections(as: Int.self)
                        #expect(results.count >= state.nextKeyFileIndex)
                        lastCount = count
                        reads += 1
                        await Task.yield()
                    } while !writerDone.value.load(ordering: .acquiring)
                    #expect(reads > 0)
                }
            }
            try await group.waitForAll()
        }
        #expect(try await store.sightingCount() == batches * batchSize)
        #expect(try await store.detectionState().nextKeyFileIndex == batches)
    }
}

/// Calls the synchronous API on a thread of its own, as an embedder's non-async code would: the
/// synchronous forms block their thread, so they must not run on the (small) cooperative pool.
func syncSightingCountOnThread(_ store: ENStore) async throws -> Int {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result { try store.sightingCount() })
        }
        thread.start()
    }
}

/// A flag shared between tasks.
final class Flag: Sendable {
    let value = Atomic<Bool>(false)
}
