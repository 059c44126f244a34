#if PostgreSQL
    import ENKeyServerPostgres

    /// ``ENVerificationPostgresStore``'s versioned schema, applied as the key server's is (`PostgresMigrations`),
    /// recorded in `verification_schema_migrations`. Never edit a shipped migration; add a new one.
    ///
    /// The tables are those of the SQLite store (`verification_codes`, `verification_tokens`,
    /// `verification_api_keys`) in PostgreSQL's types: instants are `timestamptz` (microseconds), flags `boolean`,
    /// dates `YYYY-MM-DD` text as the API writes them. The codes only as HMACs, each unique.
    enum VerificationPostgresSchema {
        /// The advisory lock that serialises migrations between instances starting at once.
        static let migrationLock: Int64 = 0x454E_5601
        /// The advisory lock inserts take (codes, API keys), so that the checks for a taken value and the insert are
        /// one step across instances, as the SQLite store's `BEGIN IMMEDIATE` makes them.
        static let insertLock: Int64 = 0x454E_5602

        /// The schema.
        static let schema = PostgresMigrations(
            kind: "verification", store: "ENVerificationPostgresStore", recordTable: "verification_schema_migrations",
            lock: migrationLock, tables: ["verification_codes", "verification_tokens", "verification_api_keys"],
            migrations: [
                (
                    "verification-pg-v1",
                    [
                        """
                        CREATE TABLE verification_codes (
                            id BIGSERIAL PRIMARY KEY,
                            uuid TEXT NOT NULL UNIQUE,
                            code TEXT UNIQUE,
                            long_code TEXT UNIQUE,
                            claimed BOOLEAN NOT NULL DEFAULT FALSE,
                            test_type TEXT NOT NULL,
                            symptom_date TEXT,
                            test_date TEXT,
                            expires_at TIMESTAMPTZ NOT NULL,
                            long_expires_at TIMESTAMPTZ NOT NULL,
                            issuing_api_key_id BIGINT,
                            issuing_external_id TEXT NOT NULL DEFAULT '',
                            created_at TIMESTAMPTZ NOT NULL
                        )
                        """,
                        "CREATE INDEX verification_codes_expiry ON verification_codes (long_expires_at, expires_at)",
                        """
                        CREATE TABLE verification_tokens (
                            id BIGSERIAL PRIMARY KEY,
                            token_id TEXT NOT NULL UNIQUE,
                            test_type TEXT NOT NULL,
                            symptom_date TEXT,
                            test_date TEXT,
                            used BOOLEAN NOT NULL DEFAULT FALSE,
                            expires_at TIMESTAMPTZ NOT NULL
                        )
                        """,
                        "CREATE INDEX verification_tokens_expiry ON verification_tokens (expires_at)",
                        """
                        CREATE TABLE verification_api_keys (
                            id BIGSERIAL PRIMARY KEY,
                            name TEXT NOT NULL UNIQUE,
                            type BIGINT NOT NULL,
                            preview TEXT NOT NULL,
                            key_hmac TEXT NOT NULL UNIQUE,
                            created_at TIMESTAMPTZ NOT NULL
                        )
                        """,
                    ]
                )
            ])
    }
#endif
