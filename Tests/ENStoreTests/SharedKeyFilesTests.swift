import ENCore
import ENCrypto
import ENStore
import ENTestSupport
import Foundation
import GRDB
import Synchronization
import Testing

@Suite("Key files shared by in-memory stores")
struct SharedKeyFilesTests {
    func keyFile(_ exportBinary: Data) -> ENCachedKeyFile {
        ENCachedKeyFile(hash: SHA256.hash(exportBinary), exportBinary: exportBinary)
    }

    func record(_ files: [ENCachedKeyFile], at date: Date) -> ENStoreUpdate<ENDeviceStore, Int64> {
        .recordDetection(ENDetectionRecord(date: date, kind: "v2", result: 1, cachedKeyFiles: files))
    }

    /// Bytes of `hash`'s row in the store's own table (empty when the shared copy holds them).
    func ownBytes(_ store: ENDeviceStore, _ hash: Data) throws -> Int? {
        try store.read(
            ENStoreQuery { _, db in
                try Int.fetchOne(
                    db, sql: "SELECT length(export_binary) FROM key_file_contents WHERE hash = ?", arguments: [hash])
            })
    }

    /// Two stores cache the same file: one copy, in the shared copy, read by both; the second store does not read
    /// the file at all; each store's rows stay its own.
    @Test func storesKeepOneCopyOfAFile() throws {
        let clock = TestClock(referenceDate)
        let shared = ENSharedKeyFiles()
        let binary = try Fixtures.data("export/generated/bare-export.bin")
        let file = keyFile(binary)
        let first = try ENDeviceStore(inMemoryWith: clock.configuration(), sharedKeyFiles: shared)
        let second = try ENDeviceStore(inMemoryWith: clock.configuration(), sharedKeyFiles: shared)
        let alone = try ENDeviceStore(inMemoryWith: clock.configuration())

        try first.write(record([file], at: clock.now))
        #expect(shared.count == 1 && shared.byteCount == binary.count)
        #expect(try ownBytes(first, file.hash) == 0)
        let reads = Counter()
        let unread = ENCachedKeyFile(hash: file.hash) { () throws(ENError) in
            reads.value.add(1, ordering: .relaxed)
            throw ENError(.internal, "the shared file was read again")
        }
        try second.write(record([unread], at: clock.now))
        #expect(reads.value.load(ordering: .relaxed) == 0)
        try alone.write(record([file], at: clock.now))
        #expect(shared.count == 1)
        #expect(try ownBytes(alone, file.hash) == binary.count)
        for store in [first, second, alone] {
            #expect(try store.read(.cachedKeyFileHashes) == [file.hash])
            #expect(try store.read(.cachedKeyFile(file.hash)) == binary)
        }

        // Each store's rows are its own: erasing one leaves the other's file readable.
        try first.write(.eraseAll)
        #expect(try first.read(.cachedKeyFile(file.hash)) == nil)
        #expect(try second.read(.cachedKeyFile(file.hash)) == binary)
    }

    /// A snapshot of a sharing store holds its own copy of each file; a store opened from it with a shared copy
    /// moves the file there, and one without reads it from its own database.
    @Test func snapshotsHoldTheirOwnCopies() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let clock = TestClock(referenceDate)
        let binary = try Fixtures.data("export/generated/bare-export.bin")
        let file = keyFile(binary)
        let store = try ENDeviceStore(inMemoryWith: clock.configuration(), sharedKeyFiles: ENSharedKeyFiles())
        try store.write(record([file], at: clock.now))
        let path = directory.path("snapshot.sqlite")
        try store.writeSnapshot(to: path)

        let plain = try ENDeviceStore(inMemoryCopyOf: path, configuration: clock.configuration())
        #expect(try ownBytes(plain, file.hash) == binary.count)
        #expect(try plain.read(.cachedKeyFile(file.hash)) == binary)

        let shared = ENSharedKeyFiles()
        let resumed = try ENDeviceStore(
            inMemoryCopyOf: path, configuration: clock.configuration(), sharedKeyFiles: shared)
        #expect(shared.contents(of: file.hash) == binary)
        #expect(try ownBytes(resumed, file.hash) == 0)
        #expect(try resumed.read(.cachedKeyFile(file.hash)) == binary)
    }

    /// A snapshot whose file differs from the shared copy under the same hash is refused.
    @Test func aSnapshotThatContradictsTheSharedCopyIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let clock = TestClock(referenceDate)
        let binary = try Fixtures.data("export/generated/bare-export.bin")
        let file = keyFile(binary)
        let store = try ENDeviceStore(inMemoryWith: clock.configuration())
        try store.write(record([file], at: clock.now))
        let path = directory.path("snapshot.sqlite")
        try store.writeSnapshot(to: path)

        let shared = ENSharedKeyFiles()
        shared.add(file.hash, Data("other bytes".utf8))
        expectCode(.badFormat) {
            _ = try ENDeviceStore(inMemoryCopyOf: path, configuration: clock.configuration(), sharedKeyFiles: shared)
        }
    }

    /// A store with a cipher seals its own files: sharing is refused.
    @Test func aStoreWithACipherDoesNotShare() throws {
        var configuration = TestClock(referenceDate).configuration()
        configuration.cipher = aesCipher([7])
        expectCode(.badParameter) {
            _ = try ENDeviceStore(inMemoryWith: configuration, sharedKeyFiles: ENSharedKeyFiles())
        }
    }
}
