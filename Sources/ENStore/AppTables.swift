internal import ENCore
internal import ENSQLite
internal import Foundation
internal import GRDB

/// The app's tables, read and written in one place: by ``ENAppStore`` (`app_state`, `test_results`,
/// `exposures`) and, for reading only, by ``ENStore`` in the legacy tables schema v3 kept from older files
/// (`legacy_state`, `legacy_test_results`, `legacy_exposures`, same columns).
struct AppTables: Sendable {
    var state: String
    var testResults: String
    var exposures: String

    static let current = AppTables(state: "app_state", testResults: "test_results", exposures: "exposures")
    static let legacy = AppTables(
        state: FrameworkSchema.legacyPrefix + "state", testResults: FrameworkSchema.legacyPrefix + "test_results",
        exposures: FrameworkSchema.legacyPrefix + "exposures")

    func isOnboarded(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT is_onboarded FROM \(state) WHERE id = 1") ?? false
    }

    func detectionState(_ db: Database) throws -> ENDetectionState {
        guard
            let row = try Row.fetchOne(
                db,
                sql: "SELECT next_key_file_index, last_detection_date, last_detection_error FROM \(state) WHERE id = 1")
        else { return ENDetectionState() }
        let date: Double? = try row.stored(at: 1)
        return ENDetectionState(
            nextKeyFileIndex: try row.stored(at: 0), lastDetectionDate: date.map(StoreCodec.date),
            lastDetectionError: try row.stored(at: 2))
    }

    func testResults(_ db: Database) throws -> [ENTestResult] {
        try Row.fetchAll(
            db,
            sql: "SELECT id, date_administered, is_added, is_shared FROM \(testResults) ORDER BY date_administered, id"
        ).map { row in
            let text: String = try row.stored(at: 0)
            guard let id = UUID(uuidString: text) else {
                throw ENError(.badFormat, "a stored test result has the identifier \"\(text)\", not a UUID")
            }
            return ENTestResult(
                id: id, isAdded: try row.stored(at: 2), dateAdministered: StoreCodec.date(try row.stored(at: 1)),
                isShared: try row.stored(at: 3))
        }
    }

    func exposures(_ db: Database) throws -> [ENExposureRecord] {
        try Row.fetchAll(
            db,
            sql: "SELECT date, duration, total_risk_score, transmission_risk_level FROM \(exposures) ORDER BY date, id"
        ).map { row in
            let score: Int64? = try row.stored(at: 2)
            let level: Int64? = try row.stored(at: 3)
            return ENExposureRecord(
                date: StoreCodec.date(try row.stored(at: 0)), duration: try row.stored(at: 1),
                totalRiskScore: score.map { UInt8(clamping: $0) },
                transmissionRiskLevel: level.map { UInt8(clamping: $0) })
        }
    }

    func saveTestResult(_ db: Database, _ result: ENTestResult) throws {
        try db.execute(
            sql:
                "INSERT OR REPLACE INTO \(testResults) (id, date_administered, is_added, is_shared) VALUES (?, ?, ?, ?)",
            arguments: [
                result.id.uuidString, StoreCodec.column(result.dateAdministered), result.isAdded, result.isShared,
            ])
    }

    func addExposures(_ db: Database, _ records: [ENExposureRecord]) throws {
        let statement = try db.cachedStatement(
            sql:
                "INSERT INTO \(exposures) (date, duration, total_risk_score, transmission_risk_level) VALUES (?, ?, ?, ?)"
        )
        for exposure in records {
            try statement.execute(arguments: [
                StoreCodec.column(exposure.date), exposure.duration, exposure.totalRiskScore.map { Int64($0) },
                exposure.transmissionRiskLevel.map { Int64($0) },
            ])
        }
    }
}
