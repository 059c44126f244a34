internal import ENSQLite
internal import GRDB

/// ``ENStore``'s versioned schema: one GRDB migration per released schema version.
///
/// Never edit a shipped migration; add a new one. `Tests/ENTestSupport/Fixtures/store/store-v1.sqlite`,
/// `store-v2.sqlite`, `store-v3.sqlite` and `store-v4.sqlite` are files written by schemas v1 to v4 (see
/// `Scripts/make-store-fixtures.py`, which copies the DDL from this file) and prove that such files still open.
enum FrameworkSchema {
    static let schema = StoreSchema(
        kind: "ENStore", signatureTable: "store_metadata",
        migrations: [
            ("v1", migrateV1), ("v2", migrateV2), ("v3", migrateV3), ("v4", migrateV4), ("v5", migrateV5),
        ])

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

    /// The tables of schemas v1 and v2 that hold the app's data, and those that hold a key server's; v3 moves
    /// them out of the framework schema.
    static let appTables = ["state", "test_results", "exposures"]
    static let keyServerTables = ["server_keys", "server_batches"]

    /// The prefix v3 gives those tables when they hold rows.
    static let legacyPrefix = "legacy_"

    /// Schema v3: the framework's schema only.
    ///
    /// - The app's tables (`state`, `test_results`, `exposures`) and the key server's (`server_keys`,
    ///   `server_batches`) leave the schema, each group as a whole: dropped when it holds nothing (a default
    ///   `state` row is nothing), otherwise renamed `legacy_...` with every row untouched: the app's for
    ///   ``ENAppStore`` to import (see `ENStoreQuery.legacyAppData`), both until `ENStoreUpdate.deleteLegacyData`
    ///   or `ENStoreUpdate.eraseAll` deletes them.
    /// - `manager_state`: what an `ENManager` keeps across restarts (enabled flag, authorization status,
    ///   pre-authorization of key release).
    static func migrateV3(_ db: Database) throws {
        let appHoldsData =
            try Bool.fetchOne(
                db,
                sql: """
                    SELECT EXISTS (SELECT 1 FROM state WHERE is_onboarded != 0 OR next_key_file_index != 0
                    OR last_detection_date IS NOT NULL OR last_detection_error IS NOT NULL)
                    OR EXISTS (SELECT 1 FROM test_results) OR EXISTS (SELECT 1 FROM exposures)
                    """) ?? false
        let keyServerHoldsData = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM server_keys)") ?? false
        for (tables, holdsData) in [(appTables, appHoldsData), (keyServerTables, keyServerHoldsData)] {
            for table in tables {
                if holdsData {
                    try db.execute(sql: "ALTER TABLE \(table) RENAME TO \(legacyPrefix)\(table)")
                } else {
                    try db.execute(sql: "DROP TABLE \(table)")
                }
            }
        }
        try db.execute(
            sql: """
                CREATE TABLE manager_state (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    exposure_notification_enabled INTEGER NOT NULL DEFAULT 0,
                    authorization_status INTEGER NOT NULL DEFAULT 0,
                    preauthorized_at REAL,
                    preauthorization_released_at REAL
                );
                INSERT INTO manager_state (id) VALUES (1);
                """)
    }

    /// Schema v4: diagnosis keys are cached as the key files they came in, not one row per key.
    ///
    /// - `cached_keys` is dropped with its rows. It is a cache: losing it only means fewer cached keys until
    ///   new key files arrive (the next detections cache the files they process, and a key older than 14 days
    ///   would have expired anyway).
    /// - `cached_key_files`: one row per verified key file, identified by the SHA-256 of its `export.bin`,
    ///   which is stored whole (sealed with the store's cipher when it has one).
    static func migrateV4(_ db: Database) throws {
        try db.execute(
            sql: """
                DROP TABLE cached_keys;
                CREATE TABLE cached_key_files (
                    id INTEGER PRIMARY KEY,
                    hash BLOB NOT NULL UNIQUE,
                    export_binary BLOB NOT NULL,
                    cached_at REAL NOT NULL
                );
                """)
    }

    /// Schema v5: a cached key file's `export.bin` moves to a table of its own, so that a detection can write it
    /// while it is still matching and its final transaction only adds the small `cached_key_files` row.
    ///
    /// - `key_file_contents`: one row per `export.bin`, identified by its SHA-256 (sealed with the store's cipher
    ///   when it has one, as before). A row with no `cached_key_files` row of the same hash is not part of the
    ///   store's data: a detection staged it and has not finished (or was cancelled, or crashed), and any sweep
    ///   may delete it.
    /// - `cached_key_files` keeps its identifiers, hashes and dates, without the `export.bin`.
    static func migrateV5(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE key_file_contents (
                    id INTEGER PRIMARY KEY,
                    hash BLOB NOT NULL UNIQUE,
                    export_binary BLOB NOT NULL
                );
                INSERT INTO key_file_contents (hash, export_binary) SELECT hash, export_binary FROM cached_key_files;
                CREATE TABLE cached_key_files_v5 (
                    id INTEGER PRIMARY KEY,
                    hash BLOB NOT NULL UNIQUE,
                    cached_at REAL NOT NULL
                );
                INSERT INTO cached_key_files_v5 (id, hash, cached_at) SELECT id, hash, cached_at FROM cached_key_files;
                DROP TABLE cached_key_files;
                ALTER TABLE cached_key_files_v5 RENAME TO cached_key_files;
                """)
    }
}
