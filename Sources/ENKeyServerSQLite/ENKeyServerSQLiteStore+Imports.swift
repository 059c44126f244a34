public import ENCore
public import ENKeyServer
internal import ENSQLite
public import Foundation
internal import GRDB

/// The import primitives on SQLite: the files each import found in another server's `index.txt`
/// (`key_server_import_files`).
extension ENKeyServerSQLiteStore: ENKeyServerImportStorage {
    /// Records the new files of an import and closes the open ones the index no longer lists, in one transaction.
    public func scheduleImportFiles(_ importName: String, files: [String], at date: Date) async throws(ENError) -> (
        new: Int, closed: Int
    ) {
        try await write { db in
            var new = 0
            let insert = try db.cachedStatement(
                sql: """
                    INSERT INTO key_server_import_files (import_name, url, discovered_at) VALUES (?, ?, ?)
                    ON CONFLICT (import_name, url) DO NOTHING
                    """)
            for file in files {
                try insert.execute(arguments: [importName, file, SQLiteCodec.column(date)])
                new += db.changesCount
            }
            let listed = Set(files)
            let open = try String.fetchAll(
                db, sql: "SELECT url FROM key_server_import_files WHERE import_name = ? AND status = 'open'",
                arguments: [importName])
            var closed = 0
            for url in open where !listed.contains(url) {
                try db.execute(
                    sql: """
                        UPDATE key_server_import_files SET status = 'failed', processed_at = ?
                        WHERE import_name = ? AND url = ?
                        """,
                    arguments: [SQLiteCodec.column(date), importName, url])
                closed += 1
            }
            return (new, closed)
        }
    }

    /// Marks a file imported, or counts a failed try.
    public func finishImportFile(_ importName: String, file: String, imported: Bool, at date: Date)
        async throws(ENError)
    {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE key_server_import_files
                    SET status = CASE WHEN ? THEN 'complete' ELSE status END,
                        retries = retries + CASE WHEN ? THEN 0 ELSE 1 END, processed_at = ?
                    WHERE import_name = ? AND url = ? AND status = 'open'
                    """,
                arguments: [imported, imported, SQLiteCodec.column(date), importName, file])
        }
    }

    /// Every file of an import, in discovery order.
    public func importFiles(_ importName: String) async throws(ENError) -> [ENKeyServerImportFile] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT url, discovered_at, processed_at, status, retries FROM key_server_import_files
                    WHERE import_name = ? ORDER BY id
                    """,
                arguments: [importName]
            ).map { row throws(ENError) in
                ENKeyServerImportFile(
                    url: try row.stored("url"), discoveredAt: SQLiteCodec.date(try row.stored("discovered_at")),
                    processedAt: (try row.stored("processed_at", as: Double?.self)).map(SQLiteCodec.date),
                    status: ENKeyServerImportFile.Status(rawValue: try row.stored("status")) ?? .failed,
                    retries: try row.stored("retries"))
            }
        }
    }
}
