#if PostgreSQL
    public import ENCore
    import ENKeyServerPostgres
    public import ENVerificationServer
    public import Logging
    public import PostgresNIO

    /// A verification server's storage on PostgreSQL, through postgres-nio: what several `enverify` instances behind
    /// one load balancer share.
    ///
    /// It implements `ENVerificationStorage` with the SQLite store's semantics, each primitive
    /// one transaction, the instances coordinating through the database alone:
    ///
    /// - A claim locks the row it reads (`SELECT … FOR UPDATE`, as Google's server does) and updates it only while it
    ///   is unclaimed (`UPDATE … WHERE NOT claimed RETURNING`): of any number of concurrent claims of one code or one
    ///   token, by any number of instances, one succeeds and the others find it used.
    /// - Inserting a code or an API key takes a transaction-scoped advisory lock, so that the checks for a taken
    ///   UUID, code or name and the insert are one step across instances; the columns are unique besides.
    ///
    /// The connection settings (URL, TLS, password) are the key server's:
    /// ``clientConfiguration(url:password:rootCertificates:)``. The caller owns the `PostgresClient` and runs it
    /// (`client.run()` in a task) while the store is used; ``migrate()`` creates or upgrades the tables before the
    /// first use.
    ///
    /// ```swift
    /// let client = PostgresClient(
    ///     configuration: try ENVerificationPostgresStore.clientConfiguration(url: "postgres://en@127.0.0.1/verify"))
    /// try await withThrowingDiscardingTaskGroup { group in
    ///     group.addTask { await client.run() }
    ///     let store = ENVerificationPostgresStore(client: client)
    ///     try await store.migrate()
    ///     let service = try ENVerificationService(
    ///         configuration: configuration, secrets: secrets, tokenKey: tokenKey, certificateKey: certificateKey,
    ///         storage: store)
    ///     // …
    ///     group.cancelAll()
    /// }
    /// ```
    public final class ENVerificationPostgresStore: ENVerificationStorage {
        /// The connection pool the store runs its transactions on.
        public let client: PostgresClient
        /// Where the store logs its queries (at `debug` and below).
        public let logger: Logger

        /// Creates a store on `client`, which the caller runs.
        public init(client: PostgresClient, logger: Logger = Logger(label: "ENVerificationPostgresStore")) {
            self.client = client
            self.logger = logger
        }

        /// A client configuration from a PostgreSQL URL, with the key server's rules
        /// (`ENKeyServerPostgresStore.clientConfiguration(url:password:rootCertificates:)`, the one implementation):
        /// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?PARAMETERS]`; off loopback TLS is required and the
        /// server's certificate and host name verified.
        ///
        /// - Parameters:
        ///   - url: the URL.
        ///   - password: the password, when it is not in the URL (from a file or the environment); the URL's wins.
        ///   - rootCertificates: a PEM file of CA certificates, as `sslrootcert` (the URL's wins).
        /// - Throws: `ENError.Code.badParameter` naming what is wrong with the URL.
        public static func clientConfiguration(
            url: String, password: String? = nil, rootCertificates: String? = nil
        ) throws(ENError) -> PostgresClient.Configuration {
            try ENKeyServerPostgresStore.clientConfiguration(
                url: url, password: password, rootCertificates: rootCertificates)
        }

        /// Creates the tables, or upgrades them to the current schema, in one transaction; several instances starting
        /// at once wait for each other. Safe to call on every start.
        ///
        /// - Throws: `ENError.Code.badFormat` when the database has a table of the store's without the store's
        ///   migration records, or was written by a newer version; `dataInaccessible` when PostgreSQL cannot be
        ///   reached or refuses the login; database errors.
        public func migrate() async throws(ENError) {
            try await client.enTransaction(logger: logger) { [logger] connection in
                try await VerificationPostgresSchema.schema.migrate(connection, logger: logger)
            }
        }

        /// The schema versions applied to the database, oldest first.
        public func appliedSchemaVersions() async throws(ENError) -> [String] {
            try await client.enTransaction(logger: logger) { [logger] connection in
                try await VerificationPostgresSchema.schema.appliedVersions(connection, logger: logger)
            }
        }

        /// Runs `body` in one transaction (`PostgresClient.enTransaction`: every failure an `ENError`).
        func transaction<Value: Sendable>(
            _ body: (PostgresConnection, Logger) async throws -> Value
        ) async throws(ENError) -> Value {
            let logger = self.logger
            return try await client.enTransaction(logger: logger) { connection in try await body(connection, logger) }
        }

        /// Runs `body` outside an explicit transaction (one statement).
        func statement<Value: Sendable>(
            _ body: (PostgresConnection, Logger) async throws -> Value
        ) async throws(ENError) -> Value {
            let logger = self.logger
            return try await client.enStatement { connection in try await body(connection, logger) }
        }
    }
#endif
