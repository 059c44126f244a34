public import ENCore
public import ENStore
public import Foundation

/// A key server's storage: the diagnosis keys apps post, de-duplicated and in arrival order, and the export
/// batches they go into, in an SQLite file of its own.
///
/// It is an `ENPersistentStore` like `ENStore`, so its operations are request values run with `read(_:)` and
/// `write(_:)`, synchronously or `async`:
///
/// ```swift
/// let server = try ENKeyServerStore(path: "/var/lib/keyserver/keys.sqlite")
/// try server.write(.postDiagnosisKeys(keys))
/// let waiting = try await server.read(.diagnosisKeysAwaitingExport)
/// ```
///
/// Posted keys never expire here: what to publish, and for how long, is the server's policy.
public final class ENKeyServerStore: ENPersistentStore {
    /// The store's database.
    public let database: ENStoreDatabase
    /// The clock that dates posts and batches when no date is given.
    public let clock: @Sendable () -> Date

    /// Opens (creating if needed) the key-server store in the file at `path`.
    ///
    /// An existing file is checked read-only first; one that is not a key-server store (an `ENStore` file
    /// included), or was written by a newer version of this package, is left exactly as it was.
    ///
    /// - Throws: `ENError.Code.badFormat` when the file is not an SQLite database or not a key-server store;
    ///   `ENError.Code.unsupported` when a newer schema wrote it; `ENError.Code.dataInaccessible` when it
    ///   cannot be opened.
    public init(path: String, clock: @escaping @Sendable () -> Date = { Date() }) throws(ENError) {
        database = try ENStoreDatabase(path: path, schema: KeyServerSchema.schema)
        self.clock = clock
    }

    /// Opens an empty key-server store in memory, for tests and simulations.
    public init(clock: @escaping @Sendable () -> Date = { Date() }) throws(ENError) {
        database = try ENStoreDatabase(inMemory: KeyServerSchema.schema)
        self.clock = clock
    }
}
