#if PostgreSQL
    public import ENCore
    public import ENKeyServer
    public import Foundation
    import Logging
    import PostgresNIO

    /// The import primitives on PostgreSQL: the files each import found in another server's `index.txt`
    /// (`key_server_import_files`).
    extension ENKeyServerPostgresStore: ENKeyServerImportStorage {
        /// Records the new files of an import and closes the open ones the index no longer lists, in one
        /// transaction.
        public func scheduleImportFiles(_ importName: String, files: [String], at date: Date) async throws(ENError)
            -> (new: Int, closed: Int)
        {
            try await transaction { connection, logger in
                var new = 0
                for try await _ in try await connection.query(
                    """
                    INSERT INTO key_server_import_files (import_name, url, discovered_at)
                    SELECT \(importName), url, \(date) FROM unnest(\(files)::text[]) AS listed(url)
                    ON CONFLICT (import_name, url) DO NOTHING
                    RETURNING id
                    """, logger: logger
                ).decode(Int64.self) {
                    new += 1
                }
                var closed = 0
                for try await _ in try await connection.query(
                    """
                    UPDATE key_server_import_files SET status = 'failed', processed_at = \(date)
                    WHERE import_name = \(importName) AND status = 'open' AND NOT (url = ANY(\(files)::text[]))
                    RETURNING id
                    """, logger: logger
                ).decode(Int64.self) {
                    closed += 1
                }
                return (new, closed)
            }
        }

        /// Marks a file imported, or counts a failed try.
        public func finishImportFile(_ importName: String, file: String, imported: Bool, at date: Date)
            async throws(ENError)
        {
            try await transaction { connection, logger in
                _ = try await connection.query(
                    """
                    UPDATE key_server_import_files
                    SET status = CASE WHEN \(imported) THEN 'complete' ELSE status END,
                        retries = retries + CASE WHEN \(imported) THEN 0 ELSE 1 END, processed_at = \(date)
                    WHERE import_name = \(importName) AND url = \(file) AND status = 'open'
                    """, logger: logger)
            }
        }

        /// Every file of an import, in discovery order.
        public func importFiles(_ importName: String) async throws(ENError) -> [ENKeyServerImportFile] {
            try await transaction { connection, logger in
                var files: [ENKeyServerImportFile] = []
                for try await row in try await connection.query(
                    """
                    SELECT url, discovered_at, processed_at, status, retries FROM key_server_import_files
                    WHERE import_name = \(importName) ORDER BY id
                    """, logger: logger
                ).decode((String, Date, Date?, String, Int64).self) {
                    files.append(
                        ENKeyServerImportFile(
                            url: row.0, discoveredAt: row.1, processedAt: row.2,
                            status: ENKeyServerImportFile.Status(rawValue: row.3) ?? .failed, retries: Int(row.4)))
                }
                return files
            }
        }
    }
#endif
