internal import ENCore
internal import ENExportFormat
public import ENStore
public import Foundation
internal import GRDB

/// Published export files: serving them, and retention.
extension ENStoreUpdate where Store == ENKeyServerStore {
    /// Deletes the keys that arrived before `cutoff` and the files of batches that ended at or before it, in one
    /// transaction. Batch records stay (they are small), so that batch and file indexes never repeat.
    ///
    /// - Returns: how many keys were deleted.
    public static func deleteExpired(before cutoff: Date) -> ENStoreUpdate<ENKeyServerStore, Int> {
        .init { _, db in
            try db.execute(
                sql: "DELETE FROM key_server_files WHERE end_timestamp <= ?",
                arguments: [Int64(KeyServerTables.unixSeconds(cutoff))])
            try db.execute(
                sql: "DELETE FROM key_server_keys WHERE received_at < ?", arguments: [StoreCodec.column(cutoff)])
            return db.changesCount
        }
    }
}

extension ENStoreQuery where Store == ENKeyServerStore {
    /// The published files from index `index` on, in index order, leaving out those of batches that ended
    /// at or before `cutoff`.
    public static func exportFiles(
        startingAt index: Int, endingAfter cutoff: Date = .distantPast
    ) -> ENStoreQuery<ENKeyServerStore, [ENKeyServerFile]> {
        .init { _, db in
            try KeyServerTables.files(db, where: "file_index >= ?", [index], endingAfter: cutoff)
        }
    }

    /// The published file named `name`, or `nil` when there is none or its batch ended at or before `cutoff`.
    public static func exportFile(
        named name: String, endingAfter cutoff: Date = .distantPast
    ) -> ENStoreQuery<ENKeyServerStore, ENKeyServerFile?> {
        .init { _, db in
            try KeyServerTables.files(db, where: "name = ?", [name], endingAfter: cutoff).first
        }
    }

    /// The names of the published files, sorted (byte order, as Go's `sort.Strings`), leaving out those of
    /// batches that ended at or before `cutoff`.
    public static func exportFileNames(
        endingAfter cutoff: Date = .distantPast
    ) -> ENStoreQuery<ENKeyServerStore, [String]> {
        .init { _, db in
            try String.fetchAll(
                db, sql: "SELECT name FROM key_server_files WHERE end_timestamp > ? ORDER BY name",
                arguments: [Int64(KeyServerTables.unixSeconds(cutoff))])
        }
    }
}

extension KeyServerTables {
    /// The files matching `condition` whose batch ended after `cutoff`, in index order.
    static func files(
        _ db: Database, where condition: String, _ arguments: StatementArguments, endingAfter cutoff: Date
    ) throws -> [ENKeyServerFile] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT file_index, name, batch_index, start_timestamp, end_timestamp, created_at, data
                FROM key_server_files WHERE \(condition) AND end_timestamp > ? ORDER BY file_index
                """,
            arguments: arguments + [Int64(unixSeconds(cutoff))]
        ).map { row in
            ENKeyServerFile(
                index: try row.stored("file_index"), name: try row.stored("name"),
                batchIndex: try row.stored("batch_index"),
                startTimestamp: UInt64(max(0, (try row.stored("start_timestamp", as: Int64.self)))),
                endTimestamp: UInt64(max(0, (try row.stored("end_timestamp", as: Int64.self)))),
                createdAt: StoreCodec.date(try row.stored("created_at")), data: try row.stored("data"))
        }
    }
}

extension ENKeyServerFile {
    /// Google's name of file `number` (1-based) of the batch from `start` to `end`: `START-END-NNNNN.zip`.
    package static func name(start: UInt64, end: UInt64, number: Int) -> String {
        let digits = String(number)
        return "\(start)-\(end)-\(String(repeating: "0", count: max(0, 5 - digits.count)))\(digits).zip"
    }
}
