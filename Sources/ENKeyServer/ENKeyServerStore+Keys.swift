public import ENCore
public import ENStore
public import Foundation
internal import GRDB

/// Posted diagnosis keys, de-duplicated, in arrival order, and the export batches they go into.
extension ENStoreUpdate where Store == ENKeyServerStore {
    /// Stores posted diagnosis keys in one transaction; a key already posted (same key data and rolling
    /// start) is ignored. Returns how many keys were new.
    ///
    /// - Parameters:
    ///   - keys: the keys one app posted.
    ///   - date: the arrival date; the store's clock by default.
    /// - Throws: `ENError.Code.badParameter` naming the first key that does not validate (nothing is stored).
    public static func postDiagnosisKeys(
        _ keys: [ENTemporaryExposureKey], at date: Date? = nil
    ) -> ENStoreUpdate<ENKeyServerStore, Int> {
        .init { store, db in
            for (offset, key) in keys.enumerated() {
                do throws(ENError) { try key.validate() } catch {
                    throw error.adding(ENError.Context(section: "posted keys", index: offset))
                }
            }
            let statement = try db.cachedStatement(
                sql:
                    "INSERT OR IGNORE INTO key_server_keys (\(StoreCodec.keyColumns), received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
            )
            let received = StoreCodec.column(date ?? store.clock())
            var inserted = 0
            for key in keys {
                var arguments = StoreCodec.keyArguments(key)
                arguments += [received]
                try statement.execute(arguments: arguments)
                inserted += db.changesCount
            }
            return inserted
        }
    }

    /// Puts every posted key not yet exported into a new batch (index one past the last, from 0) and returns
    /// it; `nil` when no key is waiting.
    ///
    /// - Parameter date: the batch's date; the store's clock by default.
    public static func publishExportBatch(at date: Date? = nil) -> ENStoreUpdate<ENKeyServerStore, ENKeyServerBatch?> {
        .init { store, db in
            let pending = try KeyServerTables.keys(db, batch: nil)
            guard !pending.isEmpty else { return nil }
            let date = date ?? store.clock()
            let index = try Int.fetchOne(db, sql: "SELECT MAX(batch_index) FROM key_server_batches").map { $0 + 1 } ?? 0
            try db.execute(
                sql: "INSERT INTO key_server_batches (batch_index, created_at) VALUES (?, ?)",
                arguments: [index, StoreCodec.column(date)])
            try db.execute(
                sql: "UPDATE key_server_keys SET batch_index = ? WHERE batch_index IS NULL", arguments: [index])
            return ENKeyServerBatch(index: index, createdAt: date, keys: pending)
        }
    }

    /// Deletes every posted key and batch in one transaction, then truncates the write-ahead log.
    public static var eraseAll: ENStoreUpdate<ENKeyServerStore, Void> {
        .init(truncatesLog: true) { _, db in
            try db.execute(sql: "DELETE FROM key_server_keys")
            try db.execute(sql: "DELETE FROM key_server_batches")
            try db.execute(sql: "DELETE FROM sqlite_sequence")
        }
    }
}

extension ENStoreQuery where Store == ENKeyServerStore {
    /// The posted keys not yet in an export batch, in arrival order.
    public static var diagnosisKeysAwaitingExport: ENStoreQuery<ENKeyServerStore, [ENTemporaryExposureKey]> {
        .init { _, db in try KeyServerTables.keys(db, batch: nil) }
    }

    /// The published batches with an index at or above `index`, in index order.
    public static func exportBatches(startingAt index: Int = 0) -> ENStoreQuery<ENKeyServerStore, [ENKeyServerBatch]> {
        .init { _, db in
            try Row.fetchAll(
                db,
                sql:
                    "SELECT batch_index, created_at FROM key_server_batches WHERE batch_index >= ? ORDER BY batch_index",
                arguments: [index]
            ).map { row in
                let index: Int = row[0]
                return ENKeyServerBatch(
                    index: index, createdAt: StoreCodec.date(row[1]), keys: try KeyServerTables.keys(db, batch: index))
            }
        }
    }
}

/// The `key_server_keys` table.
enum KeyServerTables {
    /// The keys of batch `batch` (not yet batched when `nil`), in arrival order.
    static func keys(_ db: Database, batch: Int?) throws -> [ENTemporaryExposureKey] {
        let condition = batch == nil ? "batch_index IS NULL" : "batch_index = ?"
        let arguments: StatementArguments = batch.map { [$0] } ?? []
        return try Row.fetchAll(
            db, sql: "SELECT \(StoreCodec.keyColumns) FROM key_server_keys WHERE \(condition) ORDER BY id",
            arguments: arguments
        ).map { row in try StoreCodec.key(from: row) }
    }
}
