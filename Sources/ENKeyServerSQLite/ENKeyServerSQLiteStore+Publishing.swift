public import ENCore
public import ENKeyServer
internal import ENSQLite
public import Foundation
internal import GRDB

/// The publish API's storage primitives on SQLite.
extension ENKeyServerSQLiteStore: ENKeyServerStorage {
    /// The stored keys with the given key data, one per key data, in the order of `keyData`.
    public func storedKeys(withKeyData keyData: [Data]) async throws(ENError) -> [ENStoredDiagnosisKey] {
        try await read { db in
            let find = try db.cachedStatement(
                sql: """
                    SELECT \(SQLiteCodec.keyColumns), received_at, revised_report_type, revised_days_since_onset,
                        revised_at, regions, traveler, import_name
                    FROM key_server_keys WHERE key_data = ?
                    """)
            var seen = Set<Data>()
            var result: [ENStoredDiagnosisKey] = []
            for data in keyData where seen.insert(data).inserted {
                guard let row = try Row.fetchOne(find, arguments: [data]) else { continue }
                var stored = ENStoredDiagnosisKey(
                    key: try SQLiteCodec.key(from: row), exportableAt: SQLiteCodec.date(try row.stored("received_at")),
                    origin: KeyServerTables.origin(
                        try row.stored("regions"), try row.stored("traveler"), try row.stored("import_name")))
                if let revisedAt = (try row.stored("revised_at", as: Double?.self)),
                    let type = (try row.stored("revised_report_type", as: Int64?.self))
                {
                    let onset: Int64? = try row.stored("revised_days_since_onset")
                    stored.revision = ENKeyServerRevision(
                        keyData: data,
                        reportType: ENDiagnosisReportType(rawValue: UInt32(clamping: type)) ?? .unknown,
                        daysSinceOnsetOfSymptoms: onset.map { Int($0) } ?? ENDaysSinceOnsetOfSymptomsUnknown,
                        revisedAt: SQLiteCodec.date(revisedAt))
                }
                result.append(stored)
            }
            return result
        }
    }

    /// Inserts keys whose key data is not stored yet and revises stored keys not revised yet, in one
    /// transaction; see `ENKeyServerStorage.insertAndRevise(inserting:revising:)`.
    ///
    /// - Throws: `ENError.Code.badParameter` when a key to revise is missing or already revised (a concurrent
    ///   publish revised it); nothing is written then.
    public func insertAndRevise(
        inserting insertions: [ENKeyServerInsertion], revising revisions: [ENKeyServerRevision]
    ) async throws(ENError) -> [Data] {
        try await write { db in
            let insert = try db.cachedStatement(
                sql: """
                    INSERT INTO key_server_keys (\(SQLiteCodec.keyColumns), received_at, regions, traveler, import_name)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (key_data) DO NOTHING
                    """)
            var inserted: [Data] = []
            for insertion in insertions {
                var arguments = SQLiteCodec.keyArguments(insertion.key)
                arguments += [
                    SQLiteCodec.column(insertion.exportableAt), KeyServerTables.column(insertion.origin.regions),
                    insertion.origin.traveler, insertion.origin.importName,
                ]
                try insert.execute(arguments: arguments)
                if db.changesCount == 1 { inserted.append(insertion.key.keyData) }
            }
            let revise = try db.cachedStatement(
                sql: """
                    UPDATE key_server_keys SET revised_report_type = ?, revised_days_since_onset = ?, revised_at = ?,
                        revised_batch_index = NULL, regions = CASE WHEN ? = '' THEN regions ELSE ? END
                    WHERE key_data = ? AND revised_at IS NULL
                    """)
            for (index, revision) in revisions.enumerated() {
                let onset: Int64? =
                    revision.daysSinceOnsetOfSymptoms == ENDaysSinceOnsetOfSymptomsUnknown
                    ? nil : Int64(revision.daysSinceOnsetOfSymptoms)
                try revise.execute(arguments: [
                    Int64(revision.reportType.rawValue), onset, SQLiteCodec.column(revision.revisedAt),
                    KeyServerTables.column(revision.regions), KeyServerTables.column(revision.regions),
                    revision.keyData,
                ])
                guard db.changesCount == 1 else {
                    throw ENError.badParameter(
                        "the key to revise is not stored, or was revised meanwhile",
                        context: .init(section: "revisions", index: index))
                }
            }
            return inserted
        }
    }
}
