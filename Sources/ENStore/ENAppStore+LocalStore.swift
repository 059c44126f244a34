internal import ENCore
internal import ENSQLite
public import Foundation
internal import GRDB

/// The sample app's `LocalStore`: onboarding flag, test results, exposures and the detection state, each
/// observable with ``ENPersistentStore/observe(_:)``.
extension ENStoreQuery where Store == ENAppStore {
    /// Whether the user finished onboarding (`false` until set).
    public static var isOnboarded: ENStoreQuery<ENAppStore, Bool> {
        .init { _, db in try AppTables.current.isOnboarded(db) }
    }

    /// The stored test results, by date administered (then identifier).
    public static var testResults: ENStoreQuery<ENAppStore, [ENTestResult]> {
        .init { _, db in try AppTables.current.testResults(db) }
    }

    /// The stored exposures, by date (then insertion order).
    public static var exposures: ENStoreQuery<ENAppStore, [ENExposureRecord]> {
        .init { _, db in try AppTables.current.exposures(db) }
    }

    /// The app's detection state: the next key-file index, the last detection date and error.
    public static var detectionState: ENStoreQuery<ENAppStore, ENDetectionState> {
        .init { _, db in try AppTables.current.detectionState(db) }
    }
}

extension ENStoreUpdate where Store == ENAppStore {
    /// Sets whether the user finished onboarding.
    public static func setOnboarded(_ value: Bool) -> ENStoreUpdate<ENAppStore, Void> {
        .init { _, db in try db.execute(sql: "UPDATE app_state SET is_onboarded = ? WHERE id = 1", arguments: [value]) }
    }

    /// Stores a test result, replacing the one with the same identifier.
    public static func saveTestResult(_ result: ENTestResult) -> ENStoreUpdate<ENAppStore, Void> {
        .init { _, db in try AppTables.current.saveTestResult(db, result) }
    }

    /// Deletes the test result with `id`; returns whether it existed.
    public static func deleteTestResult(id: UUID) -> ENStoreUpdate<ENAppStore, Bool> {
        .init { _, db in
            try db.execute(sql: "DELETE FROM test_results WHERE id = ?", arguments: [id.uuidString])
            return db.changesCount > 0
        }
    }

    /// Appends exposures in one transaction.
    public static func addExposures(_ exposures: [ENExposureRecord]) -> ENStoreUpdate<ENAppStore, Void> {
        .init { _, db in try AppTables.current.addExposures(db, exposures) }
    }

    /// Replaces all stored exposures with `exposures` in one transaction (an empty array clears them).
    public static func replaceExposures(with exposures: [ENExposureRecord]) -> ENStoreUpdate<ENAppStore, Void> {
        .init { _, db in
            try db.execute(sql: "DELETE FROM exposures")
            try AppTables.current.addExposures(db, exposures)
        }
    }

    /// Records a successful detection as the sample app does, in one transaction: appends `newExposures`, sets
    /// the last detection date to `date`, clears the last error and, unless `nil`, sets the next key-file index.
    ///
    /// - Throws: `ENError.Code.badParameter` for a negative index (nothing is written).
    public static func recordDetection(
        at date: Date, nextKeyFileIndex: Int? = nil, newExposures: [ENExposureRecord] = []
    ) -> ENStoreUpdate<ENAppStore, Void> {
        .init { _, db in
            if let index = nextKeyFileIndex { try validate(index) }
            try AppTables.current.addExposures(db, newExposures)
            try db.execute(
                sql: """
                    UPDATE app_state SET last_detection_date = ?, last_detection_error = NULL,
                    next_key_file_index = COALESCE(?, next_key_file_index) WHERE id = 1
                    """,
                arguments: [StoreCodec.column(date), nextKeyFileIndex])
        }
    }

    /// Records why a detection failed (the sample app's `exposureDetectionErrorLocalizedDescription`); the last
    /// detection date and the next index stay.
    public static func recordDetectionFailure(_ reason: String) -> ENStoreUpdate<ENAppStore, Void> {
        .init { _, db in
            try db.execute(sql: "UPDATE app_state SET last_detection_error = ? WHERE id = 1", arguments: [reason])
        }
    }

    /// Sets the next key-file index outside a detection (for example after the server reset its files).
    ///
    /// - Throws: `ENError.Code.badParameter` for a negative index.
    public static func setNextKeyFileIndex(_ index: Int) -> ENStoreUpdate<ENAppStore, Void> {
        .init { _, db in
            try validate(index)
            try db.execute(sql: "UPDATE app_state SET next_key_file_index = ? WHERE id = 1", arguments: [index])
        }
    }

    /// Deletes all the app's data in one transaction (onboarding, test results, exposures, detection state), then
    /// truncates the write-ahead log so no erased page stays in it. The store remains usable.
    public static var eraseAll: ENStoreUpdate<ENAppStore, Void> {
        .init(truncatesLog: true) { _, db in
            try db.execute(sql: "DELETE FROM test_results")
            try db.execute(sql: "DELETE FROM exposures")
            try db.execute(
                sql: """
                    UPDATE app_state SET is_onboarded = 0, next_key_file_index = 0, last_detection_date = NULL,
                    last_detection_error = NULL WHERE id = 1
                    """)
        }
    }

    private static func validate(_ index: Int) throws(ENError) {
        guard index >= 0 else { throw .badParameter("the next key-file index must be >= 0, got \(index)") }
    }
}
