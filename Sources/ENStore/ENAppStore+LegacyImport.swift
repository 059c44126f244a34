internal import ENCore
internal import ENSQLite
internal import GRDB

/// Importing the app data an older version kept elsewhere, once.
extension ENStoreUpdate where Store == ENAppStore {
    /// Copies `data` into the app store in one transaction, once: returns `true` when it did, `false` when an
    /// import already happened (nothing is written, so repeating the import after a crash is harmless).
    ///
    /// The usual source is the framework store's file of an older version:
    ///
    /// ```swift
    /// if let legacy = try store.read(.legacyAppData) {
    ///     try appStore.write(.importLegacyData(legacy))
    ///     try store.write(.deleteLegacyData)
    /// }
    /// ```
    ///
    /// - Throws: `ENError.Code.apiMisuse` when the app store already holds data of its own (import first,
    ///   before the app writes); `ENError.Code.badParameter` for a negative next key-file index. Nothing is
    ///   written then.
    public static func importLegacyData(_ data: ENLegacyAppData) -> ENStoreUpdate<ENAppStore, Bool> {
        .init { _, db in
            let tables = AppTables.current
            if try Bool.fetchOne(db, sql: "SELECT legacy_data_imported FROM app_state WHERE id = 1") == true {
                return false
            }
            guard data.detectionState.nextKeyFileIndex >= 0 else {
                throw ENError.badParameter(
                    "the next key-file index must be >= 0, got \(data.detectionState.nextKeyFileIndex)")
            }
            guard try tables.isOnboarded(db) == false, try tables.detectionState(db) == ENDetectionState(),
                try tables.testResults(db).isEmpty, try tables.exposures(db).isEmpty
            else {
                throw ENError.apiMisuse("legacy data is imported only into an empty app store; this one holds data")
            }
            for result in data.testResults { try tables.saveTestResult(db, result) }
            try tables.addExposures(db, data.exposures)
            let state = data.detectionState
            try db.execute(
                sql: """
                    UPDATE app_state SET is_onboarded = ?, next_key_file_index = ?, last_detection_date = ?,
                    last_detection_error = ?, legacy_data_imported = 1 WHERE id = 1
                    """,
                arguments: [
                    data.isOnboarded, state.nextKeyFileIndex, state.lastDetectionDate.map(StoreCodec.column),
                    state.lastDetectionError,
                ])
            return true
        }
    }
}
