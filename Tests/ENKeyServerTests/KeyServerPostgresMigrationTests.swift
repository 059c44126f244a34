#if PostgreSQL
    import ENCore
    import ENCrypto
    import ENExportFormat
    import ENKeyServer
    @testable import ENKeyServerPostgres
    import ENTestSupport
    import Foundation
    import Logging
    import PostgresNIO
    import Testing

    /// The PostgreSQL upgrade to several export configurations (`key-server-pg-v3`), from a database of schema
    /// `key-server-pg-v2` written as that version wrote it.
    @Suite("Key-server storage on PostgreSQL: the upgrade to several export configurations")
    struct KeyServerPostgresMigrationTests {
        /// Rows of a version-2 database: batch 0 (complete, one file) exported `exported`, `revised` and its
        /// revision, and the padding key `padding`; `waiting` waits.
        @Test(.enabled(if: PostgresTestDatabase.isEnabled))
        func aVersion2DatabasesMarksBecomeTheDefaultConfigurations() async throws {
            let exported = makeKey(1, start: today.adding(-144), reportType: .confirmedClinicalDiagnosis)
            let revised = makeKey(2, start: today.adding(-144), reportType: .confirmedClinicalDiagnosis)
            let waiting = makeKey(3, start: today.adding(-144))
            let padding = makeKey(4, start: today.adding(-144))
            let arrival = Int64(referenceDate.timeIntervalSince1970) - 7200
            let batchEnd = Int64(referenceDate.timeIntervalSince1970) - 3600
            let fileName = ENKeyServerFile.name(start: UInt64(batchEnd - 3600), end: UInt64(batchEnd), number: 1)
            try await PostgresTestDatabase.withSchema { url in
                let schema = try #require(url.components(separatedBy: "search_path=").last)
                var sql = [
                    "SET search_path TO \(schema)",
                    """
                    CREATE TABLE key_server_schema_migrations (
                        version TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())
                    """,
                ]
                for migration in PostgresSchema.migrations.prefix(2) {
                    sql += migration.statements
                    sql.append("INSERT INTO key_server_schema_migrations (version) VALUES ('\(migration.version)')")
                }
                sql.append(
                    """
                    INSERT INTO key_server_batches (batch_index, created_at, start_timestamp, end_timestamp,
                        first_file_index, file_count, status, keys_until)
                    VALUES (0, to_timestamp(\(arrival)), \(batchEnd - 3600), \(batchEnd), 0, 1, 'complete',
                        to_timestamp(\(arrival)))
                    """)
                sql.append(
                    """
                    INSERT INTO key_server_files (file_index, name, batch_index, start_timestamp, end_timestamp,
                        created_at, data)
                    VALUES (0, '\(fileName)', 0, \(batchEnd - 3600), \(batchEnd), to_timestamp(\(arrival)), '\\x010203')
                    """)
                for (key, batch, isPadding) in [
                    (exported, "0", false), (revised, "0", false), (waiting, "NULL", false), (padding, "0", true),
                ] {
                    let row = PostgresKeyRow(key)
                    sql.append(
                        """
                        INSERT INTO key_server_keys (key_data, rolling_start, rolling_period, transmission_risk_level,
                            report_type, days_since_onset, variant, received_at, batch_index, is_padding, regions)
                        VALUES ('\\x\(row.keyData.map { String(format: "%02x", $0) }.joined())', \(row.rollingStart),
                            \(row.rollingPeriod), \(row.transmissionRiskLevel), \(row.reportType),
                            \(row.daysSinceOnset.map(String.init) ?? "NULL"), \(row.variant), to_timestamp(\(arrival)),
                            \(batch), \(isPadding), '{US}')
                        """)
                }
                sql.append(
                    """
                    UPDATE key_server_keys SET revised_report_type = \(ENDiagnosisReportType.confirmedTest.rawValue),
                        revised_at = to_timestamp(\(arrival)), revised_batch_index = 0
                    WHERE key_data = '\\x\(revised.keyData.map { String(format: "%02x", $0) }.joined())'
                    """)
                try PostgresTestDatabase.psql(sql.joined(separator: ";\n"))

                let configuration = try ENKeyServerPostgresStore.clientConfiguration(url: url)
                let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
                let client = PostgresClient(configuration: configuration, backgroundLogger: quiet)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { await client.run() }
                    defer { group.cancelAll() }
                    let store = ENKeyServerPostgresStore(client: client, logger: quiet)
                    try await store.migrate()
                    #expect(
                        try await store.appliedSchemaVersions() == [
                            "key-server-pg-v1", "key-server-pg-v2", "key-server-pg-v3",
                        ])
                    #expect(try await store.exportFiles(startingAt: 0).map(\.data) == [Data([1, 2, 3])])
                    #expect(try await store.exportFile(named: fileName)?.data == Data([1, 2, 3]))

                    let signer = ENExportSigner(signingKey: try P256SigningKey(), keyID: "310", keyVersion: "v1")
                    let group = try ENKeyServerExportGroup(
                        storage: store,
                        configurations: [
                            ENKeyServerConfiguration(region: "US", signers: [signer], padding: nil),
                            ENKeyServerConfiguration(
                                region: "US", signers: [signer], padding: nil, exportRoot: "new", exportName: "new"),
                        ],
                        clock: { referenceDate })
                    let published = try await group.publish()
                    // The default configuration goes on where version 2 stopped: the waiting key alone, file 1.
                    let defaults = try #require(published[""])
                    #expect(try defaults.flatMap { try contents(of: $0).keys } == [waiting])
                    #expect(defaults.map(\.index) == [1])
                    // A new configuration exports every key (not the padding) and the revision, once.
                    let new = try #require(published["new"]).map { try contents(of: $0) }
                    #expect(sorted(new.flatMap(\.keys)) == sorted([exported, revised, waiting]))
                    #expect(new.flatMap(\.revised).map(\.keyData) == [revised.keyData])
                    #expect(try await group.publish().values.allSatisfy(\.isEmpty))
                }
            }
        }
    }
#endif
