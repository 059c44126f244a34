import ENCore
import ENStore
import ENTestSupport
import Foundation
import GRDB
import Testing

/// Encryption at rest with the real AES-GCM cipher (`ENCrypto.AESGCM.Key`, which the embedder passes in;
/// ENStore itself does not link ENCrypto). What is tested is the store's side: what it seals, that it binds and
/// checks, and that nothing sealed reaches the disk in the clear.
@Suite("Encryption at rest")
struct EncryptionTests {
    let secretKey = Data((0..<16).map { UInt8(0xD0 + $0) })
    let rpiBytes: [UInt8] = Array(repeating: 0xE7, count: 16)

    func fill(_ store: ENDeviceStore) throws {
        try store.write(.saveOwnKey(ENTemporaryExposureKey(keyData: secretKey, rollingStartNumber: 2_963_808)))
        let sighting = ENSighting(
            rpi: try RollingProximityIdentifier(bytes: rpiBytes), aem: AssociatedEncryptedMetadata(rawValue: 1),
            timestamp: referenceDate, rssi: -70)
        try store.write(.addSightings([sighting]))
        try store.write(
            .recordDetection(
                ENDetectionRecord(
                    date: referenceDate, kind: "v2", result: 0,
                    cachedKeyFiles: [ENCachedKeyFile(hash: keyFileHash, exportBinary: try exportBinary())])))
        try store.close()
    }

    /// A real `export.bin` of 172 bytes.
    func exportBinary() throws -> Data { try Fixtures.data("export/generated/bare-export.bin") }
    let keyFileHash = Data(repeating: 0x4B, count: 32)

    /// Whether `bytes` are in the store's files: the database, its log, and its cached key files beside it.
    func onDisk(_ path: String, _ bytes: Data) throws -> Bool {
        let keyFiles = (try? FileManager.default.contentsOfDirectory(atPath: path + "-keyfiles")) ?? []
        return try fileContains(path, bytes) || fileContains(path + "-wal", bytes)
            || keyFiles.contains { name in try fileContains(path + "-keyfiles/" + name, bytes) }
    }

    @Test func plainStoresKeepKeysAndIdentifiersInTheClear() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("plain.sqlite")
        try fill(try ENDeviceStore(path: path, configuration: TestClock(referenceDate).configuration()))
        // The control for the test below: the search does find clear bytes.
        #expect(try onDisk(path, secretKey))
        #expect(try onDisk(path, Data(rpiBytes)))
        #expect(try onDisk(path, try exportBinary()))
    }

    @Test func encryptedStoresSealKeysAndSightingsAndReadThemBack() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("sealed.sqlite")
        let clock = TestClock(referenceDate)
        let cipher = aesCipher(Array(repeating: 0x42, count: 32))
        try fill(try ENDeviceStore(path: path, configuration: clock.configuration(cipher: cipher)))
        #expect(try !onDisk(path, secretKey))
        #expect(try !onDisk(path, Data(rpiBytes)))
        #expect(try !onDisk(path, try exportBinary()))

        let store = try ENDeviceStore(path: path, configuration: clock.configuration(cipher: cipher))
        #expect(try store.read(.ownKeys).map(\.keyData) == [secretKey])
        #expect(try store.read(.sightings(from: .distantPast)).map(\.rpi.bytes) == [rpiBytes])
        #expect(try store.read(.cachedKeyFile(keyFileHash)) == exportBinary())
    }

    @Test func aWrongKeyOrAMissingCipherIsDataInaccessibleAndAddingOneLaterIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let sealed = directory.path("sealed.sqlite")
        let clock = TestClock(referenceDate)
        try fill(try ENDeviceStore(path: sealed, configuration: clock.configuration(cipher: aesCipher([1, 2, 3]))))
        expectCode(.dataInaccessible) {
            _ = try ENDeviceStore(path: sealed, configuration: clock.configuration(cipher: aesCipher([1, 2, 4])))
        }
        expectCode(.dataInaccessible) {
            _ = try ENDeviceStore(path: sealed, configuration: clock.configuration())
        }
        let plain = directory.path("plain.sqlite")
        try fill(try ENDeviceStore(path: plain, configuration: clock.configuration()))
        expectCode(.badParameter) {
            _ = try ENDeviceStore(path: plain, configuration: clock.configuration(cipher: aesCipher([1])))
        }
    }

    /// The cipher is checked on the file as it is, read-only, before any migration: a refused open of a file
    /// a later build would migrate leaves it byte for byte.
    @Test func aRefusedCipherLeavesAnOlderSchemaFileUnmigrated() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("store.sqlite")
        try fill(try ENDeviceStore(path: path, configuration: TestClock(referenceDate).configuration()))
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let logBefore = try? Data(contentsOf: URL(fileURLWithPath: path + "-wal"))
        expectCode(.badParameter) {
            _ = try ENDeviceStore(
                path: path, configuration: TestClock(referenceDate).configuration(cipher: aesCipher([1])),
                migrations: laterMigrations)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        // The log is as it was (a read-only look at a file in write-ahead-log mode may create an empty one).
        let logAfter = try? Data(contentsOf: URL(fileURLWithPath: path + "-wal"))
        #expect(logAfter == logBefore || (logBefore == nil && logAfter?.isEmpty == true))
        #expect(try migrationIdentifiers(path) == ["v1"])
    }

    /// A sealed key file is bound to its hash: copied over another file's contents, it does not open there.
    @Test func aSealedKeyFileDoesNotOpenInAnotherRow() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("sealed.sqlite")
        let configuration = TestClock(referenceDate).configuration(cipher: aesCipher([5]))
        let other = Data(repeating: 0x4C, count: 32)
        var store = try ENDeviceStore(path: path, configuration: configuration)
        try store.write(
            .recordDetection(
                ENDetectionRecord(
                    date: referenceDate, kind: "v2", result: 0,
                    cachedKeyFiles: [
                        ENCachedKeyFile(hash: keyFileHash, exportBinary: try exportBinary()),
                        ENCachedKeyFile(hash: other, exportBinary: Data("another export.bin".utf8)),
                    ])))
        #expect(try store.read(.cachedKeyFile(other)) == Data("another export.bin".utf8))
        let contents = try #require(store.cachedKeyFilesDirectory)
        try store.close()
        // Sealed on disk: the plain export.bin is not in the file.
        let sealed = try Data(contentsOf: URL(fileURLWithPath: contents + "/" + other.hexString))
        #expect(sealed != Data("another export.bin".utf8))
        try sealed.write(to: URL(fileURLWithPath: contents + "/" + keyFileHash.hexString))
        store = try ENDeviceStore(path: path, configuration: configuration)
        #expect(throws: ENError.self) { _ = try store.read(.cachedKeyFile(keyFileHash)) }
        // The control: the same sealed value still opens in its own row.
        #expect(try store.read(.cachedKeyFile(other)) == Data("another export.bin".utf8))
    }

    @Test func keyRollingWorksOnAnEncryptedStore() async throws {
        let store = try ENDeviceStore(inMemoryWith: TestClock(referenceDate).configuration(cipher: aesCipher([9])))
        let key = try await store.write(.currentKey(at: referenceDate) { Data(repeating: 0x77, count: 16) })
        let again = try await store.write(.currentKey(at: referenceDate.addingTimeInterval(600)) { Data(count: 16) })
        #expect(again == key)
        let ended = try await store.write(.endCurrentKey(at: referenceDate) { Data(repeating: 0x78, count: 16) })
        #expect(ended?.keyData == key.keyData)
        #expect(try await store.read(.ownKeys).map(\.keyData) == [key.keyData, Data(repeating: 0x78, count: 16)])
    }
}
