internal import ENStore
internal import GRDB

/// ``ENKeyServerStore``'s versioned schema: one GRDB migration per released schema version. Never edit a
/// shipped migration; add a new one.
///
/// `key_server_keys.received_at` is the time from which the key may be exported: Google's `created_at` for keys
/// of the publish API (the hour of arrival, or for a key still valid on arrival the hour after its end), the
/// arrival time for keys posted with `postDiagnosisKeys`.
enum KeyServerSchema {
    static let schema = StoreSchema(
        kind: "ENKeyServerStore", signatureTable: "key_server_keys",
        migrations: [("key-server-v1", migrateV1), ("key-server-v2", migrateV2), ("key-server-v4", migrateV4)])

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

    /// Schema key-server-v2: revisions and published files.
    ///
    /// - `key_server_keys` gains the revised report type and days since onset of a key re-posted after it was
    ///   published (`revised_at` not null marks a revision), and the batch its revision went into.
    /// - `key_server_batches` gains the batch's window (`start_timestamp`, `end_timestamp`, UTC seconds) and
    ///   its files (`first_file_index`, `file_count`), kept after retention drops the files so that file
    ///   indexes never repeat.
    /// - `key_server_files` keeps each published file's signed zip, so that every download is the same bytes.
    static func migrateV2(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE key_server_keys ADD COLUMN revised_report_type INTEGER;
                ALTER TABLE key_server_keys ADD COLUMN revised_days_since_onset INTEGER;
                ALTER TABLE key_server_keys ADD COLUMN revised_at REAL;
                ALTER TABLE key_server_keys ADD COLUMN revised_batch_index INTEGER
                    REFERENCES key_server_batches(batch_index);
                CREATE INDEX key_server_keys_by_revision ON key_server_keys(revised_batch_index, revised_at, id)
                    WHERE revised_at IS NOT NULL;
                CREATE INDEX key_server_keys_by_arrival ON key_server_keys(received_at);
                ALTER TABLE key_server_batches ADD COLUMN start_timestamp INTEGER;
                ALTER TABLE key_server_batches ADD COLUMN end_timestamp INTEGER;
                ALTER TABLE key_server_batches ADD COLUMN first_file_index INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE key_server_batches ADD COLUMN file_count INTEGER NOT NULL DEFAULT 0;
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

    /// Schema key-server-v4: export batches claimed under a lease, and stored padding keys.
    ///
    /// - `key_server_batches` gains `status` (`open` until its files are recorded, then `complete`; batches
    ///   written before are complete), the lease (`lease_owner`, `lease_expires`) of the exporter working on an
    ///   open batch, and the arrival window of its keys (`keys_from`, null for no lower bound, and `keys_until`,
    ///   exclusive).
    /// - `key_server_keys` gains `is_padding`: the random keys a small batch was padded with, kept so that the
    ///   store tells what it published, but never listed as posted keys.
    static func migrateV4(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE key_server_batches ADD COLUMN status TEXT NOT NULL DEFAULT 'complete';
                ALTER TABLE key_server_batches ADD COLUMN lease_owner TEXT;
                ALTER TABLE key_server_batches ADD COLUMN lease_expires REAL;
                ALTER TABLE key_server_batches ADD COLUMN keys_from REAL;
                ALTER TABLE key_server_batches ADD COLUMN keys_until REAL;
                CREATE INDEX key_server_batches_open ON key_server_batches(status, batch_index);
                ALTER TABLE key_server_keys ADD COLUMN is_padding INTEGER NOT NULL DEFAULT 0;
                """)
    }
}
