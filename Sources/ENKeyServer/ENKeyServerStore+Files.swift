internal import ENCore
internal import ENExportFormat
public import ENStore
public import Foundation
internal import GRDB

/// Published export files: batching, signing and keeping their bytes, serving them, and retention.
extension ENStoreUpdate where Store == ENKeyServerStore {
    /// Publishes every waiting new key and revision in one new batch of signed export files, in one transaction:
    /// the files, the batch and the keys' assignment to it are stored together or not at all.
    ///
    /// The batch's window starts at the previous batch's end (for the first batch, at the earliest arrival of
    /// its keys) and ends at `date`, in whole UTC seconds (at least one second after its start, so that two publishes within
    /// one second still get distinct windows and names). Its files are
    /// written by `ENExportWriter` (split at `configuration.maximumKeysPerFile`) and named
    /// `START-END-NNNNN.zip` as Google's server names them.
    ///
    /// - Parameters:
    ///   - configuration: the region, signers and file limit.
    ///   - date: the publication date; the store's clock by default.
    /// - Returns: the new files, in index order; `[]` (and no batch) when nothing waits.
    /// - Throws: `ENExportWriter`'s `ENError.Code.badParameter` for a bad configuration (no signer, a file
    ///   limit below 1); a signing or database error. Nothing is published then.
    public static func publishExportFiles(
        _ configuration: ENKeyServerConfiguration, at date: Date? = nil
    ) -> ENStoreUpdate<ENKeyServerStore, [ENKeyServerFile]> {
        .init { store, db in
            let keys = try KeyServerTables.keys(db, batch: nil)
            let revisedKeys = try KeyServerTables.revisedKeys(db, batch: nil)
            guard !keys.isEmpty || !revisedKeys.isEmpty else { return [] }
            let date = date ?? store.clock()
            let now = KeyServerTables.unixSeconds(date)

            let last = try Row.fetchOne(
                db,
                sql: """
                    SELECT batch_index, end_timestamp, first_file_index + file_count AS next_file
                    FROM key_server_batches ORDER BY batch_index DESC LIMIT 1
                    """)
            let batchIndex = last.map { ($0["batch_index"] as Int) + 1 } ?? 0
            let firstFileIndex =
                try Int.fetchOne(db, sql: "SELECT MAX(first_file_index + file_count) FROM key_server_batches") ?? 0
            let start: UInt64
            if let previousEnd = last?["end_timestamp"] as Int64? {
                // Never before the previous end, even when the clock has not passed it (two publishes within a
                // second): windows never overlap, so names never repeat.
                start = UInt64(max(0, previousEnd))
            } else {
                let earliest =
                    try Double.fetchOne(
                        db,
                        sql: """
                            SELECT MIN(arrival) FROM (
                                SELECT MIN(received_at) AS arrival FROM key_server_keys WHERE batch_index IS NULL
                                UNION ALL
                                SELECT MIN(revised_at) FROM key_server_keys
                                WHERE revised_at IS NOT NULL AND revised_batch_index IS NULL)
                            """) ?? StoreCodec.column(date)
                start = min(KeyServerTables.unixSeconds(StoreCodec.date(earliest)), now)
            }
            let end = max(now, start + 1)

            var writer = ENExportWriter(
                region: configuration.region, startTimestamp: start, endTimestamp: end, signers: configuration.signers)
            writer.maximumKeysPerFile = configuration.maximumKeysPerFile
            let archives = try writer.archives(keys: keys, revisedKeys: revisedKeys)

            let created = StoreCodec.column(date)
            try db.execute(
                sql: """
                    INSERT INTO key_server_batches (batch_index, created_at, start_timestamp, end_timestamp,
                        first_file_index, file_count)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [batchIndex, created, Int64(start), Int64(end), firstFileIndex, archives.count])
            var files: [ENKeyServerFile] = []
            files.reserveCapacity(archives.count)
            for (number, archive) in archives.enumerated() {
                let file = ENKeyServerFile(
                    index: firstFileIndex + number,
                    name: ENKeyServerFile.name(start: start, end: end, number: number + 1),
                    batchIndex: batchIndex, startTimestamp: start, endTimestamp: end, createdAt: date,
                    data: try archive.zipData())
                try db.execute(
                    sql: """
                        INSERT INTO key_server_files (file_index, name, batch_index, start_timestamp, end_timestamp,
                            created_at, data)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [file.index, file.name, batchIndex, Int64(start), Int64(end), created, file.data])
                files.append(file)
            }
            // Revisions first: their keys already carry a batch index, the new keys get theirs after.
            try db.execute(
                sql: """
                    UPDATE key_server_keys SET revised_batch_index = ?
                    WHERE revised_at IS NOT NULL AND revised_batch_index IS NULL AND batch_index IS NOT NULL
                    """,
                arguments: [batchIndex])
            try db.execute(
                sql: "UPDATE key_server_keys SET batch_index = ? WHERE batch_index IS NULL", arguments: [batchIndex])
            return files
        }
    }

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
                index: row["file_index"], name: row["name"], batchIndex: row["batch_index"],
                startTimestamp: UInt64(max(0, row["start_timestamp"] as Int64)),
                endTimestamp: UInt64(max(0, row["end_timestamp"] as Int64)),
                createdAt: StoreCodec.date(row["created_at"]), data: row["data"])
        }
    }
}

extension ENKeyServerFile {
    /// Google's name of file `number` (1-based) of the batch from `start` to `end`: `START-END-NNNNN.zip`.
    static func name(start: UInt64, end: UInt64, number: Int) -> String {
        let digits = String(number)
        return "\(start)-\(end)-\(String(repeating: "0", count: max(0, 5 - digits.count)))\(digits).zip"
    }
}
