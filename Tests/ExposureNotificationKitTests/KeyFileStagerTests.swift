import ENCore
import ENCrypto
import ENStore
import ENTestSupport
import Foundation
import GRDB
import Testing

@testable import ExposureNotificationKit

@Suite("Key file staging during a detection")
struct KeyFileStagerTests {
    func contentsCount(_ path: String) throws -> Int {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        let rows = try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM key_file_contents") ?? -1 }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: path + "-keyfiles")) ?? []
        return rows + files.count(where: { !$0.hasSuffix(".tmp") })
    }

    func file(_ text: String, reads: Counter? = nil) -> ENCachedKeyFile {
        let bytes = Data(text.utf8)
        return ENCachedKeyFile(hash: SHA256.hash(bytes)) { () throws(ENError) in
            reads?.increment()
            return bytes
        }
    }

    /// Every file queued before `finish` is written, in the store's contents only, and the detection's transaction
    /// then adopts it without reading it again.
    @Test func queuedFilesAreWrittenBeforeFinishReturnsAndAdoptedWithoutReading() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("store.sqlite")
        let store = try ENDeviceStore(path: path)
        let stager = KeyFileStager(store: store)
        let files = (0..<20).map { file("export.bin \($0)") }
        for file in files { stager.stage(file) }
        stager.finish(discardingQueued: false)
        #expect(try contentsCount(path) == 20)
        #expect(try store.read(.recordCounts).cachedKeyFiles == 0)
        // Staged after finishing: ignored.
        stager.stage(file("late"))
        #expect(try contentsCount(path) == 20)

        let reads = Counter()
        try store.write(
            .recordDetection(
                ENDetectionRecord(
                    date: Date(), kind: "test", result: 1,
                    cachedKeyFiles: (0..<20).map { file("export.bin \($0)", reads: reads) })))
        #expect(reads.count == 0)
        #expect(try store.read(.cachedKeyFile(files[7].hash)) == Data("export.bin 7".utf8))
    }

    /// Finishing with `discardingQueued` drops what is still queued; the discard then removes what was written.
    @Test func discardingLeavesNothingStored() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("store.sqlite")
        let store = try ENDeviceStore(path: path)
        let stager = KeyFileStager(store: store)
        for index in 0..<50 { stager.stage(file("export.bin \(index)")) }
        stager.finish(discardingQueued: true)
        #expect(try contentsCount(path) <= 50)
        try store.write(.discardStagedKeyFiles)
        #expect(try contentsCount(path) == 0)
        #expect(try store.read(.recordCounts) == ENStoreRecordCounts())
    }
}
