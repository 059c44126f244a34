#if PostgreSQL
    import ENCore
    import ENTestSupport
    import ENVerificationServer
    import ENVerificationServerPostgres
    import Foundation
    import Logging
    import PostgresNIO
    import Testing

    /// What only the PostgreSQL storage has: the key server's URL and TLS rules, its schema migrations. The storage
    /// contract itself is in `VerificationStorageTests`, on both storages.
    @Suite("Verification storage on PostgreSQL: URL, migrations")
    struct VerificationPostgresTests {
        @Test func theURLRulesAreTheKeyServers() throws {
            let remote = try ENVerificationPostgresStore.clientConfiguration(
                url: "postgres://en@db.example.org/verify", password: "from-file")
            #expect(String(describing: remote.tls).contains("require"), "\(remote.tls)")
            #expect(remote.password == "from-file")
            let error = #expect(throws: ENError(.badParameter)) {
                try ENVerificationPostgresStore.clientConfiguration(
                    url: "postgres://en@db.example.org/v?sslmode=disable")
            }
            #expect(error?.context.field == "sslmode")
        }

        /// A store on `url`, with its own pool, for `body`.
        static func withStore<T: Sendable>(
            _ url: String, _ body: (ENVerificationPostgresStore) async throws -> T
        ) async throws -> T {
            let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
            let client = PostgresClient(
                configuration: try ENVerificationPostgresStore.clientConfiguration(url: url), backgroundLogger: quiet)
            return try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await client.run() }
                defer { group.cancelAll() }
                return try await body(ENVerificationPostgresStore(client: client, logger: quiet))
            }
        }

        @Test(.enabled(if: PostgresTestDatabase.isEnabled))
        func migrationsApplyOnceEvenWhenInstancesStartTogether() async throws {
            try await VerificationStorageKind.postgres.with(count: 3) { storages in
                let stores = storages.compactMap { $0 as? ENVerificationPostgresStore }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for store in stores + stores { group.addTask { try await store.migrate() } }
                    try await group.waitForAll()
                }
                #expect(try await stores[2].appliedSchemaVersions() == ["verification-pg-v1"])
            }
        }

        @Test(.enabled(if: PostgresTestDatabase.isEnabled))
        func aDatabaseOfSomethingElseIsRefusedUntouched() async throws {
            try await PostgresTestDatabase.withSchema { url in
                let schema = try #require(url.split(separator: "=").last.map(String.init))
                try PostgresTestDatabase.psql("CREATE TABLE \(schema).verification_tokens (id INTEGER)")
                try await Self.withStore(url) { store in
                    let error = await #expect(throws: ENError(.badFormat)) { try await store.migrate() }
                    #expect(error?.reason.contains("no migration records") == true)
                }
                let tables = try PostgresTestDatabase.psql(
                    "SELECT string_agg(table_name, ',' ORDER BY table_name) FROM information_schema.tables "
                        + "WHERE table_schema = '\(schema)'")
                #expect(tables.trimmingCharacters(in: .whitespacesAndNewlines) == "verification_tokens")

                try PostgresTestDatabase.psql("DROP TABLE \(schema).verification_tokens")
                try await Self.withStore(url) { store in try await store.migrate() }
                try PostgresTestDatabase.psql(
                    "INSERT INTO \(schema).verification_schema_migrations (version) VALUES ('verification-pg-v99')")
                try await Self.withStore(url) { store in
                    let error = await #expect(throws: ENError(.badFormat)) { try await store.migrate() }
                    #expect(error?.reason.contains("verification-pg-v99") == true)
                }
            }
        }
    }
#endif
