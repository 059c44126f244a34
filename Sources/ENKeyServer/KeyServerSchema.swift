internal import ENStore
internal import GRDB

/// ``ENKeyServerStore``'s versioned schema: one GRDB migration per released schema version. Never edit a
/// shipped migration; add a new one.
enum KeyServerSchema {
    static let schema = StoreSchema(
        kind: "ENKeyServerStore", signatureTable: "key_server_keys",
        migrations: [("key-server-v1", migrateV1)])

    /// Schema key-server-v1: posted keys (the diagnosis-key columns of `ENStore`'s cached keys, plus arrival
    /// date and batch) and export batches; the tables schema v2 of `ENStore` had, in a file of their own.
    static func migrateV1(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE key_server_batches (
                    batch_index INTEGER PRIMARY KEY,
                    created_at REAL NOT NULL
                );
                CREATE TABLE key_server_keys (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    key_data BLOB NOT NULL,
                    rolling_start INTEGER NOT NULL,
                    rolling_period INTEGER NOT NULL,
                    transmission_risk_level INTEGER NOT NULL,
                    report_type INTEGER NOT NULL,
                    days_since_onset INTEGER,
                    variant INTEGER NOT NULL,
                    received_at REAL NOT NULL,
                    batch_index INTEGER REFERENCES key_server_batches(batch_index),
                    UNIQUE (key_data, rolling_start)
                );
                CREATE INDEX key_server_keys_by_batch ON key_server_keys(batch_index, id);
                """)
    }
}
