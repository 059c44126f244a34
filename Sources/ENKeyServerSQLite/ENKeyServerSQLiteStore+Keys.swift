public import ENCore
public import ENKeyServer
internal import ENSQLite
internal import Foundation
internal import GRDB

/// Erasing the store.
extension ENKeyServerSQLiteStore {
    /// Deletes every posted key, batch and published file in one transaction, then truncates the write-ahead
    /// log.
    public func eraseAll() async throws(ENError) {
        try await write(truncatesLog: true) { db in
            try db.execute(sql: "DELETE FROM key_server_files")
            try db.execute(sql: "DELETE FROM key_server_export_marks")
            try db.execute(sql: "DELETE FROM key_server_keys")
            try db.execute(sql: "DELETE FROM key_server_batches")
            try db.execute(sql: "DELETE FROM key_server_import_files")
            try db.execute(sql: "DELETE FROM sqlite_sequence")
        }
    }
}

extension ENKeyServerSQLiteStore {
    /// The posted keys the default export configuration has not yet published, in arrival order.
    public func diagnosisKeysAwaitingExport() async throws(ENError) -> [ENTemporaryExposureKey] {
        try await read { db in try KeyServerTables.keys(db, batch: nil) }
    }

    /// The revisions the default export configuration has not yet published, in revision order, as they will be published: the revised report type
    /// and days since onset, the original transmission risk level.
    public func revisedKeysAwaitingExport() async throws(ENError) -> [ENTemporaryExposureKey] {
        try await read { db in try KeyServerTables.revisedKeys(db, batch: nil) }
    }

    /// The default export configuration's published batches with an index at or above `index`, in index order,
    /// with the posted keys still kept (padding keys left out). Batches claimed but not completed are left out.
    public func exportBatches(startingAt index: Int = 0) async throws(ENError) -> [ENKeyServerBatch] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql:
                    """
                    SELECT batch_index, created_at FROM key_server_batches
                    WHERE batch_index >= ? AND status = 'complete' AND export_name = '' ORDER BY batch_index
                    """,
                arguments: [index]
            ).map { row in
                let index: Int = try row.stored(at: 0)
                return ENKeyServerBatch(
                    index: index, createdAt: SQLiteCodec.date(try row.stored(at: 1)),
                    keys: try KeyServerTables.keys(db, batch: index),
                    revisedKeys: try KeyServerTables.revisedKeys(db, batch: index))
            }
        }
    }
}

/// The `key_server_keys` table.
enum KeyServerTables {
    /// The posted keys of batch `batch` (not yet batched by the default export configuration when `nil`), in
    /// arrival order.
    static func keys(_ db: Database, batch: Int?) throws -> [ENTemporaryExposureKey] {
        try keys(
            db, where: batch == nil ? awaitingKey : "is_padding = 0 AND id IN (\(markedKeys()))",
            batch.map { [$0] } ?? [""])
    }

    /// The keys a batch (the statement's next argument) marked, as a subquery: `revision` 0 its new keys, 1 its
    /// revisions.
    static func markedKeys(revision: Int = 0) -> String {
        "SELECT key_id FROM key_server_export_marks WHERE batch_index = ? AND revision = \(revision)"
    }

    /// The keys matching `condition`, in arrival order, decoded row by row from a cursor (a batch's million rows are
    /// never held as rows).
    static func keys(
        _ db: Database, where condition: String, _ arguments: StatementArguments
    ) throws -> [ENTemporaryExposureKey] {
        try decodedKeys(
            Row.fetchCursor(
                db, sql: "SELECT \(SQLiteCodec.keyColumns) FROM key_server_keys WHERE \(condition) ORDER BY id",
                arguments: arguments))
    }

    /// The key of each row of `rows`, read as the cursor steps.
    static func decodedKeys(_ rows: RowCursor) throws -> [ENTemporaryExposureKey] {
        var keys: [ENTemporaryExposureKey] = []
        while let row = try rows.next() { keys.append(try SQLiteCodec.key(from: row)) }
        return keys
    }

    /// The revised keys of batch `batch` (awaiting publication when `nil`), in revision order: the revised
    /// report type and days since onset over the original key's other values.
    static func revisedKeys(_ db: Database, batch: Int?) throws -> [ENTemporaryExposureKey] {
        try revisedKeys(
            db,
            where: batch == nil
                ? awaitingRevision
                : "revised_at IS NOT NULL AND id IN (\(markedKeys(revision: 1)))",
            batch.map { [$0] } ?? [""])
    }

    /// The revised keys matching `condition`, in revision order, as they are published.
    static func revisedKeys(
        _ db: Database, where condition: String, _ arguments: StatementArguments
    ) throws -> [ENTemporaryExposureKey] {
        try decodedKeys(
            Row.fetchCursor(
                db,
                sql: """
                    SELECT key_data, rolling_start, rolling_period, transmission_risk_level,
                        revised_report_type AS report_type, revised_days_since_onset AS days_since_onset, variant
                    FROM key_server_keys WHERE \(condition) ORDER BY revised_at, id
                    """,
                arguments: arguments))
    }

    /// The origins of the keys matching `condition` that have regions, by key data (a key stored before origins
    /// were has none, and counts as published for the output region).
    static func origins(
        _ db: Database, where condition: String, _ arguments: StatementArguments
    ) throws -> [Data: ENKeyServerKeyOrigin] {
        var origins: [Data: ENKeyServerKeyOrigin] = [:]
        let rows = try Row.fetchCursor(
            db, sql: "SELECT key_data, regions, traveler FROM key_server_keys WHERE regions != '' AND (\(condition))",
            arguments: arguments)
        while let row = try rows.next() {
            origins[try row.stored("key_data")] = origin(try row.stored("regions"), try row.stored("traveler"))
        }
        return origins
    }

    /// An origin from its columns.
    static func origin(_ regions: String, _ traveler: Int64, _ importName: String? = nil) -> ENKeyServerKeyOrigin {
        ENKeyServerKeyOrigin(
            regions: regions.split(separator: ",").map(String.init), traveler: traveler != 0, importName: importName)
    }

    /// The `regions` column of `regions`.
    static func column(_ regions: [String]) -> String { regions.joined(separator: ",") }
}
