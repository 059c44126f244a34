package import ENCore
internal import Foundation
package import GRDB
internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// The SQLite database behind one store: a file in write-ahead-log mode, or an in-memory database.
///
/// It has no operations of its own: a store's `read(_:)`
/// and `write(_:)` run requests against it. A file store is a
/// GRDB `DatabasePool` (readers never block the writer and see only committed transactions); an in-memory
/// store is a `DatabaseQueue`.
public final class ENSQLiteDatabase: Sendable {
    /// The file the database lives in, or `nil` in memory.
    public let path: String?

    package let writer: any DatabaseWriter

    /// Counts the writes whose mode advances it (``ENSQLiteWriteMode/advancesGeneration``), each counted before it
    /// runs, in the same serialized access: what was read inside a write that leaves the count alone stays true as
    /// long as ``writeGeneration`` has not moved (a write rolled back moves it too, which only costs a fresh read).
    private let generation = Atomic<UInt64>(0)

    /// The number of writes begun so far that may change any state (see ``ENSQLiteWriteMode/advancesGeneration``).
    /// Read inside a write, it is exact for that write's state.
    package var writeGeneration: UInt64 { generation.load(ordering: .acquiring) }

    /// Counts the writes that may change the device store's own keys (``ENSQLiteWriteMode/advancesKeyGeneration``),
    /// as ``writeGeneration`` counts every write: what was read of the own keys inside a write stays true as long as
    /// ``keyGeneration`` has not moved.
    private let keys = Atomic<UInt64>(0)

    /// The number of writes begun so far that may change the own keys (every write but those whose mode says it
    /// leaves them alone). Read inside a write, it is exact for that write's own keys.
    package var keyGeneration: UInt64 { keys.load(ordering: .acquiring) }

    /// Opens (creating if needed) the file at `path` as a store of `schema` and migrates it.
    ///
    /// An existing file is checked read-only first: it must be empty, or a store of this kind whose migrations
    /// this build knows, with the tables and columns those migrations made and no trigger or view of its own,
    /// and pass `validate` (run on the unmigrated file); a file not yet in write-ahead-log mode must also pass
    /// SQLite's `quick_check`. Otherwise it is left exactly as it was. A file not yet in write-ahead-log mode is
    /// then switched, migrated and prepared as a copy, renamed over the original only when every step succeeded.
    /// `prepare` runs after the migrations, in one transaction, for every file.
    package init(
        path: String, schema: SQLiteSchema, validate: (Database) throws -> Void = { _ in },
        prepare: @escaping @Sendable (Database) throws -> Void = { _ in }
    ) throws(ENError) {
        let inRollbackJournalMode = try Self.validateExistingFile(at: path, schema: schema, validate: validate)
        var configuration = Self.configuration(schema)
        configuration.busyMode = .timeout(10)
        if inRollbackJournalMode {
            try Self.upgradeThroughCopy(of: path, schema, configuration, prepare: prepare)
        }
        do {
            writer = try DatabasePool(path: path, configuration: configuration)
        } catch {
            throw ENError.store(error, path: path)
        }
        self.path = path
        try Self.migrate(writer, path: path, schema, prepare: prepare)
    }

    /// Opens an empty in-memory database with `schema`.
    package init(inMemory schema: SQLiteSchema, prepare: @escaping @Sendable (Database) throws -> Void = { _ in })
        throws(ENError)
    {
        do {
            let memory = try DatabaseQueue(configuration: Self.inMemoryConfiguration(schema))
            // A copy of the migrated empty database: compiling every migration's statements again for each of a
            // simulation's thousands of stores cost more than the rest of making them.
            try Self.migratedTemplate(schema).backup(to: memory)
            writer = memory
            // Migrated already, by this build: only the preparation runs.
            try writer.write(prepare)
        } catch {
            throw ENError.store(error, path: ":memory:")
        }
        path = nil
    }

    /// An in-memory database of `schema` with every migration applied and nothing else, made once per schema kind and
    /// migration list in the process.
    private static func migratedTemplate(_ schema: SQLiteSchema) throws -> DatabaseQueue {
        let key = ([schema.kind] + schema.versions).joined(separator: "\u{0}")
        return try templates.withLock { (templates: inout [String: DatabaseQueue]) throws -> DatabaseQueue in
            if let template = templates[key] { return template }
            let template = try DatabaseQueue(configuration: inMemoryConfiguration(schema))
            try schema.migrator.migrate(template)
            templates[key] = template
            return template
        }
    }

    private static let templates = Locked<[String: DatabaseQueue]>([:])

    /// Opens an in-memory database holding a copy of the snapshot file at `path` (see ``writeSnapshot(to:)``),
    /// checked as ``init(path:schema:validate:prepare:)`` checks a file, then migrated and prepared in memory. The
    /// file is only read, and closed before this returns.
    ///
    /// - Throws: `dataInaccessible` naming `path` when there is no file there; the checks' errors.
    package init(
        inMemoryCopyOf path: String, schema: SQLiteSchema, validate: (Database) throws -> Void = { _ in },
        prepare: @escaping @Sendable (Database) throws -> Void = { _ in }
    ) throws(ENError) {
        guard FileManager.default.fileExists(atPath: path) else {
            throw ENError(.dataInaccessible, "no snapshot to open", context: ENError.Context(file: path))
        }
        _ = try Self.validateExistingFile(at: path, schema: schema, validate: validate)
        do {
            var readOnly = Configuration()
            readOnly.readonly = true
            let source = try DatabaseQueue(path: path, configuration: readOnly)
            defer { try? source.close() }
            let memory = try DatabaseQueue(configuration: Self.inMemoryConfiguration(schema))
            try source.backup(to: memory)
            writer = memory
        } catch {
            throw ENError.store(error, path: path)
        }
        self.path = nil
        try Self.migrate(writer, path: path, schema, prepare: prepare)
    }

    /// Writes a copy of the whole database, as one committed state, to a new file at `path` (owner-only, mode
    /// 0600), which must not exist. The copy is a plain SQLite file written without a journal or flushes: whoever
    /// needs it to survive a crash writes it under a temporary name (or directory) and renames it.
    ///
    /// `complete` then runs in a transaction on the copy, before it is closed (to add what the database keeps
    /// outside itself).
    ///
    /// - Throws: `dataInaccessible` naming `path` when the file exists or cannot be written; what `complete` throws.
    package func writeSnapshot(to path: String, complete: (Database) throws -> Void = { _ in }) throws(ENError) {
        guard createOwnerOnlyFile(path) else {
            throw ENError(
                .dataInaccessible, "cannot create the snapshot: errno \(errno)", context: ENError.Context(file: path))
        }
        do {
            var configuration = Configuration()
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA journal_mode = OFF")
                try db.execute(sql: "PRAGMA synchronous = OFF")
            }
            let file = try DatabaseQueue(path: path, configuration: configuration)
            do {
                try writer.backup(to: file)
                try file.inTransaction { db in
                    try complete(db)
                    return .commit
                }
            } catch {
                try? file.close()
                throw error
            }
            try file.close()
        } catch {
            throw ENError.store(error, path: path)
        }
    }

    /// A description of where the database lives, for error messages.
    package var displayPath: String { path ?? ":memory:" }

    /// The most bytes of write-ahead log left on disk once a checkpoint has copied it into the database.
    package static let logSizeLimit = 4 << 20

    private static func configuration(_ schema: SQLiteSchema) -> Configuration {
        var configuration = Configuration()
        configuration.label = schema.kind
        configuration.prepareDatabase { db in
            // Deleted content is overwritten, so that erased keys and sightings do not linger in free pages.
            try db.execute(sql: "PRAGMA secure_delete = ON")
            // After a checkpoint, the log is cut back to at most 4 MiB on disk (a large transaction, an erase or an
            // import, can make it grow far beyond the 1,000 pages between checkpoints).
            try db.execute(sql: "PRAGMA journal_size_limit = \(Self.logSizeLimit)")
        }
        return configuration
    }

    /// The configuration of an in-memory database: 1 KiB pages instead of 4 KiB, set before anything is written. Every
    /// table and index takes at least a page, and a simulation keeps thousands of mostly small stores in memory.
    /// (A snapshot keeps the page size: ``writeSnapshot(to:)`` writes 1 KiB pages, which a copy back into memory
    /// needs.)
    private static func inMemoryConfiguration(_ schema: SQLiteSchema) -> Configuration {
        var configuration = configuration(schema)
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA page_size = \(inMemoryPageSize)") }
        return configuration
    }

    /// The page size of in-memory databases.
    package static let inMemoryPageSize = 1024

    /// Checks an existing file without writing to it (but for rolling back the transaction a crash left in a hot
    /// rollback journal).
    ///
    /// - Returns: whether the file holds a database not yet in write-ahead-log mode.
    private static func validateExistingFile(
        at path: String, schema: SQLiteSchema, validate: (Database) throws -> Void
    ) throws(ENError) -> Bool {
        guard FileManager.default.fileExists(atPath: path) else { return false }
        // Opening a store switches a file to write-ahead logging, which rewrites its header: a file not yet in
        // that mode (new, foreign or damaged) must prove it is sound before anything is written to it.
        let header = FileHandle(forReadingAtPath: path).flatMap { try? $0.read(upToCount: 20) } ?? Data()
        let inWALMode = header.count == 20 && header[header.startIndex + 18] == 2 && header[header.startIndex + 19] == 2
        var configuration = Configuration()
        // A process killed in a transaction before the file was in write-ahead-log mode (its first open, say)
        // leaves a hot rollback journal. A read-only connection cannot roll it back (SQLITE_READONLY_ROLLBACK:
        // "attempt to write a readonly database"), so then the check reads through a writable one, and SQLite rolls
        // the journal back before the first read: the file is as it was before that transaction, which is what
        // the journal is for.
        configuration.readonly = !FileManager.default.fileExists(atPath: path + "-journal")
        configuration.busyMode = .timeout(10)
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            try queue.read { db in
                if !header.isEmpty, !inWALMode {
                    let problems = try String.fetchAll(db, sql: "PRAGMA quick_check(1)")
                    guard problems == ["ok"] else {
                        throw ENError(
                            .badFormat, "a damaged SQLite database: \(problems.first ?? "quick_check failed")",
                            context: ENError.Context(file: path))
                    }
                }
                let tables = try String.fetchSet(
                    db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
                // No table, or only the migrations table (a first open interrupted before the first migration
                // committed): a new store.
                if tables.subtracting(["grdb_migrations"]).isEmpty { return }
                guard tables.contains("grdb_migrations"), tables.contains(schema.signatureTable) else {
                    throw ENError(
                        .badFormat,
                        "an SQLite database but not an \(schema.kind) (it has no \(schema.kind) schema)",
                        context: ENError.Context(file: path))
                }
                try schema.checkNotSuperseded(db, path: path)
                try schema.checkShape(db, path: path)
                try validate(db)
            }
        } catch {
            throw ENError.store(error, path: path)
        }
        return !header.isEmpty && !inWALMode
    }

    /// Opens a file not yet in write-ahead-log mode through a copy: switching to that mode rewrites the file's
    /// header, and the migrations and `prepare` commit on their own, so a step that fails after another has
    /// committed would leave the file changed. The copy is migrated and prepared in rollback-journal mode,
    /// switched to write-ahead logging and closed (which checkpoints it), then renamed over the original: the
    /// original is either untouched or replaced whole. A leftover copy from an interrupted open is removed first.
    private static func upgradeThroughCopy(
        of path: String, _ schema: SQLiteSchema, _ configuration: Configuration,
        prepare: @escaping @Sendable (Database) throws -> Void
    ) throws(ENError) {
        let copy = path + "-upgrading"
        let removeCopy = {
            for suffix in ["", "-journal", "-wal", "-shm"] {
                try? FileManager.default.removeItem(atPath: copy + suffix)
            }
        }
        removeCopy()
        defer { removeCopy() }
        do {
            try FileManager.default.copyItem(atPath: path, toPath: copy)
        } catch {
            throw ENError(
                .dataInaccessible, "cannot copy the store to upgrade it: \(error.localizedDescription)",
                context: ENError.Context(file: path))
        }
        do {
            let queue = try DatabaseQueue(path: copy, configuration: configuration)
            do {
                try migrate(queue, path: path, schema, prepare: prepare)
                let mode = try queue.writeWithoutTransaction { db in
                    try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
                }
                guard mode?.lowercased() == "wal" else {
                    throw ENError(
                        .dataInaccessible, "SQLite could not switch the store to write-ahead logging",
                        context: ENError.Context(file: path))
                }
            } catch {
                try? queue.close()
                throw error
            }
            try queue.close()
        } catch {
            throw ENError.store(error, path: path)
        }
        guard rename(copy, path) == 0 else {
            throw ENError(
                .dataInaccessible, "cannot replace the store with its upgraded copy: errno \(errno)",
                context: ENError.Context(file: path))
        }
    }

    /// Refuses a database written by a newer build, runs the schema's migrations and then `prepare`.
    private static func migrate(
        _ writer: some DatabaseWriter, path: String, _ schema: SQLiteSchema,
        prepare: @escaping @Sendable (Database) throws -> Void
    ) throws(ENError) {
        do {
            try writer.read { db in
                if try db.tableExists("grdb_migrations") { try schema.checkNotSuperseded(db, path: path) }
            }
            try schema.migrator.migrate(writer)
            try writer.write(prepare)
        } catch {
            throw ENError.store(error, path: path)
        }
    }

    // MARK: Running requests (every store operation goes through these)

    /// Runs `body`, which only reads. A file's readers are read-only connections that see one committed state
    /// through a transaction of their own. An in-memory database has one connection, used by one access at a time,
    /// so its reads need no transaction (GRDB would open one with a `BEGIN` compiled anew at each read), and they are
    /// not made read-only either: GRDB does that with `PRAGMA query_only`, which expires every prepared statement of
    /// the connection, so that each cached statement was compiled again after every read.
    package func read<T>(_ body: (Database) throws -> T) throws(ENError) -> T {
        do {
            if path == nil { return try writer.writeWithoutTransaction { db in try body(db) } }
            return try writer.read(body)
        } catch {
            throw ENError.store(error, path: displayPath)
        }
    }

    package func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(ENError) -> T {
        do {
            if path == nil {
                return try await writer.writeWithoutTransaction { db in try body(db) }
            }
            return try await writer.read(body)
        } catch {
            throw ENError.store(error, path: displayPath)
        }
    }

    package func write<T>(_ mode: ENSQLiteWriteMode, _ body: (Database) throws -> T) throws(ENError) -> T {
        do {
            return try writer.writeWithoutTransaction { db in
                if mode.advancesGeneration { generation.add(1, ordering: .acquiringAndReleasing) }
                if mode.advancesKeyGeneration { keys.add(1, ordering: .acquiringAndReleasing) }
                return try Self.run(db, mode, truncating: path != nil, body)
            }
        } catch {
            throw ENError.store(error, path: displayPath)
        }
    }

    package func write<T: Sendable>(_ mode: ENSQLiteWriteMode, _ body: @escaping @Sendable (Database) throws -> T)
        async throws(ENError) -> T
    {
        do {
            let isFile = path != nil
            return try await writer.writeWithoutTransaction { db in
                if mode.advancesGeneration { self.generation.add(1, ordering: .acquiringAndReleasing) }
                if mode.advancesKeyGeneration { self.keys.add(1, ordering: .acquiringAndReleasing) }
                return try Self.run(db, mode, truncating: isFile, body)
            }
        } catch {
            throw ENError.store(error, path: displayPath)
        }
    }

    /// Runs `body` in one transaction (unless `mode` says otherwise), then truncates the write-ahead log when
    /// `mode` asks for it, in the same access, so no other write comes between.
    private static func run<T>(
        _ db: Database, _ mode: ENSQLiteWriteMode, truncating isFile: Bool, _ body: (Database) throws -> T
    ) throws -> T {
        var result: T?
        if mode.transactional {
            // GRDB's `inTransaction` compiles its `BEGIN` and `COMMIT` at every transaction; these are compiled once
            // per connection.
            try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
            do {
                result = try body(db)
                try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
            } catch {
                try? db.rollback()
                throw error
            }
        } else {
            result = try body(db)
        }
        if mode.truncatesLog, isFile {
            try db.checkpoint(.truncate)
        }
        return result!
    }

    // MARK: Integrity and closing

    package func checkIntegrity() throws(ENError) {
        let messages = try read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
        guard messages == ["ok"] else {
            throw ENError(
                .badFormat, "the database is damaged: \(messages.prefix(5).joined(separator: "; "))",
                context: ENError.Context(file: displayPath))
        }
    }

    package func close() throws(ENError) {
        do { try writer.close() } catch { throw ENError.store(error, path: displayPath) }
    }
}

/// How an update runs: in one transaction (always, except in the tests that prove readers would otherwise see
/// half of it), and whether it truncates the write-ahead log afterwards (erasing).
package struct ENSQLiteWriteMode: Sendable {
    /// Whether the update runs in one transaction.
    package var transactional = true
    /// Whether the write-ahead log is truncated after the commit.
    package var truncatesLog = false
    /// Whether the write advances the database's ``ENSQLiteDatabase/writeGeneration`` (every write does, but those
    /// known to leave alone what callers keep from earlier reads: sightings received, a current key looked up).
    package var advancesGeneration = true
    /// Whether the write advances the database's ``ENSQLiteDatabase/keyGeneration``: every write does, but those
    /// that leave the device store's own keys alone (a detection's record, say) or that leave every state alone.
    package var advancesKeyGeneration = true

    /// Creates a mode.
    package init(transactional: Bool = true, truncatesLog: Bool = false) {
        self.transactional = transactional
        self.truncatesLog = truncatesLog
    }
}

/// Creates an empty file at `path`, readable and writable by its owner only; `false` when it exists or cannot be
/// made (`errno` says why).
private func createOwnerOnlyFile(_ path: String) -> Bool {
    let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { return false }
    close(descriptor)
    return true
}
