public import ENCore
public import ENKeyServer
internal import ENSQLite
public import Foundation
internal import GRDB

/// The export primitives on SQLite: claiming a due batch under a lease, reading its keys, recording its files,
/// releasing it, and the names `index.txt` lists. Each is one transaction; ``ENKeyServerSQLiteStore`` runs them for
/// `ENKeyServerStorage`.
extension ENKeyServerSQLiteStore {
    /// Creates the batches due at `date` and claims the oldest open batch that no exporter holds (or whose lease
    /// expired) for `owner`, in one transaction; `nil` when there is none.
    ///
    /// The batches created are those `ENKeyServerConfiguration.batchWindows(latestEnd:earliestWaiting:at:)`
    /// answers, the rule every storage follows.
    ///
    /// - Throws: `ENError.Code.badParameter` for invalid export settings; database errors.
    public func claimExportBatch(_ configuration: ENKeyServerConfiguration, owner: String, at date: Date)
        async throws(ENError) -> ENKeyServerExportLease?
    {
        try await write { db in
            try configuration.validateExportSettings()
            let name = configuration.exportName
            let latestEnd = try Int64.fetchOne(
                db, sql: "SELECT MAX(end_timestamp) FROM key_server_batches WHERE export_name = ?", arguments: [name])
            var nextIndex = (try Int.fetchOne(db, sql: "SELECT MAX(batch_index) FROM key_server_batches") ?? -1) + 1
            func create(_ window: Range<UInt64>, keysFrom: Date?, keysUntil: Date) throws {
                try db.execute(
                    sql: """
                        INSERT INTO key_server_batches (batch_index, created_at, start_timestamp, end_timestamp,
                            first_file_index, file_count, status, keys_from, keys_until, export_name)
                        VALUES (?, ?, ?, ?, 0, 0, 'open', ?, ?, ?)
                        """,
                    arguments: [
                        nextIndex, SQLiteCodec.column(date), Int64(window.lowerBound), Int64(window.upperBound),
                        keysFrom.map(SQLiteCodec.column), SQLiteCodec.column(keysUntil), name,
                    ])
                nextIndex += 1
            }
            let hasOpen = try Bool.fetchOne(
                db,
                sql: "SELECT EXISTS (SELECT 1 FROM key_server_batches WHERE status = 'open' AND export_name = ?)",
                arguments: [name])!
            var earliest: Date?
            if let until = configuration.waitingKeysBound(openBatchExists: hasOpen, at: date) {
                earliest = try Double.fetchOne(
                    db,
                    sql: """
                        SELECT MIN(arrival) FROM (
                            SELECT MIN(received_at) AS arrival FROM key_server_keys
                            WHERE \(KeyServerTables.awaitingKey) AND received_at < ?
                            UNION ALL
                            SELECT MIN(revised_at) FROM key_server_keys
                            WHERE \(KeyServerTables.awaitingRevision) AND revised_at < ?)
                        """,
                    arguments: [name, SQLiteCodec.column(until), name, SQLiteCodec.column(until)]
                ).map(SQLiteCodec.date)
            }
            let latest = latestEnd.map { UInt64(max(0, $0)) }
            for batch in configuration.batchWindows(latestEnd: latest, earliestWaiting: earliest, at: date) {
                try create(batch.window, keysFrom: batch.keysFrom, keysUntil: batch.keysUntil)
            }
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT batch_index, start_timestamp, end_timestamp, keys_from, keys_until
                        FROM key_server_batches
                        WHERE status = 'open' AND export_name = ? AND (lease_expires IS NULL OR lease_expires <= ?)
                        ORDER BY batch_index LIMIT 1
                        """,
                    arguments: [name, SQLiteCodec.column(date)])
            else { return nil }
            let expires = date.addingTimeInterval(configuration.exportLeaseDuration)
            let lease = ENKeyServerExportLease(
                batchIndex: try row.stored("batch_index"),
                startTimestamp: UInt64(max(0, (try row.stored("start_timestamp", as: Int64.self)))),
                endTimestamp: UInt64(max(0, (try row.stored("end_timestamp", as: Int64.self)))),
                keysFrom: ((try row.stored("keys_from", as: Double?.self))).map(SQLiteCodec.date),
                keysUntil: SQLiteCodec.date(try row.stored("keys_until")), owner: owner, expiresAt: expires,
                exportName: name)
            try db.execute(
                sql: "UPDATE key_server_batches SET lease_owner = ?, lease_expires = ? WHERE batch_index = ?",
                arguments: [owner, SQLiteCodec.column(expires), lease.batchIndex])
            return lease
        }
    }

    /// Records the files of a claimed batch and completes it, in one transaction: the files (named
    /// `START-END-NNNNN.zip`, numbered from 1, with the next file indexes), the padding keys (stored with the
    /// batch's latest arrival), and the batch's keys and revisions marked as exported.
    ///
    /// - Parameters:
    ///   - lease: the claim.
    ///   - files: the signed zips, in order (none for an empty batch).
    ///   - paddingKeys: the random keys the files were padded with.
    ///   - contents: what `exportBatchContents(_:)` read for the batch.
    ///   - date: the completion date.
    /// - Returns: the recorded files, in index order.
    /// - Throws: `ENError.Code.invalidated` when `lease.owner` no longer holds the batch (its lease expired and
    ///   another exporter claimed or completed it); nothing is recorded then. Database errors.
    public func completeExportBatch(
        _ lease: ENKeyServerExportLease, files: [Data], paddingKeys: [ENTemporaryExposureKey],
        contents: ENKeyServerExportContents, at date: Date
    ) async throws(ENError) -> [ENKeyServerFile] {
        try await write { db in
            let holder = try Row.fetchOne(
                db, sql: "SELECT status, lease_owner, export_name FROM key_server_batches WHERE batch_index = ?",
                arguments: [lease.batchIndex])
            guard let holder, holder["status"] as String == "open", holder["lease_owner"] as String? == lease.owner,
                holder["export_name"] as String == lease.exportName
            else {
                throw ENError(
                    .invalidated,
                    "export batch \(lease.batchIndex) is no longer held by \(lease.owner): its lease expired and "
                        + "another exporter took it")
            }
            let firstFileIndex =
                try Int.fetchOne(
                    db,
                    sql: """
                        SELECT MAX(first_file_index + file_count) FROM key_server_batches
                        WHERE status = 'complete' AND export_name = ?
                        """, arguments: [lease.exportName])
                ?? 0
            let created = SQLiteCodec.column(date)
            var records: [ENKeyServerFile] = []
            for (number, data) in files.enumerated() {
                let file = ENKeyServerFile(
                    index: firstFileIndex + number,
                    name: ENKeyServerFile.name(
                        start: lease.startTimestamp, end: lease.endTimestamp, number: number + 1),
                    batchIndex: lease.batchIndex, startTimestamp: lease.startTimestamp,
                    endTimestamp: lease.endTimestamp, createdAt: date, data: data)
                try db.execute(
                    sql: """
                        INSERT INTO key_server_files (export_name, file_index, name, batch_index, start_timestamp,
                            end_timestamp, created_at, data)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        lease.exportName, file.index, file.name, lease.batchIndex, Int64(lease.startTimestamp),
                        Int64(lease.endTimestamp), created, file.data,
                    ])
                records.append(file)
            }
            try db.execute(
                sql: """
                    UPDATE key_server_batches SET status = 'complete', created_at = ?, first_file_index = ?,
                        file_count = ?, lease_owner = NULL, lease_expires = NULL
                    WHERE batch_index = ?
                    """,
                arguments: [created, firstFileIndex, files.count, lease.batchIndex])
            let window = KeyServerTables.window(lease)
            // The revisions exported are those read, by key: a revision dated in the window but written after the
            // read waits for the next batch instead of being marked exported unpublished.
            // The export marks are this configuration's alone: another configuration exports the same keys on its own.
            let markRevision = try db.cachedStatement(
                sql: """
                    INSERT OR IGNORE INTO key_server_export_marks (export_name, key_id, revision, batch_index)
                    SELECT ?, id, 1, ? FROM key_server_keys WHERE key_data = ? AND revised_at IS NOT NULL
                    """)
            for key in contents.revisedKeys {
                try markRevision.execute(arguments: [lease.exportName, lease.batchIndex, key.keyData])
            }
            try db.execute(
                sql: """
                    INSERT INTO key_server_export_marks (export_name, key_id, revision, batch_index)
                    SELECT ?, id, 0, ? FROM key_server_keys
                    WHERE \(KeyServerTables.awaitingKey) AND id <= ? AND \(window.condition("received_at"))
                    """,
                arguments: [lease.exportName, lease.batchIndex, lease.exportName, contents.lastKeyRow]
                    + window.arguments)
            let insert = try db.cachedStatement(
                sql: """
                    INSERT OR IGNORE INTO key_server_keys (\(SQLiteCodec.keyColumns), received_at, batch_index,
                        is_padding)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1)
                    """)
            let arrival = SQLiteCodec.column(contents.latestArrival ?? lease.keysUntil)
            for key in paddingKeys {
                try insert.execute(arguments: SQLiteCodec.keyArguments(key) + [arrival, lease.batchIndex])
            }
            return records
        }
    }

    /// Gives up `lease` (after a failed export), so that the batch can be claimed again at once.
    public func releaseExportBatch(_ lease: ENKeyServerExportLease) async throws(ENError) {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE key_server_batches SET lease_owner = NULL, lease_expires = NULL
                    WHERE batch_index = ? AND lease_owner = ? AND status = 'open'
                    """,
                arguments: [lease.batchIndex, lease.owner])
        }
    }
}

extension ENKeyServerSQLiteStore {
    /// The keys a claimed batch exports: the new keys not yet exported that arrived in its window (in arrival
    /// order), and the revisions not yet exported made in it (in revision order), whether or not their key was
    /// exported before: Google selects revisions by `revised_at` alone (`internal/publish/database/exposure.go`,
    /// `IterateExposures` with `OnlyRevisedKeys`), so the batch that carries a key can carry its revision too.
    public func exportBatchContents(_ lease: ENKeyServerExportLease) async throws(ENError) -> ENKeyServerExportContents
    {
        try await read { db in
            let window = KeyServerTables.window(lease)
            let lastRow = try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM key_server_keys") ?? 0
            let name = lease.exportName
            let waiting = "\(KeyServerTables.awaitingKey) AND \(window.condition("received_at"))"
            let keys = try KeyServerTables.keys(db, where: waiting, [name] + window.arguments)
            let latest = try Double.fetchOne(
                db, sql: "SELECT MAX(received_at) FROM key_server_keys WHERE \(waiting)",
                arguments: [name] + window.arguments)
            let revisedCondition = "\(KeyServerTables.awaitingRevision) AND \(window.condition("revised_at"))"
            let revised = try KeyServerTables.revisedKeys(db, where: revisedCondition, [name] + window.arguments)
            var origins = try KeyServerTables.origins(db, where: waiting, [name] + window.arguments)
            origins.merge(
                try KeyServerTables.origins(db, where: revisedCondition, [name] + window.arguments),
                uniquingKeysWith: { $1 })
            return ENKeyServerExportContents(
                keys: keys, revisedKeys: revised, latestArrival: latest.map(SQLiteCodec.date), lastKeyRow: lastRow,
                origins: origins)
        }
    }

    /// The names of the files of batches that started after `cutoff`, sorted in byte order (Go's
    /// `sort.Strings`): what Google's `index.txt` lists (`database/export.go` `LookupExportFiles`).
    public func exportFileNames(of exportName: String, startingAfter cutoff: Date) async throws(ENError) -> [String] {
        try await read { db in
            try String.fetchAll(
                db,
                sql: "SELECT name FROM key_server_files WHERE export_name = ? AND start_timestamp > ? ORDER BY name",
                arguments: [exportName, Int64(ExportBatchWindow.unixSeconds(cutoff))])
        }
    }

    /// The names of the files of batches that ended at or before `cutoff`: those retention deletes.
    public func exportFileNames(of exportName: String, endingAtOrBefore cutoff: Date) async throws(ENError)
        -> [String]
    {
        try await read { db in
            try String.fetchAll(
                db,
                sql: "SELECT name FROM key_server_files WHERE export_name = ? AND end_timestamp <= ? ORDER BY name",
                arguments: [exportName, Int64(ExportBatchWindow.unixSeconds(cutoff))])
        }
    }
}

extension KeyServerTables {
    /// The condition of a new key the export configuration named by the statement's next argument has not exported:
    /// not padding, and no export mark of the configuration. A key without a mark waits however late it was
    /// committed.
    static let awaitingKey = """
        is_padding = 0 AND NOT EXISTS (SELECT 1 FROM key_server_export_marks AS m
            WHERE m.export_name = ? AND m.revision = 0 AND m.key_id = key_server_keys.id)
        """

    /// The condition of a revision the export configuration named by the statement's next argument has not
    /// exported.
    static let awaitingRevision = """
        revised_at IS NOT NULL AND NOT EXISTS (SELECT 1 FROM key_server_export_marks AS m
            WHERE m.export_name = ? AND m.revision = 1 AND m.key_id = key_server_keys.id)
        """

    /// A batch's arrival window as an SQL condition on a date column, with its arguments.
    struct Window {
        let from: Double?
        let until: Double

        func condition(_ column: String) -> String {
            from == nil ? "\(column) < ?" : "\(column) < ? AND \(column) >= ?"
        }

        var arguments: StatementArguments { from.map { [until, $0] } ?? [until] }
    }

    static func window(_ lease: ENKeyServerExportLease) -> Window {
        Window(from: lease.keysFrom.map(SQLiteCodec.column), until: SQLiteCodec.column(lease.keysUntil))
    }
}
