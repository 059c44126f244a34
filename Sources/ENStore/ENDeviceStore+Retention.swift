internal import ENCore
internal import ENSQLite
public import Foundation
internal import GRDB

/// Retention: automatic expiry by age, counting, and erasing everything.
extension ENStoreUpdate where Store == ENDeviceStore {
    /// Deletes, in one transaction, every record older than the retention period (14 days by default)
    /// before `now` (the configured clock's by default), and returns how many of each kind went.
    ///
    /// Own keys go when their last interval ends before the cut-off; sightings when received before it;
    /// cached key files when cached before it (a file cached again later keeps its first date), with their
    /// `export.bin` and any a detection staged without recording it; processed key
    /// files, ledger entries and detection results when recorded before it. The manager state does not expire.
    public static func deleteExpiredRecords(now: Date? = nil) -> ENStoreUpdate<ENDeviceStore, ENStoreRecordCounts> {
        .init { store, db in
            try ENDeviceStore.deleteExpiredRecords(db, store.configuration, now: now, contents: store.keyFileContents)
        }
    }

    /// Deletes everything the store holds, in one transaction (Apple's "Delete Exposure Log", plus the own
    /// keys and the manager state), then truncates the write-ahead log so
    /// no erased page stays in it. The cached key files' `export.bin` files (``ENDeviceStore/cachedKeyFilesDirectory``)
    /// are deleted once the transaction has committed.
    ///
    /// The schema and the encryption setting stay; the store remains usable.
    public static var eraseAll: ENStoreUpdate<ENDeviceStore, Void> {
        .init(truncatesLog: true) { store, db in
            let cached = try Data.fetchAll(db, sql: "SELECT hash FROM cached_key_files")
            for table in [
                "own_keys", "sightings", "detections", "processed_key_files", "cached_key_files", "key_file_contents",
                "detection_ledger",
            ] {
                try db.execute(sql: "DELETE FROM \(table)")
            }
            try db.execute(sql: "DELETE FROM sqlite_sequence")
            try db.execute(sql: "DELETE FROM manager_state")
            try db.execute(sql: "INSERT INTO manager_state (id) VALUES (1)")
            try store.keyFileContents.deleteUnreferenced(db, released: cached)
        }
    }
}

extension ENStoreQuery where Store == ENDeviceStore {
    /// Whether ``ENStoreUpdate/deleteExpiredRecords(now:)`` at `now` would delete anything; always `true` for a
    /// store whose cached key files live in a directory (its sweep also removes files a crash left there). The
    /// manager asks before each sweep, so that a sweep that finds nothing is no write: it moves no write generation
    /// (`ENDeviceStore.writeGeneration`), which the broadcast's key and the last detection's result are kept by.
    package static func hasExpiredRecords(now: Date) -> ENStoreQuery<ENDeviceStore, Bool> {
        .init { store, db in
            guard store.keyFileContents.directory == nil else { return true }
            return try ENDeviceStore.anyExpired(db, store.configuration, now: now)
        }
    }

    /// How many records of each kind the store holds, counted in one snapshot.
    public static var recordCounts: ENStoreQuery<ENDeviceStore, ENStoreRecordCounts> {
        .init { _, db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT (SELECT COUNT(*) FROM own_keys), (SELECT COUNT(*) FROM sightings),
                    (SELECT COUNT(*) FROM cached_key_files), (SELECT COUNT(*) FROM processed_key_files),
                    (SELECT COUNT(*) FROM detection_ledger), (SELECT COUNT(*) FROM detections)
                    """)!
            var counts = ENStoreRecordCounts()
            (counts.ownKeys, counts.sightings, counts.cachedKeyFiles) = (
                try row.stored(at: 0), try row.stored(at: 1), try row.stored(at: 2)
            )
            (counts.processedKeyFiles, counts.ledgerEntries, counts.detections) = (
                try row.stored(at: 3), try row.stored(at: 4), try row.stored(at: 5)
            )
            return counts
        }
    }
}

extension ENDeviceStore {
    /// The deletions of `ENStoreUpdate.deleteExpiredRecords(now:)`, on an open transaction: also run by the open
    /// itself, in the same transaction as the rest of its preparation.
    static func deleteExpiredRecords(
        _ db: Database, _ configuration: ENStoreConfiguration, now: Date?, contents: KeyFileContents
    ) throws -> ENStoreRecordCounts {
        let cutoff = (now ?? configuration.now()).addingTimeInterval(-configuration.retentionPeriod)
        let date = SQLiteCodec.column(cutoff)
        let interval = Int64(ENIntervalNumber(date: cutoff))
        func delete(_ sql: String, _ arguments: StatementArguments) throws -> Int {
            try db.execute(sql: sql, arguments: arguments)
            return db.changesCount
        }
        var counts = ENStoreRecordCounts()
        // Most sweeps find nothing to delete (the manager sweeps before every detection and release, and at every
        // periodic run): one cached query tells, instead of the seven deletions compiled anew. A store whose cached
        // files live in a directory always sweeps, for the files a crash may have left there.
        if contents.directory == nil, try !anyExpired(db, configuration, now: now) { return counts }
        counts.ownKeys = try delete("DELETE FROM own_keys WHERE rolling_start + rolling_period <= ?", [interval])
        counts.sightings = try delete("DELETE FROM sightings WHERE interval < ?", [interval])
        let expired = try Data.fetchAll(
            db, sql: "SELECT hash FROM cached_key_files WHERE cached_at < ?", arguments: [date])
        counts.cachedKeyFiles = try delete("DELETE FROM cached_key_files WHERE cached_at < ?", [date])
        // The contents of the files just expired (once this transaction commits), and any a detection staged but
        // did not record.
        try contents.deleteUnreferenced(db, released: expired)
        counts.processedKeyFiles = try delete("DELETE FROM processed_key_files WHERE processed_at < ?", [date])
        counts.ledgerEntries = try delete("DELETE FROM detection_ledger WHERE date < ?", [date])
        counts.detections = try delete("DELETE FROM detections WHERE computed_at < ?", [date])
        return counts
    }

    /// Whether any record is older than the retention period before `now` (the configured clock's by default), or
    /// any file contents are left that no cached file refers to: one cached query.
    static func anyExpired(_ db: Database, _ configuration: ENStoreConfiguration, now: Date?) throws -> Bool {
        let cutoff = (now ?? configuration.now()).addingTimeInterval(-configuration.retentionPeriod)
        let statement = try db.cachedStatement(
            sql: """
                SELECT EXISTS (SELECT 1 FROM own_keys WHERE rolling_start + rolling_period <= ?1)
                OR EXISTS (SELECT 1 FROM sightings WHERE interval < ?1)
                OR EXISTS (SELECT 1 FROM cached_key_files WHERE cached_at < ?2)
                OR EXISTS (SELECT 1 FROM key_file_contents WHERE hash NOT IN (SELECT hash FROM cached_key_files))
                OR EXISTS (SELECT 1 FROM processed_key_files WHERE processed_at < ?2)
                OR EXISTS (SELECT 1 FROM detection_ledger WHERE date < ?2)
                OR EXISTS (SELECT 1 FROM detections WHERE computed_at < ?2)
                """)
        return try Bool.fetchOne(
            statement, arguments: [Int64(ENIntervalNumber(date: cutoff)), SQLiteCodec.column(cutoff)]) == true
    }
}
