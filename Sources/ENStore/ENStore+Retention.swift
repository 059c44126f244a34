public import ENCore
public import Foundation
internal import GRDB

/// Retention: automatic expiry by age, and erasing everything.
extension ENStore {
    /// Deletes, in one transaction, every record older than the retention period (14 days by default)
    /// before `now` (the configured clock's by default).
    ///
    /// Own keys go when their last interval ends before the cut-off; sightings when received before it;
    /// cached diagnosis keys when cached before it or valid only before it; processed key files, ledger
    /// entries and detection results when recorded before it. App data (test results, exposures,
    /// onboarding) and a key server's keys are the embedder's and never expire.
    @discardableResult
    public func deleteExpiredRecords(now: Date? = nil) throws(ENError) -> ENStoreExpiryReport {
        let cutoff = (now ?? configuration.now()).addingTimeInterval(-configuration.retentionPeriod)
        return try writeSync { db in try Self.deleteExpired(db, cutoff) }
    }

    /// Deletes every expired record; see the synchronous form.
    @discardableResult
    public func deleteExpiredRecords(now: Date? = nil) async throws(ENError) -> ENStoreExpiryReport {
        let cutoff = (now ?? configuration.now()).addingTimeInterval(-configuration.retentionPeriod)
        return try await write { db in try Self.deleteExpired(db, cutoff) }
    }

    /// Deletes everything the store holds, in one transaction (Apple's "Delete Exposure Log", plus the app
    /// data and key-server data), then truncates the write-ahead log so no erased page stays in it.
    ///
    /// The schema and the encryption setting stay; the store remains usable.
    public func eraseAll() throws(ENError) {
        try writeSync(Self.erase)
        try checkpoint()
    }

    /// Deletes everything the store holds; see the synchronous form.
    public func eraseAll() async throws(ENError) {
        try await write(Self.erase)
        try checkpoint()
    }

    // MARK: Implementation

    private static func deleteExpired(_ db: Database, _ cutoff: Date) throws -> ENStoreExpiryReport {
        let date = StoreCodec.column(cutoff)
        let interval = Int64(ENIntervalNumber(date: cutoff))
        func delete(_ sql: String, _ arguments: StatementArguments) throws -> Int {
            try db.execute(sql: sql, arguments: arguments)
            return db.changesCount
        }
        var report = ENStoreExpiryReport()
        report.ownKeys = try delete("DELETE FROM own_keys WHERE rolling_start + rolling_period <= ?", [interval])
        report.sightings = try delete("DELETE FROM sightings WHERE interval < ?", [interval])
        report.cachedDiagnosisKeys = try delete(
            "DELETE FROM cached_keys WHERE cached_at < ? OR rolling_start + rolling_period <= ?", [date, interval])
        report.processedKeyFiles = try delete("DELETE FROM processed_key_files WHERE processed_at < ?", [date])
        report.ledgerEntries = try delete("DELETE FROM detection_ledger WHERE date < ?", [date])
        report.detections = try delete("DELETE FROM detections WHERE computed_at < ?", [date])
        return report
    }

    private static func erase(_ db: Database) throws {
        for table in [
            "own_keys", "sightings", "detections", "processed_key_files", "cached_keys", "test_results", "exposures",
            "detection_ledger", "server_keys", "server_batches",
        ] {
            try db.execute(sql: "DELETE FROM \(table)")
        }
        try db.execute(sql: "DELETE FROM sqlite_sequence")
        try db.execute(
            sql: """
                UPDATE state SET is_onboarded = 0, next_key_file_index = 0, last_detection_date = NULL,
                last_detection_error = NULL WHERE id = 1
                """)
    }

    private func checkpoint() throws(ENError) {
        guard writer is DatabasePool else { return }
        do {
            _ = try writer.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        } catch {
            throw ENError.store(error, path: displayPath)
        }
    }
}
