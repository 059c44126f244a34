internal import GRDB

/// The versioned schema: one GRDB migration per released schema version.
///
/// Never edit a shipped migration; add a new one. `Tests/ENStoreTests/Fixtures/store-v1.sqlite` is a file
/// written by schema v1 (see `store-v1.sql` beside it) and proves that v1 files still open.
enum StoreSchema {
    /// The migration identifiers this build knows, oldest first.
    static let versions = ["v1", "v2"]

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1", migrate: migrateV1)
        migrator.registerMigration("v2", migrate: migrateV2)
        return migrator
    }

    /// Schema v1: the device's data, detection state and results, and the sample app's data.
    static func migrateV1(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE store_metadata (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    created_at REAL NOT NULL,
                    encrypted INTEGER NOT NULL,
                    canary BLOB
                );
                CREATE TABLE own_keys (
                    rolling_start INTEGER PRIMARY KEY,
                    rolling_period INTEGER NOT NULL,
                    key BLOB NOT NULL,
                    created_at REAL NOT NULL
                );
                CREATE TABLE sightings (
                    id INTEGER PRIMARY KEY,
                    interval INTEGER NOT NULL,
                    payload BLOB NOT NULL
                );
                CREATE INDEX sightings_by_interval ON sightings(interval);
                CREATE TABLE state (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    is_onboarded INTEGER NOT NULL DEFAULT 0,
                    next_key_file_index INTEGER NOT NULL DEFAULT 0,
                    last_detection_date REAL,
                    last_detection_error TEXT
                );
                INSERT INTO state (id) VALUES (1);
                CREATE TABLE detections (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    computed_at REAL NOT NULL,
                    kind TEXT NOT NULL,
                    result BLOB NOT NULL
                );
                CREATE INDEX detections_by_date ON detections(computed_at);
                CREATE TABLE processed_key_files (
                    hash BLOB PRIMARY KEY,
                    processed_at REAL NOT NULL,
                    detection_id INTEGER
                ) WITHOUT ROWID;
                CREATE TABLE cached_keys (
                    key_data BLOB NOT NULL,
                    rolling_start INTEGER NOT NULL,
                    rolling_period INTEGER NOT NULL,
                    transmission_risk_level INTEGER NOT NULL,
                    report_type INTEGER NOT NULL,
                    days_since_onset INTEGER,
                    variant INTEGER NOT NULL,
                    cached_at REAL NOT NULL,
                    PRIMARY KEY (key_data, rolling_start)
                ) WITHOUT ROWID;
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

    /// Schema v2: the rate-limit ledger (seeded from the detections v1 recorded) and the key-server tables.
    static func migrateV2(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE detection_ledger (
                    id INTEGER PRIMARY KEY,
                    date REAL NOT NULL
                );
                CREATE INDEX detection_ledger_by_date ON detection_ledger(date);
                INSERT INTO detection_ledger (date) SELECT computed_at FROM detections ORDER BY id;
                CREATE TABLE server_batches (
                    batch_index INTEGER PRIMARY KEY,
                    created_at REAL NOT NULL
                );
                CREATE TABLE server_keys (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    key_data BLOB NOT NULL,
                    rolling_start INTEGER NOT NULL,
                    rolling_period INTEGER NOT NULL,
                    transmission_risk_level INTEGER NOT NULL,
                    report_type INTEGER NOT NULL,
                    days_since_onset INTEGER,
                    variant INTEGER NOT NULL,
                    received_at REAL NOT NULL,
                    batch_index INTEGER REFERENCES server_batches(batch_index),
                    UNIQUE (key_data, rolling_start)
                );
                CREATE INDEX server_keys_by_batch ON server_keys(batch_index, id);
                """)
    }
}
