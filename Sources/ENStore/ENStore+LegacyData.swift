internal import ENCore
internal import GRDB

/// The app's and key server's tables an older schema kept in the framework store's file (see <doc:Migration>).
extension ENStoreQuery where Store == ENStore {
    /// The app data an older version kept in this file (schemas v1 and v2), or `nil` when the file holds none
    /// (a store created by this version, or one whose legacy data was deleted).
    ///
    /// Copy it into the ``ENAppStore`` with ``ENStoreUpdate/importLegacyData(_:)``, then delete it here with
    /// ``ENStoreUpdate/deleteLegacyData``.
    public static var legacyAppData: ENStoreQuery<ENStore, ENLegacyAppData?> {
        .init { _, db in
            // v3 keeps the app's tables as a group, or drops them.
            let tables = AppTables.legacy
            guard try db.tableExists(tables.state) else { return nil }
            return ENLegacyAppData(
                isOnboarded: try tables.isOnboarded(db), detectionState: try tables.detectionState(db),
                testResults: try tables.testResults(db), exposures: try tables.exposures(db))
        }
    }
}

extension ENStoreUpdate where Store == ENStore {
    /// Deletes every legacy table an older schema left in this file: the app's data and a key server's posted
    /// keys and batches. Returns whether there was any.
    public static var deleteLegacyData: ENStoreUpdate<ENStore, Bool> {
        .init(truncatesLog: true) { _, db in try LegacyTables.drop(db) }
    }
}

/// The tables schema v3 renamed `legacy_...` because they held rows.
enum LegacyTables {
    static var names: [String] {
        (FrameworkSchema.appTables + FrameworkSchema.keyServerTables).map { FrameworkSchema.legacyPrefix + $0 }
    }

    /// Drops the legacy tables that exist; returns whether there was any.
    static func drop(_ db: Database) throws -> Bool {
        var dropped = false
        for table in names where try db.tableExists(table) {
            try db.execute(sql: "DROP TABLE \(table)")
            dropped = true
        }
        return dropped
    }
}
