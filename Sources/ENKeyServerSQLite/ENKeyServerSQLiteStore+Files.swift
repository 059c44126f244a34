public import ENCore
public import ENKeyServer
internal import ENSQLite
public import Foundation
internal import GRDB

/// Published export files: serving them, and retention.
extension ENKeyServerSQLiteStore {
    /// Deletes the keys that arrived before `cutoff` and the files of batches that ended at or before it, in one
    /// transaction. Batch records stay (they are small), so that batch and file indexes never repeat.
    ///
    /// - Returns: how many keys were deleted.
    public func deleteExpired(before cutoff: Date) async throws(ENError) -> Int {
        try await write { db in
            try db.execute(
                sql: "DELETE FROM key_server_files WHERE end_timestamp <= ?",
                arguments: [Int64(ExportBatchWindow.unixSeconds(cutoff))])
            try db.execute(
                sql: """
                    DELETE FROM key_server_export_marks
                    WHERE key_id IN (SELECT id FROM key_server_keys WHERE received_at < ?)
                    """, arguments: [SQLiteCodec.column(cutoff)])
            try db.execute(
                sql: "DELETE FROM key_server_keys WHERE received_at < ?", arguments: [SQLiteCodec.column(cutoff)])
            return db.changesCount
        }
    }
}

extension ENKeyServerSQLiteStore {
    /// The files of the export configuration `exportName` from index `index` on, in index order.
    public func exportFiles(of exportName: String, startingAt index: Int) async throws(ENError) -> [ENKeyServerFile] {
        try await read { db in
            try KeyServerTables.files(db, where: "export_name = ? AND file_index >= ?", [exportName, index])
        }
    }

    /// The file of the export configuration `exportName` named `name`, or `nil`.
    public func exportFile(of exportName: String, named name: String) async throws(ENError) -> ENKeyServerFile? {
        try await read { db in
            try KeyServerTables.files(db, where: "export_name = ? AND name = ?", [exportName, name]).first
        }
    }
}

extension KeyServerTables {
    /// The files matching `condition`, in index order.
    static func files(
        _ db: Database, where condition: String, _ arguments: StatementArguments
    ) throws -> [ENKeyServerFile] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT file_index, name, batch_index, start_timestamp, end_timestamp, created_at, data
                FROM key_server_files WHERE \(condition) ORDER BY file_index
                """,
            arguments: arguments
        ).map { row in
            ENKeyServerFile(
                index: try row.stored("file_index"), name: try row.stored("name"),
                batchIndex: try row.stored("batch_index"),
                startTimestamp: UInt64(max(0, (try row.stored("start_timestamp", as: Int64.self)))),
                endTimestamp: UInt64(max(0, (try row.stored("end_timestamp", as: Int64.self)))),
                createdAt: SQLiteCodec.date(try row.stored("created_at")), data: try row.stored("data"))
        }
    }
}
