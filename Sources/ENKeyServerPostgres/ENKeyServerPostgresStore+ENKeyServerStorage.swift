#if PostgreSQL
    public import ENCore
    public import ENKeyServer
    public import Foundation
    import Logging
    import PostgresNIO

    /// The publish API's storage primitives on PostgreSQL.
    extension ENKeyServerPostgresStore: ENKeyServerStorage {
        /// The stored keys with the given key data, one per key data, in the order of `keyData` (duplicates once).
        ///
        /// One statement (`key_data = ANY($1)`, one round trip, a consistent snapshot on its own): a publish asks
        /// for all its keys at once, and most are new.
        public func storedKeys(withKeyData keyData: [Data]) async throws(ENError) -> [ENStoredDiagnosisKey] {
            var seen = Set<Data>()
            let unique = keyData.filter { seen.insert($0).inserted }
            guard !unique.isEmpty else { return [] }
            let found = try await statement { connection, logger in
                let rows = try await connection.query(
                    """
                    SELECT key_data, rolling_start, rolling_period, transmission_risk_level, report_type,
                        days_since_onset, variant, received_at, revised_report_type, revised_days_since_onset,
                        revised_at, regions, traveler, import_name
                    FROM key_server_keys WHERE key_data = ANY(\(unique.map { ByteBuffer(bytes: $0) }))
                    """, logger: logger)
                var found: [Data: ENStoredDiagnosisKey] = [:]
                for try await row in rows.decode(
                    (
                        Data, Int64, Int64, Int64, Int64, Int64?, Int64, Date, Int64?, Int64?, Date?, [String], Bool,
                        String?
                    )
                    .self)
                {
                    let key = try PostgresKeyRow(
                        keyData: row.0, rollingStart: row.1, rollingPeriod: row.2, transmissionRiskLevel: row.3,
                        reportType: row.4, daysSinceOnset: row.5, variant: row.6
                    ).key()
                    var stored = ENStoredDiagnosisKey(
                        key: key, exportableAt: row.7,
                        origin: ENKeyServerKeyOrigin(regions: row.11, traveler: row.12, importName: row.13))
                    if let revisedAt = row.10, let type = row.8 {
                        stored.revision = ENKeyServerRevision(
                            keyData: row.0,
                            reportType: ENDiagnosisReportType(rawValue: UInt32(clamping: type)) ?? .unknown,
                            daysSinceOnsetOfSymptoms: row.9.map { Int($0) } ?? ENDaysSinceOnsetOfSymptomsUnknown,
                            revisedAt: revisedAt)
                    }
                    if found[row.0] == nil { found[row.0] = stored }
                }
                return found
            }
            return unique.compactMap { found[$0] }
        }

        /// Runs `body`'s one statement on a pooled connection outside an explicit transaction
        /// (`PostgresClient.enStatement(_:)`).
        private func statement<Value: Sendable>(
            _ body: (PostgresConnection, Logger) async throws -> Value
        ) async throws(ENError) -> Value {
            let logger = self.logger
            return try await client.enStatement { connection in try await body(connection, logger) }
        }

        /// The most keys one `INSERT` carries: 11 parameters a key, under PostgreSQL's 65,535.
        static let keysPerInsert = 500

        /// The types of the columns ``insertion(_:locking:)`` writes, in its order.
        static let insertedColumnTypes = [
            "bytea", "bigint", "bigint", "bigint", "bigint", "bigint", "bigint", "timestamptz", "text[]", "boolean",
            "text",
        ]

        /// `keys` (at most ``keysPerInsert``, in key-data order) in one `INSERT ... ON CONFLICT (key_data) DO NOTHING
        /// RETURNING key_data`; with `locking`, the statement takes the exporter's shared lock itself before its first
        /// row (for a statement that is its own transaction).
        static func insertion(_ keys: ArraySlice<ENKeyServerInsertion>, locking: Bool) throws -> PostgresQuery {
            var bindings = PostgresBindings(capacity: 11 * keys.count + 1)
            for insertion in keys {
                let row = PostgresKeyRow(insertion.key)
                try bindings.append(row.keyData)
                bindings.append(row.rollingStart)
                bindings.append(row.rollingPeriod)
                bindings.append(row.transmissionRiskLevel)
                bindings.append(row.reportType)
                bindings.append(row.daysSinceOnset)
                bindings.append(row.variant)
                bindings.append(insertion.exportableAt)
                bindings.append(insertion.origin.regions)
                bindings.append(insertion.origin.traveler)
                bindings.append(insertion.origin.importName)
            }
            if locking { bindings.append(PostgresSchema.exportLock) }
            return PostgresQuery(unsafeSQL: insertionSQL(count: keys.count, locking: locking), binds: bindings)
        }

        /// The text of ``insertion(_:locking:)`` for `count` keys, which depends on nothing else: made once for each
        /// count a publish has (up to 64 keys), made each time for more.
        static func insertionSQL(count: Int, locking: Bool) -> String {
            let cacheKey = count * 2 + (locking ? 1 : 0)
            if count <= 64, let cached = insertionSQLCache.withLock({ $0[cacheKey] }) { return cached }
            // Typed, because rows selected from `VALUES` take their types from their values, not from the
            // columns they go into (a NULL would be text).
            let values = (0..<count).map { key in
                "("
                    + zip(11 * key + 1..<11 * key + 12, insertedColumnTypes).map { "$\($0)::\($1)" }.joined(
                        separator: ", ") + ")"
            }
            let columns = """
                key_data, rolling_start, rolling_period, transmission_risk_level, report_type, days_since_onset, \
                variant, received_at, regions, traveler, import_name
                """
            let source: String
            if locking {
                source = """
                    WITH export_lock AS MATERIALIZED (SELECT pg_advisory_xact_lock_shared($\(11 * count + 1)))
                    INSERT INTO key_server_keys (\(columns))
                    SELECT rows.* FROM export_lock, (VALUES \(values.joined(separator: ", "))) AS rows (\(columns))
                    """
            } else {
                source = "INSERT INTO key_server_keys (\(columns)) VALUES \(values.joined(separator: ", "))"
            }
            let sql = source + "\nON CONFLICT (key_data) DO NOTHING\nRETURNING key_data"
            if count <= 64 { insertionSQLCache.withLock { $0[cacheKey] = sql } }
            return sql
        }

        /// ``insertionSQL(count:locking:)``'s texts made so far.
        private static let insertionSQLCache = Locked<[Int: String]>([:])

        /// `keys` inserted by one statement that is its own transaction (``insertion(_:locking:)`` with the lock),
        /// run again, as a transaction is, when PostgreSQL aborts it as a deadlock victim or a serialization failure.
        private func lockedInsert(_ keys: [ENKeyServerInsertion]) async throws(ENError) -> Set<Data> {
            let logger = self.logger
            return try await PostgresClient.enRetryingTransient(logger: logger) {
                let query = try Self.insertion(keys[...], locking: true)
                return try await client.withConnection { connection in
                    var inserted = Set<Data>()
                    for try await keyData in try await connection.query(query, logger: logger).decode(Data.self) {
                        inserted.insert(keyData)
                    }
                    return inserted
                }
            }
        }

        /// `insertions` inserted unless any of `keyData` is stored; see
        /// `ENKeyServerStorage/insert(_:unlessAnyStored:)`.
        ///
        /// A publish whose keys are all to be inserted (at most 500, one origin, each key once) is one
        /// prepared statement in its own transaction, one round trip: the exporter's shared lock taken (as
        /// ``insertAndRevise(inserting:revising:)``'s one-statement form takes it) and a plain `INSERT` that a key
        /// stored already makes fail whole. Then, and for any other insertions, the stored keys are looked up and,
        /// if there are none, the keys inserted, as the protocol's default does.
        public func insert(_ insertions: [ENKeyServerInsertion], unlessAnyStored keyData: [Data]) async throws(ENError)
            -> ENKeyServerNewKeysOutcome
        {
            var seen = Set<Data>()
            let unique = keyData.filter { seen.insert($0).inserted }
            let insertedData = insertions.map(\.key.keyData)
            if let origin = insertions.first?.origin, insertions.count <= Self.keysPerInsert,
                insertions.allSatisfy({ $0.origin == origin }), insertedData.count == unique.count,
                Set(insertedData) == seen
            {
                let statement = NewKeysInsertStatement(
                    insertions: insertions.sorted(by: { $0.key.keyData.lexicographicallyPrecedes($1.key.keyData) }),
                    origin: origin)
                let logger = self.logger
                let inserted = try await PostgresClient.enRetryingTransient(logger: logger) {
                    try await client.withConnection { connection in
                        do {
                            _ = try await connection.execute(statement, logger: logger)
                            return true
                        } catch let error as PSQLError
                            where error.serverInfo?[.sqlState] == NewKeysInsertStatement.uniqueViolation
                        {
                            return false
                        }
                    }
                }
                if inserted { return .inserted(insertedData) }
            }
            return try await lookUpThenInsert(insertions, unlessAnyStored: unique)
        }

        /// Inserts and revises in one transaction; see `ENKeyServerStorage/insertAndRevise(inserting:revising:)`.
        /// Of two instances storing one key data at once, one inserts it and the other skips it; of two revising one
        /// key at once, one succeeds and the other throws `ENError.Code.badParameter` with nothing written.
        ///
        /// A publish's usual write, new keys and no revision (at most 500 keys), is one statement in its own
        /// transaction, one round trip: the exporter's shared lock taken in a `MATERIALIZED` common table expression
        /// the inserted rows are joined with, so that it is held before the first row is written and until the
        /// statement commits, as in the explicit transaction (`BEGIN`, the lock, the `INSERT`, `COMMIT`: four round
        /// trips) that anything larger runs.
        public func insertAndRevise(
            inserting insertions: [ENKeyServerInsertion], revising revisions: [ENKeyServerRevision]
        ) async throws(ENError) -> [Data] {
            // In key-data order, and revisions too: two publishes inserting overlapping keys wait for each other
            // in one order instead of deadlocking.
            let sorted = insertions.sorted(by: { $0.key.keyData.lexicographicallyPrecedes($1.key.keyData) })
            if revisions.isEmpty, !sorted.isEmpty, sorted.count <= Self.keysPerInsert {
                let inserted = try await lockedInsert(sorted)
                var reported = Set<Data>()
                return insertions.map(\.key.keyData).filter { inserted.contains($0) && reported.insert($0).inserted }
            }
            return try await transaction { connection, logger in
                try await connection.query(
                    "SELECT pg_advisory_xact_lock_shared(\(PostgresSchema.exportLock))", logger: logger)
                var inserted = Set<Data>()
                for start in stride(from: 0, to: sorted.count, by: Self.keysPerInsert) {
                    let chunk = sorted[start..<min(start + Self.keysPerInsert, sorted.count)]
                    let rows = try await connection.query(try Self.insertion(chunk, locking: false), logger: logger)
                    for try await keyData in rows.decode(Data.self) { inserted.insert(keyData) }
                }
                let ordered = revisions.enumerated().sorted {
                    $0.element.keyData.lexicographicallyPrecedes($1.element.keyData)
                }
                for (index, revision) in ordered {
                    let onset: Int64? =
                        revision.daysSinceOnsetOfSymptoms == ENDaysSinceOnsetOfSymptomsUnknown
                        ? nil : Int64(revision.daysSinceOnsetOfSymptoms)
                    let rows = try await connection.query(
                        """
                        UPDATE key_server_keys SET revised_report_type = \(Int64(revision.reportType.rawValue)),
                            revised_days_since_onset = \(onset), revised_at = \(revision.revisedAt),
                            revised_batch_index = NULL,
                            regions = CASE WHEN cardinality(\(revision.regions)::text[]) = 0 THEN regions
                                ELSE \(revision.regions)::text[] END
                        WHERE id = (SELECT MIN(id) FROM key_server_keys WHERE key_data = \(revision.keyData))
                            AND revised_at IS NULL
                        RETURNING id
                        """, logger: logger)
                    var updated = 0
                    for try await _ in rows.decode(Int64.self) { updated += 1 }
                    guard updated == 1 else {
                        throw ENError.badParameter(
                            "the key to revise is not stored, or was revised meanwhile",
                            context: .init(section: "revisions", index: index))
                    }
                }
                var reported = Set<Data>()
                return insertions.map(\.key.keyData).filter { inserted.contains($0) && reported.insert($0).inserted }
            }
        }
    }

    /// A key's columns as `key_server_keys` stores them.
    struct PostgresKeyRow {
        var keyData: Data
        var rollingStart: Int64
        var rollingPeriod: Int64
        var transmissionRiskLevel: Int64
        var reportType: Int64
        var daysSinceOnset: Int64?
        var variant: Int64

        init(
            keyData: Data, rollingStart: Int64, rollingPeriod: Int64, transmissionRiskLevel: Int64, reportType: Int64,
            daysSinceOnset: Int64?, variant: Int64
        ) {
            self.keyData = keyData
            self.rollingStart = rollingStart
            self.rollingPeriod = rollingPeriod
            self.transmissionRiskLevel = transmissionRiskLevel
            self.reportType = reportType
            self.daysSinceOnset = daysSinceOnset
            self.variant = variant
        }

        init(_ key: ENTemporaryExposureKey) {
            self.init(
                keyData: key.keyData, rollingStart: Int64(key.rollingStartNumber),
                rollingPeriod: Int64(key.rollingPeriod), transmissionRiskLevel: Int64(key.transmissionRiskLevel),
                reportType: Int64(key.diagnosisReportType.rawValue),
                daysSinceOnset: key.hasKnownDaysSinceOnsetOfSymptoms ? Int64(key.daysSinceOnsetOfSymptoms) : nil,
                variant: Int64(key.variantOfConcern.rawValue))
        }

        /// The key; `ENError.Code.badFormat` naming the column when a stored value is out of its type's range.
        func key() throws(ENError) -> ENTemporaryExposureKey {
            func value<T: FixedWidthInteger>(_ raw: Int64, _ column: String) throws(ENError) -> T {
                guard let value = T(exactly: raw) else {
                    throw ENError(
                        .badFormat, "key_server_keys.\(column) holds \(raw), out of range",
                        context: .init(section: "key_server_keys", field: column))
                }
                return value
            }
            let reportRaw: UInt32 = try value(reportType, "report_type")
            let variantRaw: UInt32 = try value(variant, "variant")
            guard let report = ENDiagnosisReportType(rawValue: reportRaw) else {
                throw ENError(
                    .badFormat, "key_server_keys.report_type holds \(reportType), not a report type",
                    context: .init(section: "key_server_keys", field: "report_type"))
            }
            guard let variantOfConcern = ENVariantOfConcernType(rawValue: variantRaw) else {
                throw ENError(
                    .badFormat, "key_server_keys.variant holds \(variant), not a variant",
                    context: .init(section: "key_server_keys", field: "variant"))
            }
            let onset: Int =
                if let daysSinceOnset { try value(daysSinceOnset, "days_since_onset") } else {
                    ENDaysSinceOnsetOfSymptomsUnknown
                }
            return ENTemporaryExposureKey(
                keyData: keyData, rollingStartNumber: try value(rollingStart, "rolling_start"),
                rollingPeriod: try value(rollingPeriod, "rolling_period"),
                transmissionRiskLevel: try value(transmissionRiskLevel, "transmission_risk_level"),
                diagnosisReportType: report, daysSinceOnsetOfSymptoms: onset, variantOfConcern: variantOfConcern)
        }
    }
#endif
