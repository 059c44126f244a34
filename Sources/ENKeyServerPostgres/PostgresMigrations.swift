#if PostgreSQL
    import ENCore
    package import Logging
    package import PostgresNIO

    /// A PostgreSQL store's versioned schema, as the package's PostgreSQL stores keep theirs (the key server's
    /// `PostgresSchema`, the verification server's): one migration per released version, each recorded in a table of
    /// its own, applied under an advisory lock so that instances starting at once wait for each other. Never edit a
    /// shipped migration; add a new one.
    package struct PostgresMigrations: Sendable {
        /// What the schema is of, in messages (`key-server`).
        package var kind: String
        /// The store's type, in messages (`ENKeyServerPostgresStore`).
        package var store: String
        /// The table the applied versions are recorded in.
        package var recordTable: String
        /// The advisory lock that serialises migrations.
        package var lock: Int64
        /// The store's tables: a database with one of them and no records is another program's, and is refused.
        package var tables: [String]
        /// The migrations, oldest first: a version and its statements (one per query, as the extended protocol runs
        /// them).
        package var migrations: [(version: String, statements: [String])]

        /// Creates a schema.
        package init(
            kind: String, store: String, recordTable: String, lock: Int64, tables: [String],
            migrations: [(version: String, statements: [String])]
        ) {
            self.kind = kind
            self.store = store
            self.recordTable = recordTable
            self.lock = lock
            self.tables = tables
            self.migrations = migrations
        }

        /// Applies the migrations the database lacks, under the migration lock, in the caller's transaction.
        ///
        /// - Throws: `ENError.Code.badFormat` for a database written by a newer version, or with the store's tables
        ///   but no migration records; database errors.
        package func migrate(_ connection: PostgresConnection, logger: Logger) async throws {
            try await connection.query("SELECT pg_advisory_xact_lock(\(lock))", logger: logger)
            try await connection.query(
                PostgresQuery(
                    unsafeSQL: """
                        CREATE TABLE IF NOT EXISTS \(recordTable) (
                            version TEXT PRIMARY KEY,
                            applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
                        )
                        """), logger: logger)
            let applied = try await appliedVersions(connection, logger: logger)
            let known = migrations.map(\.version)
            if let unknown = applied.first(where: { !known.contains($0) }) {
                throw ENError(
                    .badFormat,
                    "the database has \(kind) schema \(unknown), which this build does not know (it knows "
                        + "\(known.joined(separator: ", "))): it was written by a newer version")
            }
            if applied.isEmpty {
                for table in tables {
                    let rows = try await connection.query(
                        "SELECT to_regclass(\(table)) IS NOT NULL", logger: logger)
                    for try await foreign in rows.decode(Bool.self) where foreign {
                        throw ENError(
                            .badFormat,
                            "the database has \(kind) tables but no migration records: it is not an \(store) database")
                    }
                }
            }
            for migration in migrations where !applied.contains(migration.version) {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                var bindings = PostgresBindings()
                bindings.append(migration.version)
                try await connection.query(
                    PostgresQuery(unsafeSQL: "INSERT INTO \(recordTable) (version) VALUES ($1)", binds: bindings),
                    logger: logger)
                logger.info("applied \(kind) schema migration", metadata: ["version": "\(migration.version)"])
            }
        }

        /// The versions recorded, in the order they were applied.
        package func appliedVersions(_ connection: PostgresConnection, logger: Logger) async throws -> [String] {
            let exists = try await connection.query("SELECT to_regclass(\(recordTable)) IS NOT NULL", logger: logger)
            var found = false
            for try await value in exists.decode(Bool.self) { found = value }
            guard found else { return [] }
            var versions: [String] = []
            let rows = try await connection.query(
                PostgresQuery(unsafeSQL: "SELECT version FROM \(recordTable) ORDER BY applied_at, version"),
                logger: logger)
            for try await version in rows.decode(String.self) { versions.append(version) }
            return versions
        }
    }
#endif
