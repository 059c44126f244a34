public import ENCore
internal import ENKeyServer
package import ENSQLite
public import Foundation
internal import GRDB

/// A key server's storage on SQLite: the diagnosis keys published, their revisions, the export batches and the
/// signed files, in an SQLite file of its own (or in memory), for `ENDiagnosisKeyServer` or
/// `enserver`.
///
/// It implements the key server's storage protocols (`ENKeyServerStorage`), each primitive one transaction; the
/// publish rules and the exporter live in `ENKeyServer` and run the same on every storage:
///
/// ```swift
/// let store = try ENKeyServerSQLiteStore(path: "/var/lib/keyserver/keys.sqlite")
/// let server = ENDiagnosisKeyServer(storage: store, configuration: configuration)
/// try await server.postDiagnosisKeys(keys)
/// ```
///
/// Keys never expire here by themselves: what to publish, and for how long, is the server's policy
/// (`ENKeyServerExporter.deleteExpired()`).
public final class ENKeyServerSQLiteStore: Sendable {
    /// The store's database.
    let database: ENSQLiteDatabase
    /// The clock that dates what the store records when no date is given.
    public let clock: @Sendable () -> Date

    /// Opens (creating if needed) the key-server store in the file at `path`.
    ///
    /// An existing file is checked read-only first; one that is not a key-server store (a device store
    /// included), or was written by a newer version of this package, is left exactly as it was.
    ///
    /// - Throws: `ENError.Code.badFormat` when the file is not an SQLite database or not a key-server store;
    ///   `ENError.Code.unsupported` when a newer schema wrote it; `ENError.Code.dataInaccessible` when it
    ///   cannot be opened.
    public init(path: String, clock: @escaping @Sendable () -> Date = { Date() }) throws(ENError) {
        database = try ENSQLiteDatabase(path: path, schema: KeyServerSchema.schema)
        self.clock = clock
    }

    /// Opens an empty key-server store in memory, for tests and simulations.
    public init(clock: @escaping @Sendable () -> Date = { Date() }) throws(ENError) {
        database = try ENSQLiteDatabase(inMemory: KeyServerSchema.schema)
        self.clock = clock
    }

    /// Opens a store of `schema` at `path`: for the tests of the migration mechanism.
    package init(path: String, schema: SQLiteSchema, clock: @escaping @Sendable () -> Date) throws(ENError) {
        database = try ENSQLiteDatabase(path: path, schema: schema)
        self.clock = clock
    }

    /// The file the store lives in, or `nil` in memory.
    public var path: String? { database.path }

    /// Runs SQLite's `PRAGMA integrity_check` over the whole database.
    ///
    /// - Throws: `ENError.Code.badFormat` listing the first problems when the file is damaged.
    public func checkIntegrity() throws(ENError) { try database.checkIntegrity() }

    /// Closes the database connections. Any later use of the store throws.
    public func close() throws(ENError) { try database.close() }

    /// Runs `body` on a consistent snapshot.
    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(ENError) -> T {
        try await database.read(body)
    }

    /// Runs `body` in one transaction; with `truncatesLog`, the write-ahead log is truncated after the commit.
    func write<T: Sendable>(
        truncatesLog: Bool = false, _ body: @escaping @Sendable (Database) throws -> T
    ) async throws(ENError) -> T {
        try await database.write(ENSQLiteWriteMode(truncatesLog: truncatesLog), body)
    }
}
