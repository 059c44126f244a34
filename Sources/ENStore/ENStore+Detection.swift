public import ENCore
public import Foundation
internal import GRDB

/// Exposure detection: results, and the state that must advance with them atomically.
extension ENStore {
    /// Records a successful detection in one transaction: the result, the processed key files, the next
    /// key-file index, the cached diagnosis keys, a rate-limit ledger entry and the last detection date
    /// (clearing the last error). Either all of it is stored or none of it.
    ///
    /// - Returns: the stored detection's identifier.
    /// - Throws: `ENError.Code.rateLimited` when `record.rateLimit` is already reached (nothing is written);
    ///   `ENError.Code.badParameter` when a cached key does not validate, a hash is empty, or the next
    ///   index is negative.
    @discardableResult
    public func recordDetection<Result>(_ record: ENDetectionRecord<Result>) throws(ENError) -> Int64 {
        let result = try Self.encodeResult(record.result)
        try Self.validate(record)
        return try writeSync { db in try Self.insertDetection(db, record, result) }
    }

    /// Records a successful detection in one transaction; see the synchronous form.
    @discardableResult
    public func recordDetection<Result>(_ record: ENDetectionRecord<Result>) async throws(ENError) -> Int64 {
        let result = try Self.encodeResult(record.result)
        try Self.validate(record)
        return try await write { db in try Self.insertDetection(db, record, result) }
    }

    /// Records a failed detection: sets the last detection error (the last date and all other state stay)
    /// and, when `countsTowardRateLimit`, adds a ledger entry at `date`.
    public func recordDetectionFailure(
        _ reason: String, at date: Date? = nil, countsTowardRateLimit: Bool = false
    ) throws(ENError) {
        let date = date ?? configuration.now()
        try writeSync { db in try Self.insertFailure(db, reason, date, countsTowardRateLimit) }
    }

    /// Records a failed detection; see the synchronous form.
    public func recordDetectionFailure(
        _ reason: String, at date: Date? = nil, countsTowardRateLimit: Bool = false
    ) async throws(ENError) {
        let date = date ?? configuration.now()
        try await write { db in try Self.insertFailure(db, reason, date, countsTowardRateLimit) }
    }

    /// The current detection state.
    public func detectionState() throws(ENError) -> ENDetectionState {
        try readSync(Self.fetchState)
    }

    /// The current detection state; see the synchronous form.
    public func detectionState() async throws(ENError) -> ENDetectionState {
        try await read(Self.fetchState)
    }

    /// Sets the next key-file index outside a detection (for example after the server reset its files).
    ///
    /// - Throws: `ENError.Code.badParameter` for a negative index.
    public func setNextKeyFileIndex(_ index: Int) throws(ENError) {
        guard index >= 0 else { throw .badParameter("the next key-file index must be >= 0, got \(index)") }
        try writeSync { db in
            try db.execute(sql: "UPDATE state SET next_key_file_index = ? WHERE id = 1", arguments: [index])
        }
    }

    /// Sets the next key-file index outside a detection; see the synchronous form.
    public func setNextKeyFileIndex(_ index: Int) async throws(ENError) {
        guard index >= 0 else { throw .badParameter("the next key-file index must be >= 0, got \(index)") }
        try await write { db in
            try db.execute(sql: "UPDATE state SET next_key_file_index = ? WHERE id = 1", arguments: [index])
        }
    }

    /// The hashes among `hashes` of key files that no recorded detection has processed, in the given order.
    public func unprocessedKeyFileHashes(_ hashes: [Data]) throws(ENError) -> [Data] {
        try readSync { db in try Self.filterUnprocessed(db, hashes) }
    }

    /// The hashes of key files not processed yet; see the synchronous form.
    public func unprocessedKeyFileHashes(_ hashes: [Data]) async throws(ENError) -> [Data] {
        try await read { db in try Self.filterUnprocessed(db, hashes) }
    }

    /// The cached diagnosis keys, by rolling start then key data.
    public func cachedDiagnosisKeys() throws(ENError) -> [ENTemporaryExposureKey] {
        try readSync(Self.fetchCachedKeys)
    }

    /// The cached diagnosis keys; see the synchronous form.
    public func cachedDiagnosisKeys() async throws(ENError) -> [ENTemporaryExposureKey] {
        try await read(Self.fetchCachedKeys)
    }

    /// The dates of the rate-limit ledger entries at or after `date`, oldest first.
    public func rateLimitLedger(since date: Date) throws(ENError) -> [Date] {
        try readSync { db in try Self.fetchLedger(db, date) }
    }

    /// The rate-limit ledger entries at or after `date`; see the synchronous form.
    public func rateLimitLedger(since date: Date) async throws(ENError) -> [Date] {
        try await read { db in try Self.fetchLedger(db, date) }
    }

    /// The stored detections of `kind` (every kind when `nil`), oldest first, decoded as `Result`.
    ///
    /// - Throws: `ENError.Code.badFormat` when a stored result does not decode as `Result`.
    public func detections<Result>(
        as type: Result.Type, kind: String? = nil
    ) throws(ENError) -> [ENStoredDetection<Result>] {
        let rows = try readSync { db in try Self.fetchDetectionRows(db, kind, latestOnly: false) }
        return try rows.map { (row) throws(ENError) in try Self.decode(row, as: type) }
    }

    /// The stored detections of `kind`; see the synchronous form.
    public func detections<Result>(
        as type: Result.Type, kind: String? = nil
    ) async throws(ENError) -> [ENStoredDetection<Result>] {
        let rows = try await read { db in try Self.fetchDetectionRows(db, kind, latestOnly: false) }
        return try rows.map { (row) throws(ENError) in try Self.decode(row, as: type) }
    }

    /// The most recent stored detection of `kind` (of any kind when `nil`), or `nil` when there is none.
    public func latestDetection<Result>(
        as type: Result.Type, kind: String? = nil
    ) throws(ENError) -> ENStoredDetection<Result>? {
        let rows = try readSync { db in try Self.fetchDetectionRows(db, kind, latestOnly: true) }
        return try rows.first.map { (row) throws(ENError) in try Self.decode(row, as: type) }
    }

    /// The most recent stored detection of `kind`; see the synchronous form.
    public func latestDetection<Result>(
        as type: Result.Type, kind: String? = nil
    ) async throws(ENError) -> ENStoredDetection<Result>? {
        let rows = try await read { db in try Self.fetchDetectionRows(db, kind, latestOnly: true) }
        return try rows.first.map { (row) throws(ENError) in try Self.decode(row, as: type) }
    }

    /// Observes the detection state: the current value at once, then each change.
    public func observeDetectionState() -> ENStoreObservation<ENDetectionState> {
        ENStoreObservation(store: self, ValueObservation.tracking(Self.fetchState))
    }

    // MARK: Implementation

    struct DetectionRow: Sendable {
        var id: Int64
        var date: Date
        var kind: String
        var result: Data
    }

    private static func encodeResult<Result: Encodable>(_ result: Result) throws(ENError) -> Data {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return try encoder.encode(result)
        } catch {
            throw ENError.badParameter("the detection result \(Result.self) does not encode: \(error)")
        }
    }

    private static func decode<Result: Decodable>(
        _ row: DetectionRow, as type: Result.Type
    ) throws(ENError) -> ENStoredDetection<Result> {
        do {
            let result = try JSONDecoder().decode(Result.self, from: row.result)
            return ENStoredDetection(id: row.id, date: row.date, kind: row.kind, result: result)
        } catch {
            throw ENError(
                .badFormat, "stored detection \(row.id) (\(row.kind)) does not decode as \(Result.self): \(error)")
        }
    }

    private static func validate<Result>(_ record: ENDetectionRecord<Result>) throws(ENError) {
        for key in record.cachedKeys { try key.validate() }
        if let index = record.nextKeyFileIndex, index < 0 {
            throw .badParameter("the next key-file index must be >= 0, got \(index)")
        }
        if record.processedKeyFileHashes.contains(where: \.isEmpty) {
            throw .badParameter("a processed key file's hash is empty")
        }
    }

    private static func insertDetection<Result>(
        _ db: Database, _ record: ENDetectionRecord<Result>, _ result: Data
    ) throws -> Int64 {
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
        try db.execute(
            sql: """
                UPDATE state SET last_detection_date = ?, last_detection_error = NULL,
                next_key_file_index = COALESCE(?, next_key_file_index) WHERE id = 1
                """,
            arguments: [date, record.nextKeyFileIndex])
        return id
    }

    private static func insertFailure(_ db: Database, _ reason: String, _ date: Date, _ counts: Bool) throws {
        try db.execute(sql: "UPDATE state SET last_detection_error = ? WHERE id = 1", arguments: [reason])
        if counts {
            try db.execute(
                sql: "INSERT INTO detection_ledger (date) VALUES (?)", arguments: [StoreCodec.column(date)])
        }
    }

    static func fetchState(_ db: Database) throws -> ENDetectionState {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT next_key_file_index, last_detection_date, last_detection_error FROM state")
        else { return ENDetectionState() }
        let date: Double? = row[1]
        return ENDetectionState(
            nextKeyFileIndex: row[0], lastDetectionDate: date.map(StoreCodec.date), lastDetectionError: row[2])
    }

    private static func filterUnprocessed(_ db: Database, _ hashes: [Data]) throws -> [Data] {
        let statement = try db.cachedStatement(sql: "SELECT 1 FROM processed_key_files WHERE hash = ?")
        return try hashes.filter { hash in try Int.fetchOne(statement, arguments: [hash]) == nil }
    }

    private static func fetchCachedKeys(_ db: Database) throws -> [ENTemporaryExposureKey] {
        try Row.fetchAll(
            db, sql: "SELECT \(StoreCodec.keyColumns) FROM cached_keys ORDER BY rolling_start, key_data"
        ).map { row in try StoreCodec.key(from: row) }
    }

    private static func fetchLedger(_ db: Database, _ date: Date) throws -> [Date] {
        try Double.fetchAll(
            db, sql: "SELECT date FROM detection_ledger WHERE date >= ? ORDER BY date, id",
            arguments: [StoreCodec.column(date)]
        ).map(StoreCodec.date)
    }

    private static func fetchDetectionRows(_ db: Database, _ kind: String?, latestOnly: Bool) throws -> [DetectionRow] {
        var sql = "SELECT id, computed_at, kind, result FROM detections"
        if kind != nil { sql += " WHERE kind = ?" }
        sql += latestOnly ? " ORDER BY id DESC LIMIT 1" : " ORDER BY id"
        let arguments: StatementArguments = kind.map { [$0] } ?? []
        return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
            DetectionRow(id: row[0], date: StoreCodec.date(row[1]), kind: row[2], result: row[3])
        }
    }
}
