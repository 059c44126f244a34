public import ENCore
public import ENStore
public import Foundation
internal import GRDB

/// Posted diagnosis keys, de-duplicated, in arrival order, with their revisions.
extension ENStoreUpdate where Store == ENKeyServerStore {
    /// Stores posted diagnosis keys in one transaction.
    ///
    /// A key is identified by its key data and rolling start. A key not stored before is accepted. A key
    /// already stored with the same report type and days since onset is a duplicate and ignored. A key already
    /// stored with another report type or days since onset is a revision: when the key was not published yet it
    /// is simply updated; when it was, the original stays as published and the revised values are published
    /// again as a revised key in the next batch (with the original transmission risk level, as Google's server
    /// does). Other differences (risk level, rolling period) are ignored.
    ///
    /// - Parameters:
    ///   - keys: the keys one app posted.
    ///   - date: the arrival date; the store's clock by default.
    /// - Throws: `ENError.Code.badParameter` naming the first key that does not validate (its index in
    ///   `context.index`, section `"posted keys"`, and the field); nothing is stored.
    public static func postDiagnosisKeys(
        _ keys: [ENTemporaryExposureKey], at date: Date? = nil
    ) -> ENStoreUpdate<ENKeyServerStore, ENKeyServerPostResult> {
        .init { store, db in
            for (offset, key) in keys.enumerated() {
                do throws(ENError) { try key.validate() } catch {
                    throw error.adding(ENError.Context(section: "posted keys", index: offset))
                }
            }
            let received = StoreCodec.column(date ?? store.clock())
            let find = try db.cachedStatement(
                sql: """
                    SELECT id, report_type, days_since_onset, batch_index, revised_at, revised_report_type,
                        revised_days_since_onset
                    FROM key_server_keys WHERE key_data = ? AND rolling_start = ?
                    """)
            let insert = try db.cachedStatement(
                sql:
                    "INSERT INTO key_server_keys (\(StoreCodec.keyColumns), received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
            )
            var result = ENKeyServerPostResult()
            for key in keys {
                let reportType = Int64(key.diagnosisReportType.rawValue)
                let onset: Int64? = key.hasKnownDaysSinceOnsetOfSymptoms ? Int64(key.daysSinceOnsetOfSymptoms) : nil
                guard
                    let row = try Row.fetchOne(find, arguments: [key.keyData, Int64(key.rollingStartNumber)])
                else {
                    var arguments = StoreCodec.keyArguments(key)
                    arguments += [received]
                    try insert.execute(arguments: arguments)
                    result.accepted += 1
                    continue
                }
                let id: Int64 = try row.stored("id")
                let isRevised = ((try row.stored("revised_at", as: Double?.self))) != nil
                let currentType: Int64 =
                    isRevised ? try row.stored("revised_report_type") : try row.stored("report_type")
                let currentOnset: Int64? =
                    isRevised ? try row.stored("revised_days_since_onset") : try row.stored("days_since_onset")
                guard currentType != reportType || currentOnset != onset else {
                    result.duplicates += 1
                    continue
                }
                if ((try row.stored("batch_index", as: Int64?.self))) == nil {
                    try db.execute(
                        sql: "UPDATE key_server_keys SET report_type = ?, days_since_onset = ? WHERE id = ?",
                        arguments: [reportType, onset, id])
                } else {
                    try db.execute(
                        sql: """
                            UPDATE key_server_keys SET revised_report_type = ?, revised_days_since_onset = ?,
                                revised_at = ?, revised_batch_index = NULL
                            WHERE id = ?
                            """,
                        arguments: [reportType, onset, received, id])
                }
                result.revised += 1
            }
            return result
        }
    }

    /// Deletes every posted key, batch and published file in one transaction, then truncates the write-ahead
    /// log.
    public static var eraseAll: ENStoreUpdate<ENKeyServerStore, Void> {
        .init(truncatesLog: true) { _, db in
            try db.execute(sql: "DELETE FROM key_server_files")
            try db.execute(sql: "DELETE FROM key_server_keys")
            try db.execute(sql: "DELETE FROM key_server_batches")
            try db.execute(sql: "DELETE FROM sqlite_sequence")
        }
    }
}

extension ENStoreQuery where Store == ENKeyServerStore {
    /// The posted keys not yet published, in arrival order.
    public static var diagnosisKeysAwaitingExport: ENStoreQuery<ENKeyServerStore, [ENTemporaryExposureKey]> {
        .init { _, db in try KeyServerTables.keys(db, batch: nil) }
    }

    /// The revisions of published keys not yet published, in revision order, as they will be published: the
    /// revised report type and days since onset, the original transmission risk level.
    public static var revisedKeysAwaitingExport: ENStoreQuery<ENKeyServerStore, [ENTemporaryExposureKey]> {
        .init { _, db in try KeyServerTables.revisedKeys(db, batch: nil) }
    }

    /// The published batches with an index at or above `index`, in index order, with the posted keys still kept
    /// (padding keys left out). Batches claimed but not completed are left out.
    public static func exportBatches(startingAt index: Int = 0) -> ENStoreQuery<ENKeyServerStore, [ENKeyServerBatch]> {
        .init { _, db in
            try Row.fetchAll(
                db,
                sql:
                    """
                    SELECT batch_index, created_at FROM key_server_batches
                    WHERE batch_index >= ? AND status = 'complete' ORDER BY batch_index
                    """,
                arguments: [index]
            ).map { row in
                let index: Int = try row.stored(at: 0)
                return ENKeyServerBatch(
                    index: index, createdAt: StoreCodec.date(try row.stored(at: 1)),
                    keys: try KeyServerTables.keys(db, batch: index),
                    revisedKeys: try KeyServerTables.revisedKeys(db, batch: index))
            }
        }
    }
}

/// The `key_server_keys` table.
enum KeyServerTables {
    /// The posted keys of batch `batch` (not yet batched when `nil`), in arrival order.
    static func keys(_ db: Database, batch: Int?) throws -> [ENTemporaryExposureKey] {
        try keys(
            db, where: batch == nil ? "batch_index IS NULL" : "batch_index = ? AND is_padding = 0",
            batch.map { [$0] } ?? [])
    }

    /// The keys matching `condition`, in arrival order.
    static func keys(
        _ db: Database, where condition: String, _ arguments: StatementArguments
    ) throws -> [ENTemporaryExposureKey] {
        try Row.fetchAll(
            db, sql: "SELECT \(StoreCodec.keyColumns) FROM key_server_keys WHERE \(condition) ORDER BY id",
            arguments: arguments
        ).map { row in try StoreCodec.key(from: row) }
    }

    /// The revised keys of batch `batch` (awaiting publication when `nil`), in revision order: the revised
    /// report type and days since onset over the original key's other values.
    static func revisedKeys(_ db: Database, batch: Int?) throws -> [ENTemporaryExposureKey] {
        try revisedKeys(
            db,
            where: batch == nil
                ? "revised_at IS NOT NULL AND revised_batch_index IS NULL AND batch_index IS NOT NULL"
                : "revised_at IS NOT NULL AND revised_batch_index = ?",
            batch.map { [$0] } ?? [])
    }

    /// The revised keys matching `condition`, in revision order, as they are published.
    static func revisedKeys(
        _ db: Database, where condition: String, _ arguments: StatementArguments
    ) throws -> [ENTemporaryExposureKey] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT key_data, rolling_start, rolling_period, transmission_risk_level,
                    revised_report_type AS report_type, revised_days_since_onset AS days_since_onset, variant
                FROM key_server_keys WHERE \(condition) ORDER BY revised_at, id
                """,
            arguments: arguments
        ).map { row in try StoreCodec.key(from: row) }
    }

    /// `date` in whole UTC seconds since 1970 (0 before 1970), as export files and file names give times.
    static func unixSeconds(_ date: Date) -> UInt64 {
        UInt64(max(0, date.timeIntervalSince1970.rounded(.down)))
    }
}
