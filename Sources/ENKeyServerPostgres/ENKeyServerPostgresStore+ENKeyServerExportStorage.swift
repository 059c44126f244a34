#if PostgreSQL
    public import ENCore
    public import ENKeyServer
    public import Foundation
    import Logging
    import PostgresNIO

    /// The export primitives on PostgreSQL: the same rules as the SQLite store's (`ENKeyServerSQLiteStore.claimExportBatch`
    /// and its siblings document them), each one transaction.
    extension ENKeyServerPostgresStore: ENKeyServerExportStorage {
        /// Creates the batches due at `date` (those `ENKeyServerConfiguration.batchWindows` answers, the rule every
        /// storage follows) and claims the oldest open batch no exporter holds (or whose lease expired) for
        /// `owner`, under the export lock; `nil` when there is none.
        public func claimExportBatch(
            _ configuration: ENKeyServerConfiguration, owner: String, at date: Date
        ) async throws(ENError) -> ENKeyServerExportLease? {
            try configuration.validateExportSettings()
            return try await transaction { connection, logger in
                try await connection.query("SELECT pg_advisory_xact_lock(\(PostgresSchema.exportLock))", logger: logger)
                let name = configuration.exportName
                var latestEnd: Int64?
                var nextIndex: Int64 = 0
                for try await (end, index) in try await connection.query(
                    """
                    SELECT MAX(end_timestamp) FILTER (WHERE export_name = \(name)), MAX(batch_index)
                    FROM key_server_batches
                    """, logger: logger
                ).decode((Int64?, Int64?).self) {
                    latestEnd = end
                    nextIndex = (index ?? -1) + 1
                }
                func create(_ window: Range<UInt64>, keysFrom: Date?, keysUntil: Date) async throws {
                    try await connection.query(
                        """
                        INSERT INTO key_server_batches (batch_index, created_at, start_timestamp, end_timestamp,
                            first_file_index, file_count, status, keys_from, keys_until, export_name)
                        VALUES (\(nextIndex), \(date), \(Int64(window.lowerBound)), \(Int64(window.upperBound)), 0, 0,
                            'open', \(keysFrom), \(keysUntil), \(name))
                        """, logger: logger)
                    nextIndex += 1
                }
                var hasOpen = false
                for try await open in try await connection.query(
                    """
                    SELECT EXISTS (SELECT 1 FROM key_server_batches WHERE status = 'open' AND export_name = \(name))
                    """, logger: logger
                ).decode(Bool.self) {
                    hasOpen = open
                }
                var earliest: Date?
                if let until = configuration.waitingKeysBound(openBatchExists: hasOpen, at: date) {
                    for try await arrival in try await connection.query(
                        """
                        SELECT MIN(arrival) FROM (
                            SELECT MIN(received_at) AS arrival FROM key_server_keys AS k
                            WHERE NOT k.is_padding AND received_at < \(until) AND NOT EXISTS (
                                SELECT 1 FROM key_server_export_marks AS m
                                WHERE m.export_name = \(name) AND m.revision = 0 AND m.key_id = k.id)
                            UNION ALL
                            SELECT MIN(revised_at) FROM key_server_keys AS k
                            WHERE revised_at IS NOT NULL AND revised_at < \(until) AND NOT EXISTS (
                                SELECT 1 FROM key_server_export_marks AS m
                                WHERE m.export_name = \(name) AND m.revision = 1 AND m.key_id = k.id))
                            AS waiting
                        """, logger: logger
                    ).decode(Date?.self) {
                        earliest = arrival
                    }
                }
                let latest = latestEnd.map { UInt64(max(0, $0)) }
                for batch in configuration.batchWindows(latestEnd: latest, earliestWaiting: earliest, at: date) {
                    try await create(batch.window, keysFrom: batch.keysFrom, keysUntil: batch.keysUntil)
                }
                var lease: ENKeyServerExportLease?
                let expires = date.addingTimeInterval(configuration.exportLeaseDuration)
                for try await (index, start, end, from, until) in try await connection.query(
                    """
                    SELECT batch_index, start_timestamp, end_timestamp, keys_from, keys_until FROM key_server_batches
                    WHERE status = 'open' AND export_name = \(name)
                        AND (lease_expires IS NULL OR lease_expires <= \(date))
                    ORDER BY batch_index LIMIT 1
                    """, logger: logger
                ).decode((Int64, Int64, Int64, Date?, Date).self) {
                    lease = ENKeyServerExportLease(
                        batchIndex: Int(index), startTimestamp: UInt64(max(0, start)),
                        endTimestamp: UInt64(max(0, end)),
                        keysFrom: from, keysUntil: until, owner: owner, expiresAt: expires, exportName: name)
                }
                guard let lease else { return nil }
                try await connection.query(
                    """
                    UPDATE key_server_batches SET lease_owner = \(owner), lease_expires = \(expires)
                    WHERE batch_index = \(Int64(lease.batchIndex))
                    """, logger: logger)
                return lease
            }
        }

        /// The keys a claimed batch exports: the new keys not yet exported that arrived in its window (in arrival
        /// order) and the revisions not yet exported made in it (in revision order, whether or not their key was
        /// exported before, as Google selects them: `internal/publish/database/exposure.go` `IterateExposures`).
        /// Read under the export lock,
        /// taken exclusively, so that every key with a row number up to `ENKeyServerExportContents/lastKeyRow`
        /// is committed and seen.
        public func exportBatchContents(
            _ lease: ENKeyServerExportLease
        ) async throws(ENError) -> ENKeyServerExportContents {
            try await transaction { connection, logger in
                try await connection.query("SELECT pg_advisory_xact_lock(\(PostgresSchema.exportLock))", logger: logger)
                var lastRow: Int64 = 0
                for try await last in try await connection.query(
                    "SELECT COALESCE(MAX(id), 0) FROM key_server_keys", logger: logger
                ).decode(Int64.self) {
                    lastRow = last
                }
                let from = lease.keysFrom
                let until = lease.keysUntil
                let name = lease.exportName
                var keys: [ENTemporaryExposureKey] = []
                var latest: Date?
                var origins: [Data: ENKeyServerKeyOrigin] = [:]
                for try await row in try await connection.query(
                    """
                    SELECT key_data, rolling_start, rolling_period, transmission_risk_level, report_type,
                        days_since_onset, variant, received_at, regions, traveler
                    FROM key_server_keys AS k
                    WHERE NOT is_padding AND received_at < \(until)
                        AND (\(from)::timestamptz IS NULL OR received_at >= \(from))
                        AND NOT EXISTS (
                            SELECT 1 FROM key_server_export_marks AS m
                            WHERE m.export_name = \(name) AND m.revision = 0 AND m.key_id = k.id)
                    ORDER BY id
                    """, logger: logger
                ).decode((Data, Int64, Int64, Int64, Int64, Int64?, Int64, Date, [String], Bool).self) {
                    if !row.8.isEmpty { origins[row.0] = ENKeyServerKeyOrigin(regions: row.8, traveler: row.9) }
                    keys.append(
                        try PostgresKeyRow(
                            keyData: row.0, rollingStart: row.1, rollingPeriod: row.2, transmissionRiskLevel: row.3,
                            reportType: row.4, daysSinceOnset: row.5, variant: row.6
                        ).key())
                    latest = max(latest ?? row.7, row.7)
                }
                var revised: [ENTemporaryExposureKey] = []
                for try await row in try await connection.query(
                    """
                    SELECT key_data, rolling_start, rolling_period, transmission_risk_level, revised_report_type,
                        revised_days_since_onset, variant, regions, traveler
                    FROM key_server_keys AS k
                    WHERE revised_at IS NOT NULL AND revised_at < \(until)
                        AND (\(from)::timestamptz IS NULL OR revised_at >= \(from))
                        AND NOT EXISTS (
                            SELECT 1 FROM key_server_export_marks AS m
                            WHERE m.export_name = \(name) AND m.revision = 1 AND m.key_id = k.id)
                    ORDER BY revised_at, id
                    """, logger: logger
                ).decode((Data, Int64, Int64, Int64, Int64, Int64?, Int64, [String], Bool).self) {
                    if !row.7.isEmpty { origins[row.0] = ENKeyServerKeyOrigin(regions: row.7, traveler: row.8) }
                    revised.append(
                        try PostgresKeyRow(
                            keyData: row.0, rollingStart: row.1, rollingPeriod: row.2, transmissionRiskLevel: row.3,
                            reportType: row.4, daysSinceOnset: row.5, variant: row.6
                        ).key())
                }
                return ENKeyServerExportContents(
                    keys: keys, revisedKeys: revised, latestArrival: latest, lastKeyRow: lastRow, origins: origins)
            }
        }

        /// Records a claimed batch's files and padding keys and marks what it exported, under the export lock;
        /// `ENError.Code.invalidated` when `lease.owner` no longer holds the batch (nothing is recorded then).
        public func completeExportBatch(
            _ lease: ENKeyServerExportLease, files: [Data], paddingKeys: [ENTemporaryExposureKey],
            contents: ENKeyServerExportContents, at date: Date
        ) async throws(ENError) -> [ENKeyServerFile] {
            try await transaction { connection, logger in
                try await connection.query("SELECT pg_advisory_xact_lock(\(PostgresSchema.exportLock))", logger: logger)
                let batch = Int64(lease.batchIndex)
                var held = false
                let name = lease.exportName
                for try await (status, owner, exportName) in try await connection.query(
                    """
                    SELECT status, lease_owner, export_name FROM key_server_batches WHERE batch_index = \(batch)
                    FOR UPDATE
                    """,
                    logger: logger
                ).decode((String, String?, String).self) {
                    held = status == "open" && owner == lease.owner && exportName == name
                }
                guard held else {
                    throw ENError(
                        .invalidated,
                        "export batch \(lease.batchIndex) is no longer held by \(lease.owner): its lease expired and "
                            + "another exporter took it")
                }
                var firstFileIndex: Int64 = 0
                for try await first in try await connection.query(
                    """
                    SELECT COALESCE(MAX(first_file_index + file_count), 0) FROM key_server_batches
                    WHERE status = 'complete' AND export_name = \(name)
                    """, logger: logger
                ).decode(Int64.self) {
                    firstFileIndex = first
                }
                var records: [ENKeyServerFile] = []
                for (number, data) in files.enumerated() {
                    let file = ENKeyServerFile(
                        index: Int(firstFileIndex) + number,
                        name: ENKeyServerFile.name(
                            start: lease.startTimestamp, end: lease.endTimestamp, number: number + 1),
                        batchIndex: lease.batchIndex, startTimestamp: lease.startTimestamp,
                        endTimestamp: lease.endTimestamp, createdAt: date, data: data)
                    try await connection.query(
                        """
                        INSERT INTO key_server_files (export_name, file_index, name, batch_index, start_timestamp,
                            end_timestamp, created_at, data)
                        VALUES (\(name), \(Int64(file.index)), \(file.name), \(batch), \(Int64(lease.startTimestamp)),
                            \(Int64(lease.endTimestamp)), \(date), \(data))
                        """, logger: logger)
                    records.append(file)
                }
                try await connection.query(
                    """
                    UPDATE key_server_batches SET status = 'complete', created_at = \(date),
                        first_file_index = \(firstFileIndex), file_count = \(Int64(files.count)), lease_owner = NULL,
                        lease_expires = NULL
                    WHERE batch_index = \(batch)
                    """, logger: logger)
                // Revisions first, by key: those read, not one written since with a date in the window. The marks
                // are this configuration's alone.
                for key in contents.revisedKeys {
                    try await connection.query(
                        """
                        INSERT INTO key_server_export_marks (export_name, key_id, revision, batch_index)
                        SELECT \(name), id, 1, \(batch) FROM key_server_keys
                        WHERE key_data = \(key.keyData) AND revised_at IS NOT NULL
                        ON CONFLICT DO NOTHING
                        """, logger: logger)
                }
                let from = lease.keysFrom
                try await connection.query(
                    """
                    INSERT INTO key_server_export_marks (export_name, key_id, revision, batch_index)
                    SELECT \(name), id, 0, \(batch) FROM key_server_keys AS k
                    WHERE NOT is_padding AND id <= \(contents.lastKeyRow)
                        AND received_at < \(lease.keysUntil) AND (\(from)::timestamptz IS NULL OR received_at >= \(from))
                        AND NOT EXISTS (
                            SELECT 1 FROM key_server_export_marks AS m
                            WHERE m.export_name = \(name) AND m.revision = 0 AND m.key_id = k.id)
                    """, logger: logger)
                let arrival = contents.latestArrival ?? lease.keysUntil
                for key in paddingKeys {
                    let row = PostgresKeyRow(key)
                    try await connection.query(
                        """
                        INSERT INTO key_server_keys (key_data, rolling_start, rolling_period, transmission_risk_level,
                            report_type, days_since_onset, variant, received_at, batch_index, is_padding)
                        VALUES (\(row.keyData), \(row.rollingStart), \(row.rollingPeriod), \(row.transmissionRiskLevel),
                            \(row.reportType), \(row.daysSinceOnset), \(row.variant), \(arrival), \(batch), TRUE)
                        ON CONFLICT (key_data) DO NOTHING
                        """, logger: logger)
                }
                return records
            }
        }

        /// Gives up `lease` (after a failed export), so that the batch can be claimed again at once.
        public func releaseExportBatch(_ lease: ENKeyServerExportLease) async throws(ENError) {
            try await transaction { connection, logger in
                _ = try await connection.query(
                    """
                    UPDATE key_server_batches SET lease_owner = NULL, lease_expires = NULL
                    WHERE batch_index = \(Int64(lease.batchIndex)) AND lease_owner = \(lease.owner) AND status = 'open'
                    """, logger: logger)
            }
        }

        /// The names of the files of the export configuration `exportName` whose batches started after `cutoff`, in
        /// byte order (`COLLATE "C"`, as Go's `sort.Strings`).
        public func exportFileNames(of exportName: String, startingAfter cutoff: Date) async throws(ENError)
            -> [String]
        {
            try await names(
                """
                SELECT name FROM key_server_files
                WHERE export_name = \(exportName) AND start_timestamp > \(Self.seconds(cutoff)) ORDER BY name COLLATE "C"
                """)
        }

        /// The file of the export configuration `exportName` named `name`, or `nil`.
        public func exportFile(of exportName: String, named name: String) async throws(ENError) -> ENKeyServerFile? {
            try await files(
                """
                SELECT file_index, name, batch_index, start_timestamp, end_timestamp, created_at, data
                FROM key_server_files WHERE export_name = \(exportName) AND name = \(name)
                """
            ).first
        }

        /// The files of the export configuration `exportName` from index `index` on, in index order.
        public func exportFiles(of exportName: String, startingAt index: Int) async throws(ENError)
            -> [ENKeyServerFile]
        {
            try await files(
                """
                SELECT file_index, name, batch_index, start_timestamp, end_timestamp, created_at, data
                FROM key_server_files WHERE export_name = \(exportName) AND file_index >= \(Int64(index))
                ORDER BY file_index
                """)
        }

        /// The files one query lists.
        func files(_ query: PostgresQuery) async throws(ENError) -> [ENKeyServerFile] {
            try await transaction { connection, logger in
                var files: [ENKeyServerFile] = []
                for try await row in try await connection.query(query, logger: logger).decode(
                    (Int64, String, Int64, Int64, Int64, Date, Data).self)
                {
                    files.append(
                        ENKeyServerFile(
                            index: Int(row.0), name: row.1, batchIndex: Int(row.2),
                            startTimestamp: UInt64(max(0, row.3)), endTimestamp: UInt64(max(0, row.4)),
                            createdAt: row.5, data: row.6))
                }
                return files
            }
        }

        /// The names of the files of the export configuration `exportName` whose batches ended at or before `cutoff`,
        /// in byte order.
        public func exportFileNames(of exportName: String, endingAtOrBefore cutoff: Date) async throws(ENError)
            -> [String]
        {
            try await names(
                """
                SELECT name FROM key_server_files
                WHERE export_name = \(exportName) AND end_timestamp <= \(Self.seconds(cutoff)) ORDER BY name COLLATE "C"
                """)
        }

        /// Deletes the keys that arrived before `cutoff` and the files of batches that ended at or before it; returns
        /// how many keys were deleted. Batch records stay, so that batch and file indexes never repeat.
        public func deleteExpired(before cutoff: Date) async throws(ENError) -> Int {
            try await transaction { connection, logger in
                try await connection.query(
                    "DELETE FROM key_server_files WHERE end_timestamp <= \(Self.seconds(cutoff))", logger: logger)
                var deleted: Int64 = 0
                for try await count in try await connection.query(
                    """
                    WITH deleted AS (DELETE FROM key_server_keys WHERE received_at < \(cutoff) RETURNING 1)
                    SELECT COUNT(*) FROM deleted
                    """, logger: logger
                ).decode(Int64.self) {
                    deleted = count
                }
                return Int(deleted)
            }
        }

        /// `date` in whole UTC seconds, as batch windows are stored.
        static func seconds(_ date: Date) -> Int64 { Int64(ExportBatchWindow.unixSeconds(date)) }

        /// The names one query lists.
        func names(_ query: PostgresQuery) async throws(ENError) -> [String] {
            try await transaction { connection, logger in
                var names: [String] = []
                for try await name in try await connection.query(query, logger: logger).decode(String.self) {
                    names.append(name)
                }
                return names
            }
        }
    }
#endif
