internal import ENSQLite
package import GRDB

/// ``ENDeviceStore``'s versioned schema: one GRDB migration per released schema version.
///
/// Never edit a released migration; add a new one after it. A file is migrated on open from the version it
/// records, and a file that records a migration this build does not know (a newer version wrote it) is refused.
/// No version is released yet, so the schema starts at v1.
package enum FrameworkSchema {
    /// The migrations of this build, oldest first.
    package static let migrations: [(identifier: String, migrate: @Sendable (Database) throws -> Void)] = [
        ("v1", migrateV1)
    ]

    static let schema = SQLiteSchema(kind: "ENDeviceStore", signatureTable: "store_metadata", migrations: migrations)

    /// Schema v1: the device's framework state.
    ///
    /// - `store_metadata`: when the store was created and whether it is encrypted at rest (with its canary).
    /// - `own_keys`, `sightings`: the device's key history and what it heard.
    /// - `detections`, `processed_key_files`, `detection_ledger`: the exposure checks, the key files they
    ///   processed and the rate-limit ledger.
    /// - `cached_key_files`, `key_file_contents`: verified key files kept for later detections, identified by the
    ///   SHA-256 of their `export.bin`. A `key_file_contents` row with no `cached_key_files` row of the same hash
    ///   is not part of the store's data: a detection staged it and has not finished (or was cancelled, or
    ///   crashed), and any sweep may delete it.
    /// - `manager_state`: what an `ENManager` keeps across restarts (enabled flag, authorization status,
    ///   pre-authorization of key release).
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
                CREATE TABLE detection_ledger (
                    id INTEGER PRIMARY KEY,
                    date REAL NOT NULL
                );
                CREATE INDEX detection_ledger_by_date ON detection_ledger(date);
                CREATE TABLE cached_key_files (
                    id INTEGER PRIMARY KEY,
                    hash BLOB NOT NULL UNIQUE,
                    cached_at REAL NOT NULL
                );
                CREATE TABLE key_file_contents (
                    id INTEGER PRIMARY KEY,
                    hash BLOB NOT NULL UNIQUE,
                    export_binary BLOB NOT NULL
                );
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
}
