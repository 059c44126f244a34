public import ENCore
public import ENSQLite
internal import Foundation
package import GRDB

/// The device's Exposure Notification state, as the operating system keeps it for the framework: its own key
/// history, the sightings, the exposure checks (detection results, processed key files, cached key files,
/// the rate-limit ledger) and what an `ENManager` keeps across restarts (enabled flag, authorization status,
/// pre-authorization of key release).
///
/// The app's own data is the app's to keep (in storage of its own), a key server's lives in `ENKeyServerSQLite`'s
/// `ENKeyServerSQLiteStore`; nothing this store does writes them.
///
/// A store is one SQLite database, reached through GRDB: a file in write-ahead-log mode (readers never
/// block the writer, and a crash never leaves half a write), with its cached key files beside it
/// (``cachedKeyFilesDirectory``), or an in-memory database for tests. Every
/// operation is a request value, run synchronously or `async` through ``ENPersistentStore``'s accessors;
/// every write is one transaction.
///
/// ```swift
/// let store = try ENDeviceStore(path: "/var/lib/app/exposure.sqlite")
/// try store.write(.addSightings(sightings))
/// let recent = try await store.read(.sightings(from: .now.addingTimeInterval(-14 * 86_400)))
/// ```
///
/// Errors are `ENError`s: a file that is not a database is `ENError.Code.badFormat`, a file written by
/// a newer schema is `ENError.Code.unsupported`, a wrong cipher key is `ENError.Code.dataInaccessible`;
/// none of these modifies the file.
public final class ENDeviceStore: ENPersistentStore {
    /// The configuration the store was opened with.
    public let configuration: ENStoreConfiguration
    /// The store's database.
    public let database: ENSQLiteDatabase

    /// The database's write generation (`ENSQLiteDatabase.writeGeneration`): while it stays where it was when
    /// `ENStoreUpdate.currentKeySpan(at:makeKeyData:)` read a span, the span holds.
    package var writeGeneration: UInt64 { database.writeGeneration }

    /// The database's own-key generation (`ENSQLiteDatabase.keyGeneration`): advanced by every write that may change
    /// the own keys, so that a current key's span read at one value holds while it stays.
    package var keyGeneration: UInt64 { database.keyGeneration }

    /// Opens (creating if needed) the store in the file at `path` and brings its schema up to date.
    ///
    /// An existing file is checked read-only before anything is written to it, so a file that is not a
    /// store, one written by a newer version of this package, or one the configured cipher does not match, is
    /// left exactly as it was. A file of an older schema is migrated.
    ///
    /// - Throws: `ENError.Code.badFormat` when the file is not an SQLite database or not a store;
    ///   `ENError.Code.unsupported` when a newer schema wrote it; `ENError.Code.dataInaccessible` when it
    ///   cannot be opened, or is encrypted and `configuration.cipher` is missing or holds the wrong key;
    ///   `ENError.Code.badParameter` when a cipher is given for a store created unencrypted.
    public convenience init(path: String, configuration: ENStoreConfiguration = ENStoreConfiguration()) throws(ENError)
    {
        try self.init(path: path, configuration: configuration, migrations: FrameworkSchema.migrations)
    }

    /// Opens the store in the file at `path` with `migrations` instead of this build's (which they usually
    /// extend), as a later build would: for the tests of the migration mechanism.
    package init(
        path: String, configuration: ENStoreConfiguration = ENStoreConfiguration(),
        migrations: [(identifier: String, migrate: @Sendable (Database) throws -> Void)]
    ) throws(ENError) {
        let (cipher, now) = (configuration.cipher, configuration.now())
        let schema = SQLiteSchema(
            kind: FrameworkSchema.schema.kind, signatureTable: FrameworkSchema.schema.signatureTable,
            migrations: migrations)
        database = try ENSQLiteDatabase(
            path: path, schema: schema,
            validate: { db in try ENDeviceStore.checkEncryption(db, cipher: cipher, path: path) },
            prepare: { db in
                try ENDeviceStore.prepare(
                    db, configuration, cipher: cipher, now: now, path: path,
                    contents: KeyFileContents(storePath: path))
            })
        self.configuration = configuration
        sharedKeyFiles = nil
    }

    /// Opens an empty store in memory, for tests, short-lived tools and simulations.
    ///
    /// With `sharedKeyFiles`, the `export.bin` of the key files it caches live there, one copy for every store given
    /// the same ``ENSharedKeyFiles``, instead of in the store's own memory.
    ///
    /// - Throws: `ENError.Code.badParameter` when both `sharedKeyFiles` and a cipher are given (a store with a
    ///   cipher seals its own files).
    public init(
        inMemoryWith configuration: ENStoreConfiguration = ENStoreConfiguration(),
        sharedKeyFiles: ENSharedKeyFiles? = nil
    ) throws(ENError) {
        let (cipher, now) = (configuration.cipher, configuration.now())
        try Self.checkSharing(sharedKeyFiles, cipher: cipher)
        database = try ENSQLiteDatabase(
            inMemory: FrameworkSchema.schema,
            prepare: { db in
                try ENDeviceStore.prepare(
                    db, configuration, cipher: cipher, now: now, path: ":memory:",
                    contents: KeyFileContents(storePath: nil, shared: sharedKeyFiles))
            })
        self.configuration = configuration
        self.sharedKeyFiles = sharedKeyFiles
    }

    /// Opens an in-memory store holding a copy of the snapshot at `path` (one that ``writeSnapshot(to:)`` wrote),
    /// checked as ``init(path:configuration:)`` checks a file; the file is only read. The store then lives in
    /// memory and forgets the file: for simulations that keep thousands of devices without an open file each.
    ///
    /// - Throws: `ENError.Code.dataInaccessible` when there is no file at `path`; the errors of
    ///   ``init(path:configuration:)``.
    ///
    /// With `sharedKeyFiles`, the snapshot's cached files move there (see ``init(inMemoryWith:sharedKeyFiles:)``).
    ///
    /// - Throws: `ENError.Code.badFormat` when a snapshot's file differs from the shared one with the same hash;
    ///   `ENError.Code.badParameter` when both `sharedKeyFiles` and a cipher are given.
    package init(
        inMemoryCopyOf path: String, configuration: ENStoreConfiguration = ENStoreConfiguration(),
        sharedKeyFiles: ENSharedKeyFiles? = nil
    ) throws(ENError) {
        let (cipher, now) = (configuration.cipher, configuration.now())
        try Self.checkSharing(sharedKeyFiles, cipher: cipher)
        let contents = KeyFileContents(storePath: nil, shared: sharedKeyFiles)
        database = try ENSQLiteDatabase(
            inMemoryCopyOf: path, schema: FrameworkSchema.schema,
            validate: { db in try ENDeviceStore.checkEncryption(db, cipher: cipher, path: path) },
            prepare: { db in
                try contents.moveToShared(db)
                try ENDeviceStore.prepare(
                    db, configuration, cipher: cipher, now: now, path: ":memory:", contents: contents)
            })
        self.configuration = configuration
        self.sharedKeyFiles = sharedKeyFiles
    }

    /// Refuses to share the key files of a store with a cipher.
    private static func checkSharing(_ shared: ENSharedKeyFiles?, cipher: (any ENAuthenticatedCipher)?) throws(ENError)
    {
        if shared != nil, cipher != nil {
            throw .badParameter("a store with a cipher seals its own key files; it cannot share them")
        }
    }

    /// Writes the whole state of an in-memory store, as one committed state, to a new owner-only file at `path`
    /// (which must not exist), for ``init(inMemoryCopyOf:configuration:)`` to open later. The file is written
    /// without flushes: write it under a temporary name or directory and rename it.
    ///
    /// - Throws: `ENError.Code.badParameter` for a file store (its key files live beside its database);
    ///   `ENError.Code.dataInaccessible` when the file exists or cannot be written.
    package func writeSnapshot(to path: String) throws(ENError) {
        guard database.path == nil else {
            throw ENError(.badParameter, "only an in-memory store is written as a snapshot")
        }
        let contents = keyFileContents
        try database.writeSnapshot(to: path, complete: { db in try contents.copyShared(into: db) })
    }

    /// The open's last step, one transaction after the migrations: the encryption canary, the sweep of staged key
    /// file contents no detection recorded, then retention (when configured), so that an open that fails here
    /// commits nothing.
    private static func prepare(
        _ db: Database, _ configuration: ENStoreConfiguration, cipher: (any ENAuthenticatedCipher)?, now: Date,
        path: String, contents: KeyFileContents
    ) throws {
        try prepareEncryption(db, cipher: cipher, now: now, path: path)
        // Retention also deletes what a detection staged and did not record (it crashed); without it, only that.
        if configuration.deletesExpiredRecordsOnOpen {
            _ = try deleteExpiredRecords(db, configuration, now: now, contents: contents)
        } else {
            try contents.deleteUnreferenced(db)
        }
    }

    /// The directory beside the database file where the store keeps the `export.bin` of its cached key files, one
    /// file each named by its SHA-256 in hexadecimal (`PATH-keyfiles` for a store at `PATH`); `nil` for an
    /// in-memory store, which keeps them in its database.
    ///
    /// It is part of the store, like the database file and its `-wal` and `-shm` files: move, back up, protect or
    /// delete them together. Its files are written and flushed before the detection that caches them is recorded,
    /// and deleted when the cached files expire or the store is erased. A directory that is missing or altered
    /// makes a detection from the cache fail with `ENError.Code.dataInaccessible` (or the cipher's error).
    public var cachedKeyFilesDirectory: String? { keyFileContents.directory }

    /// Where the store keeps its cached key files' contents.
    var keyFileContents: KeyFileContents { KeyFileContents(storePath: database.path, shared: sharedKeyFiles) }

    /// Where an in-memory store keeps its cached files' bytes when it shares them, or `nil`.
    public let sharedKeyFiles: ENSharedKeyFiles?

    // MARK: Encryption at rest

    private static let canaryPlaintext = Data("ENStore encryption canary".utf8)
    private static let canaryContext = Data("ENStore.canary".utf8)

    /// After the migrations: records the encryption choice of a new store, and checks an existing one's.
    private static func prepareEncryption(
        _ db: Database, cipher: (any ENAuthenticatedCipher)?, now: Date, path: String
    ) throws {
        guard try Row.fetchOne(db, sql: "SELECT 1 FROM store_metadata WHERE id = 1") == nil else {
            return try checkEncryption(db, cipher: cipher, path: path)
        }
        let canary = try cipher?.seal(canaryPlaintext, authenticating: canaryContext)
        try db.execute(
            sql: "INSERT INTO store_metadata (id, created_at, encrypted, canary) VALUES (1, ?, ?, ?)",
            arguments: [SQLiteCodec.column(now), cipher != nil, canary])
    }

    /// Checks that `cipher` matches the store's choice (a store without metadata yet is new and passes).
    private static func checkEncryption(_ db: Database, cipher: (any ENAuthenticatedCipher)?, path: String) throws {
        guard let row = try Row.fetchOne(db, sql: "SELECT encrypted, canary FROM store_metadata WHERE id = 1") else {
            return
        }
        let encrypted: Bool = try row.stored("encrypted")
        switch (encrypted, cipher) {
        case (false, nil):
            return
        case (false, .some):
            throw ENError(
                .badParameter,
                "the store was created without encryption at rest; open it without a cipher, or erase it",
                context: ENError.Context(file: path))
        case (true, nil):
            throw ENError(
                .dataInaccessible, "the store is encrypted at rest; open it with its cipher",
                context: ENError.Context(file: path))
        case (true, .some(let cipher)):
            let canary: Data? = try row.stored("canary")
            let opened: Data
            do {
                opened = try cipher.open(canary ?? Data(), authenticating: canaryContext)
            } catch {
                throw ENError(
                    .dataInaccessible, "the cipher does not open the store (wrong key?)",
                    context: ENError.Context(file: path))
            }
            guard opened == canaryPlaintext else {
                throw ENError(
                    .dataInaccessible, "the cipher does not open the store (wrong key?)",
                    context: ENError.Context(file: path))
            }
        }
    }
}
