-- A store written by schema v1 (StoreSchema.migrateV1, copied verbatim), with one row per table.
-- Regenerate with Scripts/make-store-fixtures.py.
CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
INSERT INTO grdb_migrations VALUES ('v1');
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
INSERT INTO store_metadata (id, created_at, encrypted, canary) VALUES (1, 800000000.0, 0, NULL);
INSERT INTO own_keys VALUES (2963808, 144, x'11111111111111111111111111111111', 800000000.0);
INSERT INTO sightings (interval, payload) VALUES (2963845, x'000102030405060708090a0b0c0d0e0fa0a1a2a3c4030000400684d7c741');
UPDATE state SET is_onboarded = 1, next_key_file_index = 3, last_detection_date = 800000060.0, last_detection_error = NULL;
INSERT INTO detections (computed_at, kind, result) VALUES (800000060.0, 'v2', '{"matchedKeyCount":1,"maximumScore":1800}');
INSERT INTO processed_key_files VALUES (x'abababababababababababababababababababababababababababababababab', 800000060.0, 1);
INSERT INTO cached_keys VALUES (x'22222222222222222222222222222222', 2963664, 144, 4, 1, -2, 0, 800000060.0);
INSERT INTO test_results VALUES ('6F1C2E4A-0B7D-4C4B-9C55-0A4C7C2D9E10', 799913600.0, 1, 1);
INSERT INTO exposures (date, duration, total_risk_score, transmission_risk_level) VALUES (799740800.0, 900, 42, 5);
-- The same store after schema v2 (FrameworkSchema.migrateV2, copied verbatim), with key-server rows.
INSERT INTO grdb_migrations VALUES ('v2');
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
INSERT INTO server_batches VALUES (0, 800000120.0);
INSERT INTO server_keys (key_data, rolling_start, rolling_period, transmission_risk_level, report_type, days_since_onset, variant, received_at, batch_index) VALUES (x'33333333333333333333333333333333', 2963520, 144, 2, 1, NULL, 0, 800000100.0, 0);
INSERT INTO server_keys (key_data, rolling_start, rolling_period, transmission_risk_level, report_type, days_since_onset, variant, received_at, batch_index) VALUES (x'44444444444444444444444444444444', 2963664, 144, 3, 2, 1, 0, 800000130.0, NULL);
-- The same store after schema v3 (FrameworkSchema.migrateV3: every group holds rows, so it is renamed).
INSERT INTO grdb_migrations VALUES ('v3');
ALTER TABLE state RENAME TO legacy_state;
ALTER TABLE test_results RENAME TO legacy_test_results;
ALTER TABLE exposures RENAME TO legacy_exposures;
ALTER TABLE server_keys RENAME TO legacy_server_keys;
ALTER TABLE server_batches RENAME TO legacy_server_batches;
CREATE TABLE manager_state (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    exposure_notification_enabled INTEGER NOT NULL DEFAULT 0,
    authorization_status INTEGER NOT NULL DEFAULT 0,
    preauthorized_at REAL,
    preauthorization_released_at REAL
);
INSERT INTO manager_state (id) VALUES (1);
UPDATE manager_state SET exposure_notification_enabled = 1, authorization_status = 3, preauthorized_at = 800000030.0;
-- The same store after schema v4 (FrameworkSchema.migrateV4, copied verbatim), with one cached key file.
INSERT INTO grdb_migrations VALUES ('v4');
DROP TABLE cached_keys;
CREATE TABLE cached_key_files (
    id INTEGER PRIMARY KEY,
    hash BLOB NOT NULL UNIQUE,
    export_binary BLOB NOT NULL,
    cached_at REAL NOT NULL
);
INSERT INTO cached_key_files (hash, export_binary, cached_at) VALUES (x'5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d', x'454b204578706f7274207631202020200a0333313012', 800000060.0);
