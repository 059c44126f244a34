internal import ENCore
internal import ENSQLite
public import Foundation
internal import GRDB

/// Exposure detection in the framework: results (the exposure checks), processed key files, cached key files
/// and the rate-limit ledger, which advance together.
extension ENStoreUpdate where Store == ENDeviceStore {
    /// Records a successful detection in one transaction: the result, the processed key files, the cached
    /// key files and a rate-limit ledger entry. Either all of it is stored or none of it.
    ///
    /// Each cached key file's `export.bin` is read (``ENCachedKeyFile/exportBinary``) inside the transaction,
    /// one file at a time, and only when its hash is neither cached yet nor staged by
    /// ``stageCachedKeyFiles(_:)``; with a cipher it is sealed like the other records. A staged `export.bin` is
    /// adopted as it is, so that the transaction only adds a small row for it.
    ///
    /// - Returns: the stored detection's identifier.
    /// - Throws: `ENError.Code.rateLimited` when `record.rateLimit` is already reached (nothing is written);
    ///   `ENError.Code.badParameter` when a processed key file's hash is empty, a cached key file's hash is
    ///   not 32 bytes or its `export.bin` is empty, or the result does not encode; whatever a cached key file's
    ///   `exportBinary` throws. Nothing is written in any of these cases.
    public static func recordDetection<Result>(_ record: ENDetectionRecord<Result>) -> ENStoreUpdate<
        ENDeviceStore, Int64
    > {
        .init { store, db in
            let result = try DetectionTables.encode(record.result)
            try DetectionTables.validate(record)
            return try DetectionTables.insert(db, record, result, store.configuration.cipher, store.keyFileContents)
        }
        .leavingOwnKeys()
    }

    /// Writes the `export.bin` of key files that a detection still in progress is going to cache, each in the
    /// store's own table for file contents, so that the detection's ``recordDetection(_:)`` only has to adopt
    /// them: a detection stages its verified files while it is still matching, and its final transaction stays
    /// small whatever the files' size.
    ///
    /// Staged contents are not part of the store's data until a recorded detection caches the same hash: no
    /// query sees them, ``ENStoreQuery/recordCounts`` does not count them, and ``discardStagedKeyFiles``, every
    /// open of the store, the retention sweep (``deleteExpiredRecords(now:)``) and ``eraseAll`` delete them. Staging
    /// is therefore only ever an optimisation: `recordDetection(_:)` writes any `export.bin` that is not
    /// (or no longer) staged itself.
    ///
    /// A file already cached or staged is left as it is and its `export.bin` is not read.
    ///
    /// - Returns: how many files were written.
    /// - Throws: `ENError.Code.badParameter` when a file's hash is not 32 bytes or its `export.bin` is empty;
    ///   whatever a file's `exportBinary` throws. Nothing is written in these cases.
    public static func stageCachedKeyFiles(_ files: [ENCachedKeyFile]) -> ENStoreUpdate<ENDeviceStore, Int> {
        .init { store, db in
            try DetectionTables.validateHashes(files)
            let indexed = files.enumerated().map { (index: $0.offset, file: $0.element) }
            return try DetectionTables.insertContents(db, indexed, store.configuration.cipher, store.keyFileContents)
        }
        .leavingOwnKeys()
    }

    /// Deletes every staged `export.bin` that no recorded detection has cached (see
    /// ``stageCachedKeyFiles(_:)``): what a cancelled or failed detection leaves behind.
    ///
    /// - Returns: how many were deleted.
    public static var discardStagedKeyFiles: ENStoreUpdate<ENDeviceStore, Int> {
        .init { store, db in try store.keyFileContents.deleteUnreferenced(db) }.leavingOwnKeys()
    }

    /// Records a failed detection that counts toward the rate limit: adds a rate-limit ledger entry at `date`
    /// (the configured clock's `now` by default); nothing else changes.
    ///
    /// Whether a failure counts is the caller's decision (Apple does not document it); why it failed is the
    /// app's to keep, in its own data.
    public static func recordFailedDetection(at date: Date? = nil) -> ENStoreUpdate<ENDeviceStore, Void> {
        .init { store, db in
            try db.execute(
                sql: "INSERT INTO detection_ledger (date) VALUES (?)",
                arguments: [SQLiteCodec.column(date ?? store.configuration.now())])
        }
        .leavingOwnKeys()
    }
}

extension ENStoreQuery where Store == ENDeviceStore {
    /// The hashes among `hashes` of key files that no recorded detection has processed, in the given order.
    public static func unprocessedKeyFileHashes(_ hashes: [Data]) -> ENStoreQuery<ENDeviceStore, [Data]> {
        .init { _, db in
            let statement = try db.cachedStatement(sql: "SELECT 1 FROM processed_key_files WHERE hash = ?")
            return try hashes.filter { hash in try Int.fetchOne(statement, arguments: [hash]) == nil }
        }
    }

    /// The hashes of the cached key files, in caching order (oldest first): read each file with
    /// ``cachedKeyFile(_:)``, one at a time.
    public static var cachedKeyFileHashes: ENStoreQuery<ENDeviceStore, [Data]> {
        .init { _, db in try Data.fetchAll(db.cachedStatement(sql: "SELECT hash FROM cached_key_files ORDER BY id")) }
    }

    /// The `export.bin` of the cached key file whose hash is `hash`, or `nil` when it is not cached.
    ///
    /// With a cipher, reading throws the cipher's error when the stored file does not open (altered, or moved
    /// from another file's row). Reading throws `ENError.Code.dataInaccessible` when the file is cached but its
    /// `export.bin` is gone or cannot be read (see ``ENDeviceStore/cachedKeyFilesDirectory``).
    public static func cachedKeyFile(_ hash: Data) -> ENStoreQuery<ENDeviceStore, Data?> {
        .init { store, db in
            guard try Int.fetchOne(db, sql: "SELECT 1 FROM cached_key_files WHERE hash = ?", arguments: [hash]) != nil
            else { return nil }
            guard let stored = try store.keyFileContents.read(db, hash) else {
                throw ENError(
                    .dataInaccessible, "the export.bin of cached key file \(hash.hexString) is gone",
                    context: ENError.Context(section: "cachedKeyFiles"))
            }
            guard let cipher = store.configuration.cipher else { return stored }
            return try cipher.open(stored, authenticating: DetectionTables.cachedKeyFileContext(hash))
        }
    }

    /// The dates of the rate-limit ledger entries at or after `date`, oldest first.
    public static func rateLimitLedger(since date: Date) -> ENStoreQuery<ENDeviceStore, [Date]> {
        .init { _, db in
            try Double.fetchAll(
                db.cachedStatement(sql: "SELECT date FROM detection_ledger WHERE date >= ? ORDER BY date, id"),
                arguments: [SQLiteCodec.column(date)]
            ).map(SQLiteCodec.date)
        }
    }

    /// The stored detections of `kind` (every kind when `nil`), oldest first, decoded as `Result`.
    ///
    /// Reading throws `ENError.Code.badFormat` when a stored result does not decode as `Result`.
    public static func detections<Result>(
        as type: Result.Type, kind: String? = nil
    ) -> ENStoreQuery<ENDeviceStore, [ENStoredDetection<Result>]> {
        .init { _, db in
            try DetectionTables.fetch(db, kind, latestOnly: false).map { (row) throws(ENError) in
                try DetectionTables.decode(row, as: type)
            }
        }
    }

    /// The stored detection with identifier `id` if it is of `kind` (of any kind when `nil`), decoded as `Result`;
    /// `nil` when there is none (it expired, say).
    ///
    /// Reading throws `ENError.Code.badFormat` when the stored result does not decode as `Result`.
    public static func detection<Result>(
        id: Int64, as type: Result.Type, kind: String? = nil
    ) -> ENStoreQuery<ENDeviceStore, ENStoredDetection<Result>?> {
        .init { _, db in
            try DetectionTables.fetch(db, kind, id: id).first.map { (row) throws(ENError) in
                try DetectionTables.decode(row, as: type)
            }
        }
    }

    /// The most recent stored detection of `kind` (of any kind when `nil`), or `nil` when there is none.
    public static func latestDetection<Result>(
        as type: Result.Type, kind: String? = nil
    ) -> ENStoreQuery<ENDeviceStore, ENStoredDetection<Result>?> {
        .init { _, db in
            try DetectionTables.fetch(db, kind, latestOnly: true).first.map { (row) throws(ENError) in
                try DetectionTables.decode(row, as: type)
            }
        }
    }
}

/// The tables a detection writes: `detections`, `processed_key_files`, `cached_key_files` with
/// `key_file_contents`, `detection_ledger`.
enum DetectionTables {
    struct StoredRow: Sendable {
        var id: Int64
        var date: Date
        var kind: String
        var result: Data
    }

    static func encode<Result: Encodable>(_ result: Result) throws(ENError) -> Data {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return try encoder.encode(result)
        } catch {
            throw ENError.badParameter("the detection result \(Result.self) does not encode: \(error)")
        }
    }

    static func decode<Result: Decodable>(
        _ row: StoredRow, as type: Result.Type
    ) throws(ENError) -> ENStoredDetection<Result> {
        do {
            let result = try JSONDecoder().decode(Result.self, from: row.result)
            return ENStoredDetection(id: row.id, date: row.date, kind: row.kind, result: result)
        } catch {
            throw ENError(
                .badFormat, "stored detection \(row.id) (\(row.kind)) does not decode as \(Result.self): \(error)")
        }
    }

    static func validate<Result>(_ record: ENDetectionRecord<Result>) throws(ENError) {
        if record.processedKeyFileHashes.contains(where: \.isEmpty) {
            throw .badParameter("a processed key file's hash is empty")
        }
        try validateHashes(record.cachedKeyFiles)
    }

    static func validateHashes(_ files: [ENCachedKeyFile]) throws(ENError) {
        for (index, file) in files.enumerated() where file.hash.count != cachedKeyFileHashLength {
            throw .badParameter(
                "a cached key file's hash is \(file.hash.count) bytes, expected \(cachedKeyFileHashLength) (SHA-256)",
                context: ENError.Context(section: "cachedKeyFiles", index: index, field: "hash"))
        }
    }

    /// The length of a cached key file's hash: a SHA-256.
    static let cachedKeyFileHashLength = 32

    /// Associated data that binds a sealed `export.bin` to its hash, so that it does not open in another row.
    static func cachedKeyFileContext(_ hash: Data) -> Data { Data("ENStore.cached_key_files.".utf8) + hash }

    static func insert<Result>(
        _ db: Database, _ record: ENDetectionRecord<Result>, _ result: Data, _ cipher: (any ENAuthenticatedCipher)?,
        _ contents: KeyFileContents
    ) throws -> Int64 {
        let date = SQLiteCodec.column(record.date)
        if let limit = record.rateLimit {
            let since = SQLiteCodec.column(record.date.addingTimeInterval(-limit.window))
            let count =
                try Int.fetchOne(
                    db.cachedStatement(sql: "SELECT COUNT(*) FROM detection_ledger WHERE date > ?"), arguments: [since])
                ?? 0
            guard count < limit.limit else {
                throw ENError(
                    .rateLimited,
                    "\(count) detections in the last \(Int(limit.window)) s reach the limit of \(limit.limit)")
            }
        }
        try db.cachedStatement(sql: "INSERT INTO detections (computed_at, kind, result) VALUES (?, ?, ?)")
            .execute(arguments: [date, record.kind, result])
        let id = db.lastInsertedRowID
        let fileStatement = try db.cachedStatement(
            sql: "INSERT OR IGNORE INTO processed_key_files (hash, processed_at, detection_id) VALUES (?, ?, ?)")
        for hash in record.processedKeyFileHashes {
            try fileStatement.execute(arguments: [hash, date, id])
        }
        try insertCachedKeyFiles(db, record.cachedKeyFiles, date, cipher, contents)
        if record.countsTowardRateLimit {
            try db.cachedStatement(sql: "INSERT INTO detection_ledger (date) VALUES (?)").execute(arguments: [date])
        }
        return id
    }

    /// Caches each file not cached yet: its `export.bin` is adopted when staged, otherwise read and written
    /// (only then); a file already cached keeps its contents and caching date.
    private static func insertCachedKeyFiles(
        _ db: Database, _ files: [ENCachedKeyFile], _ date: Double, _ cipher: (any ENAuthenticatedCipher)?,
        _ contents: KeyFileContents
    ) throws {
        let cached = try db.cachedStatement(sql: "SELECT 1 FROM cached_key_files WHERE hash = ?")
        let insert = try db.cachedStatement(sql: "INSERT INTO cached_key_files (hash, cached_at) VALUES (?, ?)")
        var seen = Set<Data>()
        var uncached: [(index: Int, file: ENCachedKeyFile)] = []
        for (index, file) in files.enumerated() where seen.insert(file.hash).inserted {
            if try Int.fetchOne(cached, arguments: [file.hash]) == nil { uncached.append((index, file)) }
        }
        try insertContents(db, uncached, cipher, contents)
        for (_, file) in uncached {
            try insert.execute(arguments: [file.hash, date])
        }
    }

    /// Writes the `export.bin` of each file whose contents are not stored yet (reading it only then), sealed
    /// with `cipher`, durably (``KeyFileContents``); returns how many were written. A file's index is its position
    /// for error contexts.
    @discardableResult
    static func insertContents(
        _ db: Database, _ files: [(index: Int, file: ENCachedKeyFile)], _ cipher: (any ENAuthenticatedCipher)?,
        _ contents: KeyFileContents
    ) throws -> Int {
        var (written, adopted) = (0, 0)
        for (index, file) in files {
            if try contents.contains(db, file.hash) {
                adopted += 1
                continue
            }
            if try contents.writeFromShared(db, file.hash) {
                written += 1
                continue
            }
            var exportBinary = try file.exportBinary()
            guard !exportBinary.isEmpty else {
                throw ENError.badParameter(
                    "a cached key file's export.bin is empty",
                    context: ENError.Context(section: "cachedKeyFiles", index: index, field: "exportBinary"))
            }
            if let cipher {
                exportBinary = try cipher.seal(exportBinary, authenticating: cachedKeyFileContext(file.hash))
            }
            try contents.write(db, file.hash, exportBinary)
            written += 1
        }
        // A file adopted as staged may have been renamed into place by a staging that failed before its flush of
        // the directory: flushed here too, before the transaction that refers to it commits.
        if written + adopted > 0 { try contents.syncDirectory() }
        return written
    }

    static func fetch(_ db: Database, _ kind: String?, latestOnly: Bool = false, id: Int64? = nil) throws
        -> [StoredRow]
    {
        var sql = "SELECT id, computed_at, kind, result FROM detections WHERE 1"
        var arguments: StatementArguments = []
        if let kind {
            sql += " AND kind = ?"
            arguments += [kind]
        }
        if let id {
            sql += " AND id = ?"
            arguments += [id]
        }
        sql += latestOnly ? " ORDER BY id DESC LIMIT 1" : " ORDER BY id"
        return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
            StoredRow(
                id: try row.stored(at: 0), date: SQLiteCodec.date(try row.stored(at: 1)), kind: try row.stored(at: 2),
                result: try row.stored(at: 3))
        }
    }
}
