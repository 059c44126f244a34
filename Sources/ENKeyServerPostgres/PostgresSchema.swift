#if PostgreSQL
    import ENCore
    import Logging
    import PostgresNIO

    /// ``ENKeyServerPostgresStore``'s versioned schema: one migration per released version, recorded in
    /// `key_server_schema_migrations`. Never edit a shipped migration; add a new one.
    ///
    /// The tables are those of the SQLite store (`key_server_keys`, `key_server_batches`, `key_server_files`), in
    /// PostgreSQL's types: dates are `timestamptz` (microseconds), key data and files `bytea`, the batch windows
    /// UTC seconds as `bigint`. A key is identified by its key data alone (unique), as Google's server does.
    enum PostgresSchema {
        /// The advisory lock that serialises migrations between instances starting at once.
        static let migrationLock: Int64 = 0x454E_5301
        /// The advisory lock of exports: creating, claiming and completing batches take it exclusively, as does
        /// reading a batch's keys; inserting keys takes it shared.
        static let exportLock: Int64 = 0x454E_5302

        /// The migrations, oldest first: a version and its statements (one per query, as the extended protocol runs
        /// them).
        static let migrations: [(version: String, statements: [String])] = [
            (
                "key-server-pg-v1",
                [
                    """
                    CREATE TABLE key_server_batches (
                        batch_index BIGINT PRIMARY KEY,
                        created_at TIMESTAMPTZ NOT NULL,
                        start_timestamp BIGINT NOT NULL,
                        end_timestamp BIGINT NOT NULL,
                        first_file_index BIGINT NOT NULL DEFAULT 0,
                        file_count BIGINT NOT NULL DEFAULT 0,
                        status TEXT NOT NULL CHECK (status IN ('open', 'complete')),
                        lease_owner TEXT,
                        lease_expires TIMESTAMPTZ,
                        keys_from TIMESTAMPTZ,
                        keys_until TIMESTAMPTZ NOT NULL
                    )
                    """,
                    "CREATE INDEX key_server_batches_open ON key_server_batches (status, batch_index)",
                    """
                    CREATE TABLE key_server_keys (
                        id BIGSERIAL PRIMARY KEY,
                        key_data BYTEA NOT NULL UNIQUE,
                        rolling_start BIGINT NOT NULL,
                        rolling_period BIGINT NOT NULL,
                        transmission_risk_level BIGINT NOT NULL,
                        report_type BIGINT NOT NULL,
                        days_since_onset BIGINT,
                        variant BIGINT NOT NULL,
                        received_at TIMESTAMPTZ NOT NULL,
                        batch_index BIGINT REFERENCES key_server_batches (batch_index),
                        revised_report_type BIGINT,
                        revised_days_since_onset BIGINT,
                        revised_at TIMESTAMPTZ,
                        revised_batch_index BIGINT REFERENCES key_server_batches (batch_index),
                        is_padding BOOLEAN NOT NULL DEFAULT FALSE
                    )
                    """,
                    "CREATE INDEX key_server_keys_awaiting ON key_server_keys (received_at, id) WHERE batch_index IS NULL",
                    "CREATE INDEX key_server_keys_by_batch ON key_server_keys (batch_index, id)",
                    """
                    CREATE INDEX key_server_keys_revisions_awaiting ON key_server_keys (revised_at, id)
                    WHERE revised_at IS NOT NULL AND revised_batch_index IS NULL
                    """,
                    "CREATE INDEX key_server_keys_by_arrival ON key_server_keys (received_at)",
                    """
                    CREATE TABLE key_server_files (
                        file_index BIGINT PRIMARY KEY,
                        name TEXT NOT NULL UNIQUE,
                        batch_index BIGINT NOT NULL REFERENCES key_server_batches (batch_index),
                        start_timestamp BIGINT NOT NULL,
                        end_timestamp BIGINT NOT NULL,
                        created_at TIMESTAMPTZ NOT NULL,
                        data BYTEA NOT NULL
                    )
                    """,
                    "CREATE INDEX key_server_files_by_start ON key_server_files (start_timestamp)",
                    "CREATE INDEX key_server_files_by_end ON key_server_files (end_timestamp)",
                ]
            ),
            // Each key's origin, as Google's `Exposure` has it: its regions, upper-cased (empty for a key stored
            // before this version, which counts as published for the output region), the traveller flag, and the
            // import that brought it (null for a key published here); the files each import found (`ImportFile`).
            (
                "key-server-pg-v2",
                [
                    "ALTER TABLE key_server_keys ADD COLUMN regions TEXT[] NOT NULL DEFAULT '{}'",
                    "ALTER TABLE key_server_keys ADD COLUMN traveler BOOLEAN NOT NULL DEFAULT false",
                    "ALTER TABLE key_server_keys ADD COLUMN import_name TEXT",
                    """
                    CREATE TABLE key_server_import_files (
                        id BIGSERIAL PRIMARY KEY,
                        import_name TEXT NOT NULL,
                        url TEXT NOT NULL,
                        discovered_at TIMESTAMPTZ NOT NULL,
                        processed_at TIMESTAMPTZ,
                        status TEXT NOT NULL DEFAULT 'open',
                        retries BIGINT NOT NULL DEFAULT 0,
                        UNIQUE (import_name, url)
                    )
                    """,
                ]
            ),
            // Several export configurations on one store (the SQLite store's key-server-v3 tells the design): the
            // export marks of each configuration in a table of their own (a key waits for a configuration while it
            // has no mark there, however late it was committed; the marks of `batch_index` and
            // `revised_batch_index` become the default configuration's, and those columns are no longer marks), the
            // configuration of each batch, and file indexes and names unique per configuration.
            (
                "key-server-pg-v3",
                [
                    """
                    CREATE TABLE key_server_export_marks (
                        export_name TEXT NOT NULL,
                        key_id BIGINT NOT NULL REFERENCES key_server_keys (id) ON DELETE CASCADE,
                        revision SMALLINT NOT NULL,
                        batch_index BIGINT NOT NULL REFERENCES key_server_batches (batch_index),
                        PRIMARY KEY (export_name, revision, key_id)
                    )
                    """,
                    "CREATE INDEX key_server_export_marks_by_batch ON key_server_export_marks (batch_index, revision)",
                    "CREATE INDEX key_server_export_marks_by_key ON key_server_export_marks (key_id)",
                    """
                    INSERT INTO key_server_export_marks (export_name, key_id, revision, batch_index)
                    SELECT '', id, 0, batch_index FROM key_server_keys WHERE batch_index IS NOT NULL AND NOT is_padding
                    """,
                    """
                    INSERT INTO key_server_export_marks (export_name, key_id, revision, batch_index)
                    SELECT '', id, 1, revised_batch_index FROM key_server_keys
                    WHERE revised_at IS NOT NULL AND revised_batch_index IS NOT NULL
                    """,
                    "DROP INDEX key_server_keys_awaiting",
                    "ALTER TABLE key_server_batches ADD COLUMN export_name TEXT NOT NULL DEFAULT ''",
                    """
                    CREATE INDEX key_server_batches_by_export ON key_server_batches (export_name, status, batch_index)
                    """,
                    "ALTER TABLE key_server_files ADD COLUMN export_name TEXT NOT NULL DEFAULT ''",
                    "ALTER TABLE key_server_files DROP CONSTRAINT key_server_files_pkey",
                    "ALTER TABLE key_server_files ADD PRIMARY KEY (export_name, file_index)",
                    "ALTER TABLE key_server_files DROP CONSTRAINT key_server_files_name_key",
                    "ALTER TABLE key_server_files ADD UNIQUE (export_name, name)",
                ]
            ),
        ]

        /// The schema as ``PostgresMigrations`` applies it, recorded in `key_server_schema_migrations`.
        static let schema = PostgresMigrations(
            kind: "key-server", store: "ENKeyServerPostgresStore", recordTable: "key_server_schema_migrations",
            lock: migrationLock, tables: ["key_server_keys", "key_server_batches"], migrations: migrations)

        /// Applies the migrations the database lacks, under the migration lock, in the caller's transaction.
        static func migrate(_ connection: PostgresConnection, logger: Logger) async throws {
            try await schema.migrate(connection, logger: logger)
        }

        /// The versions recorded, in the order they were applied.
        static func appliedVersions(_ connection: PostgresConnection, logger: Logger) async throws -> [String] {
            try await schema.appliedVersions(connection, logger: logger)
        }
    }
#endif
