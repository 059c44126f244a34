import ENCore
import ENSimulator
import ENTestSupport
import ExposureNotificationKit
import Foundation
import Testing

@Suite("The framework's store on disk: encrypted with the app's key, readable by its owner only")
struct StoreProtectionTests {
    /// Every byte of every file under `directory` (the database, its write-ahead log and shared memory, the cached
    /// key files).
    func allBytes(under directory: URL) throws -> [Data] {
        let files =
            FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL } ?? []
        return try files.filter { !$0.hasDirectoryPath }.map { try Data(contentsOf: $0) }
    }

    /// Keys released by a manager on `directory`, with the store left open (its log not checkpointed).
    func releasedKeys(
        _ fixture: Fixture, directory: URL, keyProvider: (any ENStoreKeyProvider)?
    ) async throws -> (ENManager, [ENTemporaryExposureKey]) {
        var environment = fixture.environment(
            entitlements: [.exposureNotification, .testDiagnosisKeys], storeLocation: .directory(directory))
        environment.storeKeyProvider = keyProvider
        let manager = ENManager(environment: environment)
        manager.dispatchQueue = DispatchQueue(label: "test handlers")
        try await manager.activate()
        try await manager.setExposureNotificationEnabled(true)
        fixture.clock.advance(by: 86_400)
        var keys = try await manager.getTestDiagnosisKeys()
        keys += try await manager.getDiagnosisKeys()
        return (manager, keys)
    }

    @Test("with a key provider no key data appears in the store's files, write-ahead log included")
    func noKeyDataOnDisk() async throws {
        for encrypted in [false, true] {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let provider = encrypted ? ENFixedStoreKey(Data((0..<32).map { UInt8($0) })) : nil
            let (manager, keys) = try await releasedKeys(Fixture(), directory: directory.url, keyProvider: provider)
            #expect(keys.count >= 2)
            let files = try allBytes(under: directory.url)
            #expect(FileManager.default.fileExists(atPath: directory.path("ExposureNotificationFramework.sqlite-wal")))
            let found = keys.filter { key in files.contains { $0.range(of: key.keyData) != nil } }
            if encrypted {
                #expect(found.isEmpty, "key data in the clear in the encrypted store's files")
            } else {
                #expect(!found.isEmpty, "the unencrypted store holds the keys in the clear: the check can fail")
            }
            manager.invalidate()
        }
    }

    @Test("a key provider with a key of the wrong size is badParameter, naming the size")
    func wrongKeySize() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        var environment = Fixture().environment(storeLocation: .directory(directory.url))
        environment.storeKeyProvider = ENFixedStoreKey(Data(count: 7))
        let manager = ENManager(environment: environment)
        await #expect {
            try await manager.activate()
        } throws: { error in
            (error as? ENError)?.code == .badParameter && "\(error)".contains("7 bytes")
        }
    }

    @Test("the store's directory is 0700 and its files 0600, whatever the umask")
    func fileModes() async throws {
        let parent = try TemporaryDirectory()
        defer { parent.cleanUp() }
        let directory = parent.url.appendingPathComponent("state/framework")
        let fixture = Fixture()
        let manager = try await fixture.enabledManager(storeLocation: .directory(directory))
        _ = try await manager.getDiagnosisKeys()
        func mode(_ url: URL) throws -> Int {
            try #require(FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int) & 0o777
        }
        #expect(try mode(directory) == 0o700)
        for name in ["ExposureNotificationFramework.sqlite", "ExposureNotificationFramework.sqlite-wal"] {
            #expect(try mode(directory.appendingPathComponent(name)) == 0o600, "\(name)")
        }
        manager.invalidate()
    }
}
