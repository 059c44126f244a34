#if PostgreSQL
    import ENCore
    import ENKeyServer
    import Foundation
    import PostgresNIO

    /// A publish's keys, all new, in one prepared statement that is its own transaction: the exporter's shared lock
    /// taken before the first row, then a plain `INSERT` (no `ON CONFLICT`), so that a key stored already makes the
    /// whole statement fail with `unique_violation` (SQLSTATE 23505) and write nothing
    /// (`ENKeyServerStorage.insert(_:unlessAnyStored:)`; the caller then takes the lookup-and-rules path).
    ///
    /// The unique index on `key_data` finds stored keys, as it does for any `INSERT`: no lookup whose plan depends
    /// on the table's statistics (a generic plan made while the table was nearly empty would scan it whole at every
    /// publish until the next `ANALYZE`). Prepared once per connection (postgres-nio keeps it by ``name``), so
    /// PostgreSQL parses and plans it once instead of at every publish; its text is therefore the same for any
    /// number of keys: the keys' columns travel as arrays that `unnest` turns back into rows, and the origin, which
    /// all of a publish's keys share, as three scalars. `days_since_onset` travels as ``unknownOnset`` for a key
    /// without one (a bound array has no NULL elements here).
    struct NewKeysInsertStatement: PostgresPreparedStatement {
        typealias Row = ()

        /// The value standing for "no days since onset" in the bound array.
        static let unknownOnset = Int64.min

        static let name = "enserver_insert_new_keys_v1"

        static let sql = """
            WITH export_lock AS MATERIALIZED (SELECT pg_advisory_xact_lock_shared($1::bigint))
            INSERT INTO key_server_keys (key_data, rolling_start, rolling_period, transmission_risk_level,
                report_type, days_since_onset, variant, received_at, regions, traveler, import_name)
            SELECT rows.key_data, rows.rolling_start, rows.rolling_period, rows.transmission_risk_level,
                rows.report_type, NULLIF(rows.days_since_onset, \(unknownOnset)), rows.variant, rows.received_at,
                $10::text[], $11::boolean, $12::text
            FROM export_lock,
                unnest($2::bytea[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[],
                    $8::bigint[], $9::timestamptz[])
                AS rows (key_data, rolling_start, rolling_period, transmission_risk_level, report_type,
                    days_since_onset, variant, received_at)
            """

        /// PostgreSQL's `unique_violation`: a key of the statement is stored already.
        static let uniqueViolation = "23505"

        /// The keys to insert, in key-data order (two publishes with keys in common then wait for each other in
        /// one order instead of deadlocking).
        var insertions: [ENKeyServerInsertion]
        /// Their shared origin.
        var origin: ENKeyServerKeyOrigin

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 12)
            bindings.append(PostgresSchema.exportLock)
            let rows = insertions.map { PostgresKeyRow($0.key) }
            bindings.append(rows.map { ByteBuffer(bytes: $0.keyData) })
            bindings.append(rows.map(\.rollingStart))
            bindings.append(rows.map(\.rollingPeriod))
            bindings.append(rows.map(\.transmissionRiskLevel))
            bindings.append(rows.map(\.reportType))
            bindings.append(rows.map { $0.daysSinceOnset ?? Self.unknownOnset })
            bindings.append(rows.map(\.variant))
            bindings.append(insertions.map(\.exportableAt))
            bindings.append(origin.regions)
            bindings.append(origin.traveler)
            bindings.append(origin.importName)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row {}
    }
#endif
