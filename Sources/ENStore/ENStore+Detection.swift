public import ENCore
public import Foundation
internal import GRDB

/// Exposure detection in the framework: results (the exposure checks), processed key files, cached diagnosis
/// keys and the rate-limit ledger, which advance together.
extension ENStoreUpdate where Store == ENStore {
    /// Records a successful detection in one transaction: the result, the processed key files, the cached
    /// diagnosis keys and a rate-limit ledger entry. Either all of it is stored or none of it.
    ///
    /// - Returns: the stored detection's identifier.
    /// - Throws: `ENError.Code.rateLimited` when `record.rateLimit` is already reached (nothing is written);
    ///   `ENError.Code.badParameter` when a cached key does not validate, a hash is empty, or the result does
    ///   not encode.
    public static func recordDetection<Result>(_ record: ENDetectionRecord<Result>) -> ENStoreUpdate<ENStore, Int64> {
        .init { _, db in
            let result = try DetectionTables.encode(record.result)
            try DetectionTables.validate(record)
            return try DetectionTables.insert(db, record, result)
        }
    }

    /// Records a failed detection that counts toward the rate limit: adds a rate-limit ledger entry at `date`
    /// (the configured clock's `now` by default); nothing else changes.
    ///
    /// Whether a failure counts is the caller's decision (Apple does not document it); why it failed is the
    /// app's to keep, see `ENStoreUpdate.recordDetectionFailure(_:)` for an ``ENAppStore``.
    public static func recordFailedDetection(at date: Date? = nil) -> ENStoreUpdate<ENStore, Void> {
        .init { store, db in
            try db.execute(
                sql: "INSERT INTO detection_ledger (date) VALUES (?)",
                arguments: [StoreCodec.column(date ?? store.configuration.now())])
        }
    }
}

extension ENStoreQuery where Store == ENStore {
    /// The hashes among `hashes` of key files that no recorded detection has processed, in the given order.
    public static func unprocessedKeyFileHashes(_ hashes: [Data]) -> ENStoreQuery<ENStore, [Data]> {
        .init { _, db in
            let statement = try db.cachedStatement(sql: "SELECT 1 FROM processed_key_files WHERE hash = ?")
            return try hashes.filter { hash in try Int.fetchOne(statement, arguments: [hash]) == nil }
        }
    }

    /// The cached diagnosis keys, by rolling start then key data.
    public static var cachedDiagnosisKeys: ENStoreQuery<ENStore, [ENTemporaryExposureKey]> {
        .init { _, db in
            try Row.fetchAll(
                db, sql: "SELECT \(StoreCodec.keyColumns) FROM cached_keys ORDER BY rolling_start, key_data"
            ).map { row in try StoreCodec.key(from: row) }
        }
    }

    /// The dates of the rate-limit ledger entries at or after `date`, oldest first.
    public static func rateLimitLedger(since date: Date) -> ENStoreQuery<ENStore, [Date]> {
        .init { _, db in
            try Double.fetchAll(
                db, sql: "SELECT date FROM detection_ledger WHERE date >= ? ORDER BY date, id",
                arguments: [StoreCodec.column(date)]
            ).map(StoreCodec.date)
        }
    }

    /// The stored detections of `kind` (every kind when `nil`), oldest first, decoded as `Result`.
    ///
    /// Reading throws `ENError.Code.badFormat` when a stored result does not decode as `Result`.
    public static func detections<Result>(
        as type: Result.Type, kind: String? = nil
    ) -> ENStoreQuery<ENStore, [ENStoredDetection<Result>]> {
        .init { _, db in
            try DetectionTables.fetch(db, kind, latestOnly: false).map { (row) throws(ENError) in
                try DetectionTables.decode(row, as: type)
            }
        }
    }

    /// The most recent stored detection of `kind` (of any kind when `nil`), or `nil` when there is none.
    public static func latestDetection<Result>(
        as type: Result.Type, kind: String? = nil
    ) -> ENStoreQuery<ENStore, ENStoredDetection<Result>?> {
        .init { _, db in
            try DetectionTables.fetch(db, kind, latestOnly: true).first.map { (row) throws(ENError) in
                try DetectionTables.decode(row, as: type)
            }
        }
    }
}

/// The tables a detection writes: `detections`, `processed_key_files`, `cached_keys`, `detection_ledger`.
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
        for key in record.cachedKeys { try key.validate() }
        if record.processedKeyFileHashes.contains(where: \.isEmpty) {
            throw .badParameter("a processed key file's hash is empty")
        }
    }

    static func insert<Result>(_ db: Database, _ record: ENDetectionRecord<Result>, _ result: Data) throws -> Int64 {
        let date = StoreCodec.column(record.date)
        if let limit = record.rateLimit {
            let since = StoreCodec.column(record.date.addingTimeInterval(-limit.window))
            let count =
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM detection_ledger WHERE date > ?", arguments: [since])
                ?? 0
            guard count < limit.limit else {
                throw ENError(
                    .rateLimited,
                    "\(count) detections in the last \(Int(limit.window)) s reach the limit of \(limit.limit)")
            }
        }
        try db.execute(
            sql: "INSERT INTO detections (computed_at, kind, result) VALUES (?, ?, ?)",
            arguments: [date, record.kind, result])
        let id = db.lastInsertedRowID
        let fileStatement = try db.cachedStatement(
            sql: "INSERT OR IGNORE INTO processed_key_files (hash, processed_at, detection_id) VALUES (?, ?, ?)")
        for hash in record.processedKeyFileHashes {
            try fileStatement.execute(arguments: [hash, date, id])
        }
        let keyStatement = try db.cachedStatement(
            sql:
                "INSERT OR REPLACE INTO cached_keys (\(StoreCodec.keyColumns), cached_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
        )
        for key in record.cachedKeys {
            var arguments = StoreCodec.keyArguments(key)
            arguments += [date]
            try keyStatement.execute(arguments: arguments)
        }
        if record.countsTowardRateLimit {
            try db.execute(sql: "INSERT INTO detection_ledger (date) VALUES (?)", arguments: [date])
        }
        return id
    }

    static func fetch(_ db: Database, _ kind: String?, latestOnly: Bool) throws -> [StoredRow] {
        var sql = "SELECT id, computed_at, kind, result FROM detections"
        if kind != nil { sql += " WHERE kind = ?" }
        sql += latestOnly ? " ORDER BY id DESC LIMIT 1" : " ORDER BY id"
        let arguments: StatementArguments = kind.map { [$0] } ?? []
        return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
            StoredRow(id: row[0], date: StoreCodec.date(row[1]), kind: row[2], result: row[3])
        }
    }
}
