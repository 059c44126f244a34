package import ENSQLite
internal import GRDB

/// ``ENKeyServerSQLiteStore``'s versioned schema: one GRDB migration per released schema version. Never edit a
/// shipped migration; add a new one (the mechanism runs the ones a file lacks, in order).
///
/// `key_server_keys.received_at` is the time from which the key may be exported: Google's `created_at` (the hour
/// of arrival, or for a key still valid on arrival the hour after its end). A key is identified by its key data
/// alone (unique), as Google's server identifies it.
package enum KeyServerSchema {
    /// The schema, with every migration.
    package static let schema = SQLiteSchema(
        kind: "ENKeyServerSQLiteStore", signatureTable: "key_server_keys",
        migrations: [("key-server-v1", migrateV1), ("key-server-v2", migrateV2), ("key-server-v3", migrateV3)])

    /// Schema key-server-v1.
    ///
    /// - `key_server_keys`: the posted keys (the diagnosis-key columns of `ENStore`'s cached keys), the time
    ///   from which each may be exported, its batch, its revision (revised report type and days since onset,
    ///   `revised_at` not null marking one, and the batch it went into), and `is_padding` for the random keys a
    ///   small batch was padded with (kept so that the store tells what it published, never listed as posted).
    /// - `key_server_batches`: each batch's window (`start_timestamp`, `end_timestamp`, UTC seconds), its files
    ///   (`first_file_index`, `file_count`, kept after retention drops the files so that file indexes never
    ///   repeat), its `status` (`open` until its files are recorded, then `complete`), the lease of the exporter
    ///   working on an open batch (`lease_owner`, `lease_expires`) and the window of its keys (`keys_from`, null
    ///   for no lower bound, and `keys_until`, exclusive).
    /// - `key_server_files`: each published file's signed zip, so that every download is the same bytes.
    static func migrateV1(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE key_server_batches (
                    batch_index INTEGER PRIMARY KEY,
                    created_at REAL NOT NULL,
                    start_timestamp INTEGER,
                    end_timestamp INTEGER,
                    first_file_index INTEGER NOT NULL DEFAULT 0,
                    file_count INTEGER NOT NULL DEFAULT 0,
                    status TEXT NOT NULL DEFAULT 'complete',
                    lease_owner TEXT,
                    lease_expires REAL,
                    keys_from REAL,
                    keys_until REAL
                );
                CREATE INDEX key_server_batches_open ON key_server_batches(status, batch_index);
                CREATE TABLE key_server_keys (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    key_data BLOB NOT NULL UNIQUE,
                    rolling_start INTEGER NOT NULL,
                    rolling_period INTEGER NOT NULL,
                    transmission_risk_level INTEGER NOT NULL,
                    report_type INTEGER NOT NULL,
                    days_since_onset INTEGER,
                    variant INTEGER NOT NULL,
                    received_at REAL NOT NULL,
                    batch_index INTEGER REFERENCES key_server_batches(batch_index),
                    revised_report_type INTEGER,
                    revised_days_since_onset INTEGER,
                    revised_at REAL,
                    revised_batch_index INTEGER REFERENCES key_server_batches(batch_index),
                    is_padding INTEGER NOT NULL DEFAULT 0
                );
                CREATE INDEX key_server_keys_by_batch ON key_server_keys(batch_index, id);
                CREATE INDEX key_server_keys_by_revision ON key_server_keys(revised_batch_index, revised_at, id)
                    WHERE revised_at IS NOT NULL;
                CREATE INDEX key_server_keys_by_arrival ON key_server_keys(received_at);
                CREATE TABLE key_server_files (
                    file_index INTEGER PRIMARY KEY,
                    name TEXT NOT NULL UNIQUE,
                    batch_index INTEGER NOT NULL REFERENCES key_server_batches(batch_index),
                    start_timestamp INTEGER NOT NULL,
                    end_timestamp INTEGER NOT NULL,
                    created_at REAL NOT NULL,
                    data BLOB NOT NULL
                );
                CREATE INDEX key_server_files_by_end ON key_server_files(end_timestamp);
                """)
    }

    /// Schema key-server-v2: each key's origin, as Google's `Exposure` has it.
    ///
    /// - `key_server_keys.regions`: the key's regions, upper-cased, joined with `,` (a region has no comma); empty
    ///   for a key stored before this version, which counts as published for the output region.
    /// - `key_server_keys.traveler`: 1 when the publish request said the user travelled.
    /// - `key_server_keys.import_name`: the import that brought the key, null for a key published here.
    /// - `key_server_import_files`: the files each import found in the other server's `index.txt` (Google's
    ///   `ImportFile`): `status` `open`, `complete` or `failed`, the failed tries, when each was found and last tried.
    static func migrateV2(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE key_server_keys ADD COLUMN regions TEXT NOT NULL DEFAULT '';
                ALTER TABLE key_server_keys ADD COLUMN traveler INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE key_server_keys ADD COLUMN import_name TEXT;
                CREATE TABLE key_server_import_files (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    import_name TEXT NOT NULL,
                    url TEXT NOT NULL,
                    discovered_at REAL NOT NULL,
                    processed_at REAL,
                    status TEXT NOT NULL DEFAULT 'open',
                    retries INTEGER NOT NULL DEFAULT 0,
                    UNIQUE (import_name, url)
                );
                """)
    }

    /// Schema key-server-v3: several export configurations on one store, each told by its name (empty for the
    /// default configuration, the only one before this version).
    ///
    /// - `key_server_export_marks`: what each configuration exported, one row per configuration, key and kind
    ///   (`revision` 0 for the key, 1 for its revision) with the batch that carried it. A key is waiting for a
    ///   configuration while it has no row there, so a key written after a batch read the table (a late commit on
    ///   PostgreSQL) waits for the next batch whose window takes it instead of being marked unread. This replaces
    ///   `key_server_keys.batch_index` and `revised_batch_index` as the export marks; the marks they held become the
    ///   default configuration's. The columns stay (SQLite cannot drop a column that references another table):
    ///   `batch_index` still records the batch of a padding key, and nothing reads them as marks.
    /// - `key_server_batches.export_name`: the configuration of each batch; existing batches are the default one's.
    /// - `key_server_files` rebuilt with `export_name`: file indexes and names are unique per configuration (two
    ///   configurations with one period cut files of the same names, under different roots).
    static func migrateV3(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE key_server_export_marks (
                    export_name TEXT NOT NULL,
                    key_id INTEGER NOT NULL REFERENCES key_server_keys(id) ON DELETE CASCADE,
                    revision INTEGER NOT NULL,
                    batch_index INTEGER NOT NULL REFERENCES key_server_batches(batch_index),
                    PRIMARY KEY (export_name, revision, key_id)
                ) WITHOUT ROWID;
                CREATE INDEX key_server_export_marks_by_batch ON key_server_export_marks(batch_index, revision, key_id);
                CREATE INDEX key_server_export_marks_by_key ON key_server_export_marks(key_id);
                INSERT INTO key_server_export_marks (export_name, key_id, revision, batch_index)
                    SELECT '', id, 0, batch_index FROM key_server_keys
                    WHERE batch_index IS NOT NULL AND is_padding = 0;
                INSERT INTO key_server_export_marks (export_name, key_id, revision, batch_index)
                    SELECT '', id, 1, revised_batch_index FROM key_server_keys
                    WHERE revised_at IS NOT NULL AND revised_batch_index IS NOT NULL;
                ALTER TABLE key_server_batches ADD COLUMN export_name TEXT NOT NULL DEFAULT '';
                CREATE INDEX key_server_batches_by_export ON key_server_batches(export_name, status, batch_index);
                CREATE TABLE key_server_files_v3 (
                    export_name TEXT NOT NULL DEFAULT '',
                    file_index INTEGER NOT NULL,
                    name TEXT NOT NULL,
                    batch_index INTEGER NOT NULL REFERENCES key_server_batches(batch_index),
                    start_timestamp INTEGER NOT NULL,
                    end_timestamp INTEGER NOT NULL,
                    created_at REAL NOT NULL,
                    data BLOB NOT NULL,
                    PRIMARY KEY (export_name, file_index),
                    UNIQUE (export_name, name)
                );
                INSERT INTO key_server_files_v3 (export_name, file_index, name, batch_index, start_timestamp,
                    end_timestamp, created_at, data)
                    SELECT '', file_index, name, batch_index, start_timestamp, end_timestamp, created_at, data
                    FROM key_server_files;
                DROP TABLE key_server_files;
                ALTER TABLE key_server_files_v3 RENAME TO key_server_files;
                CREATE INDEX key_server_files_by_end ON key_server_files(end_timestamp);
                """)
    }
}
