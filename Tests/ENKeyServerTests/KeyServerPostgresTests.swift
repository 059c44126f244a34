#if PostgreSQL
    import ENCore
    import ENKeyServer
    import ENKeyServerPostgres
    import ENTestSupport
    import Foundation
    import Logging
    import PostgresNIO
    import Testing

    /// What only the PostgreSQL storage has: its URL, its schema migrations and its database errors. The primitives
    /// themselves are in `KeyServerStorageTests`, on both storages.
    @Suite("Key-server storage on PostgreSQL: URL, migrations, errors")
    struct KeyServerPostgresTests {
        @Test func aURLGivesTheClientConfiguration() throws {
            let tcp = try ENKeyServerPostgresStore.clientConfiguration(
                url:
                    "postgresql://en%40ops:p%2Fw@db.example.org:6543/keys?sslmode=require&search_path=keys_v1&pool_max=4"
            )
            #expect(tcp.host == "db.example.org")
            #expect(tcp.port == 6543)
            #expect(tcp.username == "en@ops")
            #expect(tcp.password == "p/w")
            #expect(tcp.database == "keys")
            #expect(tcp.options.maximumConnections == 4)
            #expect(tcp.options.additionalStartupParameters.map { "\($0.0)=\($0.1)" } == ["search_path=keys_v1"])

            let loopback = try ENKeyServerPostgresStore.clientConfiguration(url: "postgres://en@127.0.0.1/keys")
            #expect(loopback.port == 5432)
            #expect(loopback.password == nil)
            let socket = try ENKeyServerPostgresStore.clientConfiguration(
                url: "postgres://en@/keys?host=/var/run/postgresql/.s.PGSQL.5432")
            #expect(socket.unixSocketPath == "/var/run/postgresql/.s.PGSQL.5432")
            #expect(socket.host == nil)

            #expect(
                ENKeyServerPostgresStore.redacted("postgres://en:secret@127.0.0.1/keys")
                    == "postgres://en:***@127.0.0.1/keys")
        }

        @Test func offLoopbackTLSIsRequiredAndVerified() throws {
            // The default off loopback is TLS, required (never `prefer`, which an attacker on the path downgrades).
            let remote = try ENKeyServerPostgresStore.clientConfiguration(url: "postgres://en@db.example.org/keys")
            #expect(String(describing: remote.tls).contains("require"), "\(remote.tls)")
            let loopback = try ENKeyServerPostgresStore.clientConfiguration(url: "postgres://en@127.0.0.1/keys")
            #expect(String(describing: loopback.tls).contains("disable"), "\(loopback.tls)")
            for mode in ["prefer", "disable"] {
                let error = #expect(throws: ENError(.badParameter)) {
                    try ENKeyServerPostgresStore.clientConfiguration(
                        url: "postgres://en@db.example.org/k?sslmode=\(mode)")
                }
                #expect(error?.context.field == "sslmode")
                #expect(error?.reason.contains("in the clear") == true)
            }
            // verify-full with a CA that cannot be read is refused before any connection.
            let missing = #expect(throws: ENError(.badParameter)) {
                try ENKeyServerPostgresStore.clientConfiguration(
                    url: "postgres://en@db.example.org/k?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem")
            }
            #expect(missing?.context.field == "sslrootcert")
            // A password from elsewhere (a file, the environment) when the URL has none; the URL's wins.
            let given = try ENKeyServerPostgresStore.clientConfiguration(
                url: "postgres://en@db.example.org/k", password: "from-file")
            #expect(given.password == "from-file")
            let inURL = try ENKeyServerPostgresStore.clientConfiguration(
                url: "postgres://en:in-url@db.example.org/k", password: "from-file")
            #expect(inURL.password == "in-url")
        }

        @Test(arguments: [
            ("http://en@127.0.0.1/keys", "url"), ("postgres://127.0.0.1/keys", "user"), ("postgres://en@/keys", "host"),
            ("postgres://en@127.0.0.1/keys?sslmode=sometimes", "sslmode"),
            ("postgres://en@127.0.0.1/k?pool_max=-1", "pool_max"),
            ("postgres://en@127.0.0.1/k?application=x", "application"),
            ("postgres://en@127.0.0.1/k?sslmode", "sslmode"),
        ])
        func aBadURLIsRefusedNamingWhatIsWrong(_ url: String, _ field: String) {
            let error = #expect(throws: ENError(.badParameter)) {
                try ENKeyServerPostgresStore.clientConfiguration(url: url)
            }
            #expect(error?.context.field == field)
            #expect(error?.reason.contains("secret") == false)
        }

        @Test(.enabled(if: PostgresTestDatabase.isEnabled))
        func migrationsApplyOnceEvenWhenInstancesStartTogether() async throws {
            try await StorageKind.postgres.with(count: 3) { storages in
                let stores = storages.compactMap { $0 as? ENKeyServerPostgresStore }
                // with(count:) migrated the first; the others start at once, then all again.
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for store in stores + stores { group.addTask { try await store.migrate() } }
                    try await group.waitForAll()
                }
                #expect(
                    try await stores[2].appliedSchemaVersions() == [
                        "key-server-pg-v1", "key-server-pg-v2", "key-server-pg-v3",
                    ])
            }
        }

        @Test(.enabled(if: PostgresTestDatabase.isEnabled))
        func aDatabaseOfSomethingElseIsRefusedUntouched() async throws {
            try await PostgresTestDatabase.withSchema { url in
                let schema = try #require(url.split(separator: "=").last.map(String.init))
                try PostgresTestDatabase.psql("CREATE TABLE \(schema).key_server_keys (id INTEGER, payload TEXT)")
                try await Self.withStore(url) { store in
                    let error = await #expect(throws: ENError(.badFormat)) { try await store.migrate() }
                    #expect(error?.reason.contains("no migration records") == true)
                }
                // Nothing was created next to the foreign table.
                let tables = try PostgresTestDatabase.psql(
                    "SELECT string_agg(table_name, ',' ORDER BY table_name) FROM information_schema.tables "
                        + "WHERE table_schema = '\(schema)'")
                #expect(
                    tables.trimmingCharacters(in: .whitespacesAndNewlines)
                        == "key_server_keys")
                // A schema version from the future is refused too.
                try PostgresTestDatabase.psql("DROP TABLE \(schema).key_server_keys")
                try await Self.withStore(url) { store in try await store.migrate() }
                try PostgresTestDatabase.psql(
                    "INSERT INTO \(schema).key_server_schema_migrations (version) VALUES ('key-server-pg-v99')")
                try await Self.withStore(url) { store in
                    let error = await #expect(throws: ENError(.badFormat)) { try await store.migrate() }
                    #expect(error?.reason.contains("key-server-pg-v99") == true)
                }
            }
        }

        @Test(.enabled(if: PostgresTestDatabase.isEnabled))
        func aStoreWithoutItsTablesSaysSo() async throws {
            try await PostgresTestDatabase.withSchema { url in
                try await Self.withStore(url) { store in
                    let error = await #expect(throws: ENError.self) {
                        try await store.storedKeys(withKeyData: [Data(count: 16)])
                    }
                    #expect(error?.code == .badFormat)
                    #expect(error?.reason.contains("42P01") == true)
                }
            }
        }

        @Test func aServerThatRefusesTheLoginIsDataInaccessible() async throws {
            try #require(PostgresTestDatabase.isEnabled)
            let base = PostgresTestDatabase.url.replacingOccurrences(of: "enserver:enserver@", with: "enserver:wrong@")
            try await Self.withStore(base) { store in
                let error = await #expect(throws: ENError.self) { try await store.migrate() }
                #expect(error?.code == .dataInaccessible)
            }
        }

        /// Runs `body` with a store on `url`, its client running.
        static func withStore(_ url: String, _ body: (ENKeyServerPostgresStore) async throws -> Void) async throws {
            let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
            let client = PostgresClient(
                configuration: try ENKeyServerPostgresStore.clientConfiguration(url: url), backgroundLogger: quiet)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await client.run() }
                defer { group.cancelAll() }
                try await body(ENKeyServerPostgresStore(client: client, logger: quiet))
            }
        }

        /// The ways a publish writes keys.
        enum InsertPath: String, CaseIterable, CustomTestStringConvertible {
            /// `insertAndRevise` with new keys only: one statement taking the lock itself.
            case newKeys
            /// `insertAndRevise` with a revision: a transaction.
            case revising
            /// `insert(_:unlessAnyStored:)`: one statement looking up, locking and inserting.
            case unlessAnyStored

            var testDescription: String { rawValue }
        }

        /// A publish's keys wait for an export in progress (the exporter holds its lock exclusively), on each of
        /// the insert's paths. Had the insert not taken the lock, its keys would be stored while the exporter
        /// holds it.
        @Test(.enabled(if: PostgresTestDatabase.isEnabled), arguments: InsertPath.allCases)
        func anInsertWaitsForAnExportInProgress(_ path: InsertPath) async throws {
            try await PostgresTestDatabase.withSchema { url in
                let configuration = try ENKeyServerPostgresStore.clientConfiguration(url: url)
                let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
                let storeClient = PostgresClient(configuration: configuration, backgroundLogger: quiet)
                let exporterClient = PostgresClient(configuration: configuration, backgroundLogger: quiet)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { await storeClient.run() }
                    group.addTask { await exporterClient.run() }
                    defer { group.cancelAll() }
                    let store = ENKeyServerPostgresStore(client: storeClient, logger: quiet)
                    try await store.migrate()
                    func key(_ n: Int) -> ENTemporaryExposureKey {
                        ENTemporaryExposureKey(
                            keyData: Data(repeating: UInt8(n), count: 16), rollingStartNumber: today,
                            transmissionRiskLevel: 2, diagnosisReportType: .confirmedClinicalDiagnosis)
                    }
                    _ = try await store.insertAndRevise(
                        inserting: [ENKeyServerInsertion(key: key(1), exportableAt: referenceDate)], revising: [])
                    let revisions =
                        path == .revising
                        ? [
                            ENKeyServerRevision(
                                keyData: key(1).keyData, reportType: .confirmedTest,
                                daysSinceOnsetOfSymptoms: ENDaysSinceOnsetOfSymptomsUnknown,
                                revisedAt: referenceDate.addingTimeInterval(3600))
                        ] : []
                    let insertions = (2...15).map { ENKeyServerInsertion(key: key($0), exportableAt: referenceDate) }
                    let stored = { @Sendable () async throws -> Int in
                        try await store.storedKeys(withKeyData: insertions.map(\.key.keyData)).count
                    }
                    // The exporter's side: its lock (PostgresSchema.exportLock) taken exclusively in a transaction,
                    // held until told.
                    let (taken, takenSignal) = AsyncStream<Void>.makeStream()
                    let (release, releaseSignal) = AsyncStream<Void>.makeStream()
                    let exporter = Task {
                        try await exporterClient.withTransaction(logger: quiet) { connection in
                            try await connection.query(
                                "SELECT pg_advisory_xact_lock(\(Int64(0x454E_5302)))", logger: quiet)
                            takenSignal.yield()
                            for await _ in release { break }
                        }
                    }
                    for await _ in taken { break }
                    let insert = Task {
                        guard path == .unlessAnyStored else {
                            return try await store.insertAndRevise(inserting: insertions, revising: revisions)
                        }
                        guard
                            case .inserted(let inserted) = try await store.insert(
                                insertions, unlessAnyStored: insertions.map(\.key.keyData))
                        else { return [] }
                        return inserted
                    }
                    try await Task.sleep(for: .milliseconds(500))
                    #expect(try await stored() == 0, "keys were stored while the exporter held its lock")
                    releaseSignal.yield()
                    try await exporter.value
                    #expect(try await insert.value.count == 14)
                    #expect(try await stored() == 14)
                }
            }
        }
    }
#endif
