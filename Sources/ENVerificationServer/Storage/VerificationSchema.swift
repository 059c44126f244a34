internal import ENSQLite
internal import GRDB

/// ``ENVerificationSQLiteStore``'s versioned schema. Never edit a shipped migration; add a new one.
enum VerificationSchema {
    /// The schema, with every migration.
    static let schema = SQLiteSchema(
        kind: "ENVerificationSQLiteStore", signatureTable: "verification_codes",
        migrations: [("verification-v1", migrateV1)])

    /// Schema verification-v1 (times are Unix seconds, dates `YYYY-MM-DD`):
    ///
    /// - `verification_codes`: Google's `verification_codes`, the codes only as HMACs, each unique; both set to
    ///   null once the code is recycled (its status stays until it is deleted).
    /// - `verification_tokens`: Google's `tokens`.
    /// - `verification_api_keys`: Google's `authorized_apps` of the one realm, the key only as an HMAC.
    static func migrateV1(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE verification_codes (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    uuid TEXT NOT NULL UNIQUE,
                    code TEXT UNIQUE,
                    long_code TEXT UNIQUE,
                    claimed INTEGER NOT NULL DEFAULT 0,
                    test_type TEXT NOT NULL,
                    symptom_date TEXT,
                    test_date TEXT,
                    expires_at REAL NOT NULL,
                    long_expires_at REAL NOT NULL,
                    issuing_api_key_id INTEGER,
                    issuing_external_id TEXT NOT NULL DEFAULT '',
                    created_at REAL NOT NULL
                );
                CREATE INDEX verification_codes_expiry ON verification_codes(long_expires_at, expires_at);
                CREATE TABLE verification_tokens (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    token_id TEXT NOT NULL UNIQUE,
                    test_type TEXT NOT NULL,
                    symptom_date TEXT,
                    test_date TEXT,
                    used INTEGER NOT NULL DEFAULT 0,
                    expires_at REAL NOT NULL
                );
                CREATE INDEX verification_tokens_expiry ON verification_tokens(expires_at);
                CREATE TABLE verification_api_keys (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    name TEXT NOT NULL UNIQUE,
                    type INTEGER NOT NULL,
                    preview TEXT NOT NULL,
                    key_hmac TEXT NOT NULL UNIQUE,
                    created_at REAL NOT NULL
                );
                """)
    }
}
