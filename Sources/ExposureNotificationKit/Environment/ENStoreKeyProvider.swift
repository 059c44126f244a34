public import ENCore
public import Foundation

/// Where the framework's store gets the key that encrypts it at rest, as iOS keeps such a key in the keychain.
///
/// Set one in ``ENEnvironment/storeKeyProvider``: the manager then seals its own keys, sightings and cached key
/// files with AES-GCM under this key. The app keeps the key where the platform keeps secrets (the keychain, a
/// secret service, a hardware-backed store) and returns the same key every time.
///
/// ```swift
/// struct KeychainStoreKey: ENStoreKeyProvider {
///     func storeKey() throws(ENError) -> Data { try Keychain.readOrCreate("exposure-store", byteCount: 32) }
/// }
/// ENEnvironment.default = ENEnvironment(storeLocation: .directory(appSupport), storeKeyProvider: KeychainStoreKey())
/// ```
///
/// Whether a store is encrypted is decided when its file is created: a store created without a key provider
/// does not open with one (`ENError.Code.badParameter`), one created with a key does not open without it or with
/// another key (`ENError.Code.dataInaccessible`).
public protocol ENStoreKeyProvider: Sendable {
    /// The store's key: 32 bytes (AES-256) or 16 bytes (AES-128), the same on every call.
    ///
    /// - Throws: an `ENError` saying why the key is not available; the manager's operations fail with it.
    func storeKey() throws(ENError) -> Data
}

/// A key provider that holds its key in memory: for tests, and for apps that derive the key themselves.
public struct ENFixedStoreKey: ENStoreKeyProvider {
    private let key: Data

    /// A provider that returns `key` (32 or 16 bytes).
    public init(_ key: Data) { self.key = key }

    /// The key given to ``init(_:)``.
    public func storeKey() throws(ENError) -> Data { key }
}
