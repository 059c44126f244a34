#if PostgreSQL
    public import ENCore
    import Foundation
    public import Logging
    public import PostgresNIO

    /// A key server's storage on PostgreSQL, through postgres-nio: what a national deployment runs several
    /// `enserver` instances on.
    ///
    /// It implements the same primitives as the embedded SQLite store (`ENKeyServerSQLiteStore`), so that
    /// `ENPublishHandler` and `ENKeyServerExporter` run on either unchanged. Every
    /// primitive is one transaction. Instances coordinate through the database alone:
    ///
    /// - A key is stored once: `key_data` is unique, and an insert that meets a stored key does nothing
    ///   (`ON CONFLICT DO NOTHING`), whichever instance stored it first.
    /// - A revision applies once: it updates a key only while the key is not revised, so of two instances revising
    ///   one key at once, one succeeds and the other's whole publish is refused.
    /// - Export batches are created, claimed and completed under a transaction-scoped advisory lock, so two
    ///   exporters never create or complete one batch twice; reading a batch's keys takes that lock exclusively
    ///   while publishes take it shared, so that no key still being inserted is marked exported unread.
    ///
    /// The caller owns the `PostgresClient` and runs it (`client.run()` in a task, or in a service group) while the
    /// store is used; ``migrate()`` creates or upgrades the tables before the first use.
    ///
    /// ```swift
    /// let client = PostgresClient(
    ///     configuration: try ENKeyServerPostgresStore.clientConfiguration(url: "postgres://en:pw@127.0.0.1/keys"))
    /// try await withThrowingDiscardingTaskGroup { group in
    ///     group.addTask { await client.run() }
    ///     let store = ENKeyServerPostgresStore(client: client)
    ///     try await store.migrate()
    ///     let exporter = ENKeyServerExporter(storage: store, configuration: configuration)
    ///     _ = try await exporter.publish()
    ///     group.cancelAll()
    /// }
    /// ```
    public final class ENKeyServerPostgresStore: Sendable {
        /// The connection pool the store runs its transactions on.
        public let client: PostgresClient
        /// Where the store logs its queries (at `debug` and below).
        public let logger: Logger

        /// Creates a store on `client`, which the caller runs.
        public init(client: PostgresClient, logger: Logger = Logger(label: "ENKeyServerPostgresStore")) {
            self.client = client
            self.logger = logger
        }

        /// Creates the tables, or upgrades them to the current schema, in one transaction; several instances starting
        /// at once wait for each other. Safe to call on every start.
        ///
        /// - Throws: `ENError.Code.badFormat` when the database has a table of the store's without the store's
        ///   migration records (a database of something else); `dataInaccessible` when PostgreSQL cannot be reached or
        ///   refuses the login; database errors.
        public func migrate() async throws(ENError) {
            try await transaction { connection, logger in
                try await PostgresSchema.migrate(connection, logger: logger)
            }
        }

        /// The schema versions applied to the database, oldest first.
        public func appliedSchemaVersions() async throws(ENError) -> [String] {
            try await transaction { connection, logger in
                try await PostgresSchema.appliedVersions(connection, logger: logger)
            }
        }

        /// Deletes every key, batch and file (a test database's reset); the schema stays.
        public func eraseAll() async throws(ENError) {
            try await transaction { connection, logger in
                _ = try await connection.query(
                    "TRUNCATE key_server_export_marks, key_server_files, key_server_keys, key_server_batches, key_server_import_files RESTART IDENTITY",
                    logger: logger)
            }
        }

        /// Runs `body` in one transaction on a pooled connection (`PostgresClient.enTransaction(logger:_:)`: an
        /// `ENError` for every failure, deadlock victims and serialization failures run again).
        func transaction<Value: Sendable>(
            _ body: (PostgresConnection, Logger) async throws -> Value
        ) async throws(ENError) -> Value {
            let logger = self.logger
            return try await client.enTransaction(logger: logger) { connection in try await body(connection, logger) }
        }
    }
#endif
