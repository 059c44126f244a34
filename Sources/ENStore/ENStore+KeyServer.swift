public import ENCore
public import Foundation
internal import GRDB

/// A key server's storage, for `ENSimulator` and server embedders: posted diagnosis keys, de-duplicated,
/// in arrival order, and the export batches they went into.
extension ENStore {
    /// Stores posted diagnosis keys in one transaction; a key already posted (same key data and rolling
    /// start) is ignored.
    ///
    /// - Returns: how many keys were new.
    /// - Throws: `ENError.Code.badParameter` naming the first key that does not validate (nothing is stored).
    @discardableResult
    public func postDiagnosisKeys(_ keys: [ENTemporaryExposureKey], at date: Date? = nil) throws(ENError) -> Int {
        try Self.validate(keys)
        let date = date ?? configuration.now()
        return try writeSync { db in try Self.insertServerKeys(db, keys, date) }
    }

    /// Stores posted diagnosis keys; see the synchronous form.
    @discardableResult
    public func postDiagnosisKeys(_ keys: [ENTemporaryExposureKey], at date: Date? = nil) async throws(ENError) -> Int {
        try Self.validate(keys)
        let date = date ?? configuration.now()
        return try await write { db in try Self.insertServerKeys(db, keys, date) }
    }

    /// The posted keys not yet in an export batch, in arrival order.
    public func diagnosisKeysAwaitingExport() throws(ENError) -> [ENTemporaryExposureKey] {
        try readSync { db in try Self.fetchServerKeys(db, batch: nil) }
    }

    /// The posted keys not yet in an export batch; see the synchronous form.
    public func diagnosisKeysAwaitingExport() async throws(ENError) -> [ENTemporaryExposureKey] {
        try await read { db in try Self.fetchServerKeys(db, batch: nil) }
    }

    /// Puts every posted key not yet exported into a new batch (index one past the last, from 0) and returns
    /// it; `nil` when no key is waiting.
    public func publishExportBatch(at date: Date? = nil) throws(ENError) -> ENKeyServerBatch? {
        let date = date ?? configuration.now()
        return try writeSync { db in try Self.makeBatch(db, date) }
    }

    /// Publishes a new export batch; see the synchronous form.
    public func publishExportBatch(at date: Date? = nil) async throws(ENError) -> ENKeyServerBatch? {
        let date = date ?? configuration.now()
        return try await write { db in try Self.makeBatch(db, date) }
    }

    /// The published batches with an index at or above `index`, in index order.
    public func exportBatches(startingAt index: Int = 0) throws(ENError) -> [ENKeyServerBatch] {
        try readSync { db in try Self.fetchBatches(db, index) }
    }

    /// The published batches from `index` on; see the synchronous form.
    public func exportBatches(startingAt index: Int = 0) async throws(ENError) -> [ENKeyServerBatch] {
        try await read { db in try Self.fetchBatches(db, index) }
    }

    // MARK: Implementation

    private static func validate(_ keys: [ENTemporaryExposureKey]) throws(ENError) {
        for (offset, key) in keys.enumerated() {
            do { try key.validate() } catch { throw .badParameter("posted key \(offset): \(error.reason)") }
        }
    }

    private static func insertServerKeys(_ db: Database, _ keys: [ENTemporaryExposureKey], _ date: Date) throws -> Int {
        let statement = try db.cachedStatement(
            sql:
                "INSERT OR IGNORE INTO server_keys (\(StoreCodec.keyColumns), received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
        )
        var inserted = 0
        for key in keys {
            var arguments = StoreCodec.keyArguments(key)
            arguments += [StoreCodec.column(date)]
            try statement.execute(arguments: arguments)
            inserted += db.changesCount
        }
        return inserted
    }

    private static func fetchServerKeys(_ db: Database, batch: Int?) throws -> [ENTemporaryExposureKey] {
        let condition = batch == nil ? "batch_index IS NULL" : "batch_index = ?"
        let arguments: StatementArguments = batch.map { [$0] } ?? []
        return try Row.fetchAll(
            db, sql: "SELECT \(StoreCodec.keyColumns) FROM server_keys WHERE \(condition) ORDER BY id",
            arguments: arguments
        ).map { row in try StoreCodec.key(from: row) }
    }

    private static func makeBatch(_ db: Database, _ date: Date) throws -> ENKeyServerBatch? {
        let pending = try fetchServerKeys(db, batch: nil)
        guard !pending.isEmpty else { return nil }
        let index = (try Int.fetchOne(db, sql: "SELECT MAX(batch_index) FROM server_batches")).map { $0 + 1 } ?? 0
        try db.execute(
            sql: "INSERT INTO server_batches (batch_index, created_at) VALUES (?, ?)",
            arguments: [index, StoreCodec.column(date)])
        try db.execute(sql: "UPDATE server_keys SET batch_index = ? WHERE batch_index IS NULL", arguments: [index])
        return ENKeyServerBatch(index: index, createdAt: date, keys: pending)
    }

    private static func fetchBatches(_ db: Database, _ index: Int) throws -> [ENKeyServerBatch] {
        try Row.fetchAll(
            db, sql: "SELECT batch_index, created_at FROM server_batches WHERE batch_index >= ? ORDER BY batch_index",
            arguments: [index]
        ).map { row in
            let index: Int = row[0]
            return ENKeyServerBatch(
                index: index, createdAt: StoreCodec.date(row[1]), keys: try fetchServerKeys(db, batch: index))
        }
    }
}
