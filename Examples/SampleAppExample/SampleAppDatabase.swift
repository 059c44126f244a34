// The sample app's own persistence, written for this package (not taken from Apple's sample code): the sample keeps
// `LocalStore`'s fields in the user defaults; here they live in one SQLite file of the app's, through GRDB. It is
// app data, beside the framework's state (which the framework keeps), and shares nothing with it.
import ExposureNotificationKit
import Foundation
import GRDB

/// `LocalStore`'s fields in one SQLite file: the onboarding flag and the detection state in one row, the test
/// results and the exposures in a table each.
///
/// Every method is one transaction. The file has its own versioned schema (GRDB migrations, `v1` so far); a file
/// whose schema this version does not know is refused.
final class SampleAppDatabase {
    /// `LocalStore`'s single values, as one row.
    struct State: Codable, Equatable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "app_state"
        var id = 1
        var isOnboarded = false
        var nextDiagnosisKeyFileIndex = 0
        var dateLastPerformedExposureDetection: Date?
        var exposureDetectionErrorLocalizedDescription: String?
    }

    private let queue: DatabaseQueue

    /// Opens (creating if needed) the app's database in the file at `path`, migrating it to the current schema.
    ///
    /// - Throws: `ENError.Code.unsupported` when a newer version of the app wrote the file (it is left as it was).
    init(path: String) throws {
        queue = try DatabaseQueue(path: path)
        try Self.migrate(queue)
    }

    /// Opens an empty database in memory, for tests.
    init() throws {
        queue = try DatabaseQueue()
        try Self.migrate(queue)
    }

    private static func migrate(_ queue: DatabaseQueue) throws {
        if try queue.read({ db in try migrator.hasBeenSuperseded(db) }) {
            throw ENError(.unsupported, "the app's database was written by a newer version of the app")
        }
        try migrator.migrate(queue)
    }

    /// The schema, one migration per released version. Never edit a released migration; add one.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "app_state") { table in
                table.primaryKey("id", .integer).check { $0 == 1 }
                table.column("isOnboarded", .boolean).notNull().defaults(to: false)
                table.column("nextDiagnosisKeyFileIndex", .integer).notNull().defaults(to: 0)
                table.column("dateLastPerformedExposureDetection", .double)
                table.column("exposureDetectionErrorLocalizedDescription", .text)
            }
            try State().insert(db)
            try db.create(table: "test_results") { table in
                table.primaryKey("id", .blob)
                table.column("isAdded", .boolean).notNull()
                table.column("dateAdministered", .double).notNull()
                table.column("isShared", .boolean).notNull()
            }
            try db.create(table: "exposures") { table in
                table.autoIncrementedPrimaryKey("rowNumber")
                table.column("date", .double).notNull()
                table.column("duration", .double)
                table.column("totalRiskScore", .integer)
                table.column("transmissionRiskLevel", .integer)
            }
        }
        return migrator
    }

    /// The onboarding flag and the detection state.
    func state() throws -> State {
        try queue.read { db in try State.fetchOne(db) ?? State() }
    }

    /// Changes the onboarding flag or the detection state.
    func updateState(_ change: (inout State) -> Void) throws {
        try queue.write { db in
            var state = try State.fetchOne(db) ?? State()
            change(&state)
            try state.save(db)
        }
    }

    /// The test results, by date administered.
    func testResults() throws -> [TestResult] {
        try queue.read { db in try TestResult.order(Column("dateAdministered")).fetchAll(db) }
    }

    /// Replaces the test results with `results`.
    func replaceTestResults(with results: [TestResult]) throws {
        try queue.write { db in
            try TestResult.deleteAll(db)
            for result in results { try result.insert(db) }
        }
    }

    /// The exposures, in the order they were stored.
    func exposures() throws -> [Exposure] {
        try queue.read { db in try Exposure.order(Column("rowNumber")).fetchAll(db) }
    }

    /// Replaces the exposures with `exposures` (an empty array clears them).
    func replaceExposures(with exposures: [Exposure]) throws {
        try queue.write { db in
            try Exposure.deleteAll(db)
            for exposure in exposures { try exposure.insert(db) }
        }
    }

    /// Deletes all the app's data (onboarding, detection state, test results, exposures), then vacuums the file so
    /// that no deleted row stays in it. The database remains usable.
    func eraseAll() throws {
        try queue.write { db in
            try TestResult.deleteAll(db)
            try Exposure.deleteAll(db)
            try State().save(db)
        }
        try queue.vacuum()
    }

    /// Closes the file.
    func close() throws {
        try queue.close()
    }
}

/// Dates as seconds since the reference date, as the sample's JSON encoder keeps them.
extension SampleAppDatabase.State {
    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .timeIntervalSinceReferenceDate
    }
    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
        .timeIntervalSinceReferenceDate
    }
}

extension TestResult: FetchableRecord, PersistableRecord {
    static let databaseTableName = "test_results"
    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .timeIntervalSinceReferenceDate
    }
    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
        .timeIntervalSinceReferenceDate
    }
}

extension Exposure: FetchableRecord, PersistableRecord {
    static let databaseTableName = "exposures"
    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .timeIntervalSinceReferenceDate
    }
    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
        .timeIntervalSinceReferenceDate
    }
}
