public import ENCore
internal import Foundation
internal import GRDB

/// Durable, private persistence for Exposure Notification: the device's key history and sightings, the
/// state and results of exposure detection, the sample app's own data, and a key server's posted keys.
///
/// A store is one SQLite database, reached through GRDB: a file in write-ahead-log mode (readers never
/// block the writer, and a crash never leaves half a write), or an in-memory database for tests. Every
/// write is one transaction. Every operation exists twice, synchronous and `async`, with the same name.
///
/// ```swift
/// let store = try ENStore(path: "/var/lib/app/exposure.sqlite")
/// try store.addSightings(sightings)
/// let recent = try await store.sightings(from: .now.addingTimeInterval(-14 * 86_400))
/// ```
///
/// The synchronous forms block the calling thread until the database answers: call them from threads,
/// dispatch queues or command-line code. From Swift concurrency (`async` code) use the `async` forms, which
/// the compiler selects there: blocking the small cooperative thread pool on a database connection can
/// starve the very tasks that would release it.
///
/// Errors are `ENError`s: a file that is not a database is `ENError.Code.badFormat`, a file written by
/// a newer schema is `ENError.Code.unsupported`, a wrong cipher key is `ENError.Code.dataInaccessible`;
/// none of these modifies the file.
public final class ENStore: Sendable {
    /// The file the store lives in, or `nil` for an in-memory store.
    public let path: String?
    /// The configuration the store was opened with.
    public let configuration: ENStoreConfiguration

    let writer: any DatabaseWriter

    /// Opens (creating if needed) the store in the file at `path` and brings its schema up to date.
    ///
    /// An existing file is checked read-only before anything is written to it, so a file that is not a
    /// store, or one written by a newer version of this package, is left exactly as it was.
    ///
    /// - Throws: `ENError.Code.badFormat` when the file is not an SQLite database or not a store;
    ///   `ENError.Code.unsupported` when a newer schema wrote it; `ENError.Code.dataInaccessible` when it
    ///   cannot be opened, or is encrypted and `configuration.cipher` is missing or holds the wrong key;
    ///   `ENError.Code.badParameter` when a cipher is given for a store created unencrypted.
    public init(path: String, configuration: ENStoreConfiguration = ENStoreConfiguration()) throws(ENError) {
        try Self.validateExistingFile(at: path)
        var grdb = Self.grdbConfiguration()
        grdb.busyMode = .timeout(10)
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: grdb)
        } catch {
            throw ENError.store(error, path: path)
        }
        self.path = path
        self.configuration = configuration
        self.writer = pool
        try prepare()
    }

    /// Opens an empty store in memory, for tests and short-lived tools.
    public init(inMemoryWith configuration: ENStoreConfiguration = ENStoreConfiguration()) throws(ENError) {
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(configuration: Self.grdbConfiguration())
        } catch {
            throw ENError.store(error, path: ":memory:")
        }
        self.path = nil
        self.configuration = configuration
        self.writer = queue
        try prepare()
    }

    /// A description of where the store lives, for error messages.
    var displayPath: String { path ?? ":memory:" }

    private static func grdbConfiguration() -> Configuration {
        var grdb = Configuration()
        grdb.label = "ENStore"
        grdb.prepareDatabase { db in
            // Deleted content is overwritten, so that erased keys and sightings do not linger in free pages.
            try db.execute(sql: "PRAGMA secure_delete = ON")
        }
        return grdb
    }

    /// Checks an existing file without writing to it: it must be an empty database or a store whose
    /// migrations this build knows.
    private static func validateExistingFile(at path: String) throws(ENError) {
        guard FileManager.default.fileExists(atPath: path) else { return }
        var grdb = Configuration()
        grdb.readonly = true
        grdb.busyMode = .timeout(10)
        do {
            let queue = try DatabaseQueue(path: path, configuration: grdb)
            defer { try? queue.close() }
            try queue.read { db in
                let tables = try String.fetchSet(
                    db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
                // No table, or only the migrations table (a first open interrupted before schema v1 committed):
                // a new store.
                if tables.subtracting(["grdb_migrations"]).isEmpty { return }
                guard tables.contains("grdb_migrations"), tables.contains("store_metadata") else {
                    throw ENError(
                        .badFormat,
                        "\(path) is an SQLite database but not an ENStore (it has no store schema)")
                }
                try checkNotSuperseded(db, path: path)
            }
        } catch {
            throw ENError.store(error, path: path)
        }
    }

    private static func checkNotSuperseded(_ db: Database, path: String) throws {
        let applied = try StoreSchema.migrator.appliedIdentifiers(db)
        let unknown = applied.subtracting(StoreSchema.versions)
        guard unknown.isEmpty else {
            throw ENError(
                .unsupported,
                "store \(path) was written by a newer version of this package (schema \(unknown.sorted().joined(separator: ", "))); this build knows schema \(StoreSchema.versions.joined(separator: ", "))"
            )
        }
    }

    /// Migrates, checks the encryption setting against the file, and deletes expired records.
    private func prepare() throws(ENError) {
        let path = displayPath
        let cipher = configuration.cipher
        let now = configuration.now()
        do {
            try writer.read { db in
                if try db.tableExists("grdb_migrations") { try Self.checkNotSuperseded(db, path: path) }
            }
            try StoreSchema.migrator.migrate(writer)
            try writer.write { db in
                try Self.checkEncryption(db, cipher: cipher, now: now, path: path)
            }
        } catch {
            throw ENError.store(error, path: path)
        }
        if configuration.deletesExpiredRecordsOnOpen {
            _ = try deleteExpiredRecords()
        }
    }

    private static let canaryPlaintext = Data("ENStore encryption canary".utf8)
    private static let canaryContext = Data("ENStore.canary".utf8)

    private static func checkEncryption(
        _ db: Database, cipher: (any ENAuthenticatedCipher)?, now: Date, path: String
    ) throws {
        guard let row = try Row.fetchOne(db, sql: "SELECT encrypted, canary FROM store_metadata WHERE id = 1") else {
            let canary = try cipher?.seal(canaryPlaintext, authenticating: canaryContext)
            try db.execute(
                sql: "INSERT INTO store_metadata (id, created_at, encrypted, canary) VALUES (1, ?, ?, ?)",
                arguments: [now.timeIntervalSinceReferenceDate, cipher != nil, canary])
            return
        }
        let encrypted: Bool = row["encrypted"]
        switch (encrypted, cipher) {
        case (false, nil):
            return
        case (false, .some):
            throw ENError(
                .badParameter,
                "store \(path) was created without encryption at rest; open it without a cipher, or erase it")
        case (true, nil):
            throw ENError(.dataInaccessible, "store \(path) is encrypted at rest; open it with its cipher")
        case (true, .some(let cipher)):
            let canary: Data? = row["canary"]
            let opened: Data
            do {
                opened = try cipher.open(canary ?? Data(), authenticating: canaryContext)
            } catch {
                throw ENError(
                    .dataInaccessible,
                    "the cipher does not open store \(path) (wrong key?): \(error.reason)")
            }
            guard opened == canaryPlaintext else {
                throw ENError(.dataInaccessible, "the cipher does not open store \(path) (wrong key?)")
            }
        }
    }

    // MARK: Access helpers (every public operation goes through these)

    func readSync<T>(_ body: (Database) throws -> T) throws(ENError) -> T {
        do { return try writer.read(body) } catch { throw ENError.store(error, path: displayPath) }
    }

    func writeSync<T>(_ body: (Database) throws -> T) throws(ENError) -> T {
        do { return try writer.write(body) } catch { throw ENError.store(error, path: displayPath) }
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(ENError) -> T {
        do { return try await writer.read(body) } catch { throw ENError.store(error, path: displayPath) }
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(ENError) -> T {
        do { return try await writer.write(body) } catch { throw ENError.store(error, path: displayPath) }
    }

    // MARK: Integrity and closing

    /// Runs SQLite's `PRAGMA integrity_check` over the whole file.
    ///
    /// - Throws: `ENError.Code.badFormat` listing the first problems when the file is damaged.
    public func checkIntegrity() throws(ENError) {
        let messages = try readSync { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
        guard messages == ["ok"] else {
            throw ENError(
                .badFormat,
                "store \(displayPath) is damaged: \(messages.prefix(5).joined(separator: "; "))")
        }
    }

    /// Closes the database connections. Any later use of the store throws.
    public func close() throws(ENError) {
        do { try writer.close() } catch { throw ENError.store(error, path: displayPath) }
    }
}
