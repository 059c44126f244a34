internal import ENSQLite
internal import GRDB

/// ``ENAppStore``'s versioned schema: one GRDB migration per released schema version. Never edit a shipped
/// migration; add a new one.
enum AppSchema {
    static let schema = StoreSchema(
        kind: "ENAppStore", signatureTable: "app_state", migrations: [("app-v1", migrateV1)])

    /// Schema app-v1: the sample app's `LocalStore`, and whether legacy data was imported.
    static func migrateV1(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE app_state (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    is_onboarded INTEGER NOT NULL DEFAULT 0,
                    next_key_file_index INTEGER NOT NULL DEFAULT 0,
                    last_detection_date REAL,
                    last_detection_error TEXT,
                    legacy_data_imported INTEGER NOT NULL DEFAULT 0
                );
                INSERT INTO app_state (id) VALUES (1);
                CREATE TABLE test_results (
                    id TEXT PRIMARY KEY,
                    date_administered REAL NOT NULL,
                    is_added INTEGER NOT NULL,
                    is_shared INTEGER NOT NULL
                );
                CREATE TABLE exposures (
                    id INTEGER PRIMARY KEY,
                    date REAL NOT NULL,
                    duration REAL,
                    total_risk_score INTEGER,
                    transmission_risk_level INTEGER
                );
                """)
    }
}
