public import ENCore
public import Foundation
internal import GRDB

/// The sample app's `LocalStore`: onboarding flag, test results and exposures, each observable.
///
/// The rest of `LocalStore` (next key-file index, last detection date and error) is the
/// ``ENDetectionState``.
extension ENStore {
    // MARK: Onboarding

    /// Whether the user finished onboarding (`false` until set).
    public func isOnboarded() throws(ENError) -> Bool { try readSync(Self.fetchOnboarded) }

    /// Whether the user finished onboarding; see the synchronous form.
    public func isOnboarded() async throws(ENError) -> Bool { try await read(Self.fetchOnboarded) }

    /// Sets whether the user finished onboarding.
    public func setOnboarded(_ value: Bool) throws(ENError) {
        try writeSync { db in try Self.storeOnboarded(db, value) }
    }

    /// Sets whether the user finished onboarding; see the synchronous form.
    public func setOnboarded(_ value: Bool) async throws(ENError) {
        try await write { db in try Self.storeOnboarded(db, value) }
    }

    /// Observes the onboarding flag.
    public func observeIsOnboarded() -> ENStoreObservation<Bool> {
        ENStoreObservation(store: self, ValueObservation.tracking(Self.fetchOnboarded))
    }

    // MARK: Test results

    /// The stored test results, by date administered (then identifier).
    public func testResults() throws(ENError) -> [ENTestResult] { try readSync(Self.fetchTestResults) }

    /// The stored test results; see the synchronous form.
    public func testResults() async throws(ENError) -> [ENTestResult] { try await read(Self.fetchTestResults) }

    /// Stores a test result, replacing the one with the same identifier.
    public func saveTestResult(_ result: ENTestResult) throws(ENError) {
        try writeSync { db in try Self.storeTestResult(db, result) }
    }

    /// Stores a test result; see the synchronous form.
    public func saveTestResult(_ result: ENTestResult) async throws(ENError) {
        try await write { db in try Self.storeTestResult(db, result) }
    }

    /// Deletes the test result with `id`; returns whether it existed.
    @discardableResult
    public func deleteTestResult(id: UUID) throws(ENError) -> Bool {
        try writeSync { db in try Self.removeTestResult(db, id) }
    }

    /// Deletes the test result with `id`; see the synchronous form.
    @discardableResult
    public func deleteTestResult(id: UUID) async throws(ENError) -> Bool {
        try await write { db in try Self.removeTestResult(db, id) }
    }

    /// Observes the test results.
    public func observeTestResults() -> ENStoreObservation<[ENTestResult]> {
        ENStoreObservation(store: self, ValueObservation.tracking(Self.fetchTestResults))
    }

    // MARK: Exposures

    /// The stored exposures, by date (then insertion order).
    public func exposures() throws(ENError) -> [ENExposureRecord] { try readSync(Self.fetchExposures) }

    /// The stored exposures; see the synchronous form.
    public func exposures() async throws(ENError) -> [ENExposureRecord] { try await read(Self.fetchExposures) }

    /// Appends exposures in one transaction.
    public func addExposures(_ exposures: [ENExposureRecord]) throws(ENError) {
        try writeSync { db in try Self.insertExposures(db, exposures, replacing: false) }
    }

    /// Appends exposures in one transaction; see the synchronous form.
    public func addExposures(_ exposures: [ENExposureRecord]) async throws(ENError) {
        try await write { db in try Self.insertExposures(db, exposures, replacing: false) }
    }

    /// Replaces all stored exposures with `exposures` in one transaction (an empty array clears them).
    public func replaceExposures(with exposures: [ENExposureRecord]) throws(ENError) {
        try writeSync { db in try Self.insertExposures(db, exposures, replacing: true) }
    }

    /// Replaces all stored exposures; see the synchronous form.
    public func replaceExposures(with exposures: [ENExposureRecord]) async throws(ENError) {
        try await write { db in try Self.insertExposures(db, exposures, replacing: true) }
    }

    /// Observes the exposures.
    public func observeExposures() -> ENStoreObservation<[ENExposureRecord]> {
        ENStoreObservation(store: self, ValueObservation.tracking(Self.fetchExposures))
    }

    // MARK: Implementation

    private static func fetchOnboarded(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT is_onboarded FROM state WHERE id = 1") ?? false
    }

    private static func storeOnboarded(_ db: Database, _ value: Bool) throws {
        try db.execute(sql: "UPDATE state SET is_onboarded = ? WHERE id = 1", arguments: [value])
    }

    private static func fetchTestResults(_ db: Database) throws -> [ENTestResult] {
        try Row.fetchAll(
            db,
            sql: "SELECT id, date_administered, is_added, is_shared FROM test_results ORDER BY date_administered, id"
        ).map { row in
            let text: String = row[0]
            guard let id = UUID(uuidString: text) else {
                throw ENError(.badFormat, "a stored test result has the identifier \"\(text)\", not a UUID")
            }
            return ENTestResult(id: id, isAdded: row[2], dateAdministered: StoreCodec.date(row[1]), isShared: row[3])
        }
    }

    private static func storeTestResult(_ db: Database, _ result: ENTestResult) throws {
        try db.execute(
            sql: "INSERT OR REPLACE INTO test_results (id, date_administered, is_added, is_shared) VALUES (?, ?, ?, ?)",
            arguments: [
                result.id.uuidString, StoreCodec.column(result.dateAdministered), result.isAdded, result.isShared,
            ])
    }

    private static func removeTestResult(_ db: Database, _ id: UUID) throws -> Bool {
        try db.execute(sql: "DELETE FROM test_results WHERE id = ?", arguments: [id.uuidString])
        return db.changesCount > 0
    }

    private static func fetchExposures(_ db: Database) throws -> [ENExposureRecord] {
        try Row.fetchAll(
            db, sql: "SELECT date, duration, total_risk_score, transmission_risk_level FROM exposures ORDER BY date, id"
        ).map { row in
            let score: Int64? = row[2]
            let level: Int64? = row[3]
            return ENExposureRecord(
                date: StoreCodec.date(row[0]), duration: row[1], totalRiskScore: score.map { UInt8(clamping: $0) },
                transmissionRiskLevel: level.map { UInt8(clamping: $0) })
        }
    }

    private static func insertExposures(_ db: Database, _ exposures: [ENExposureRecord], replacing: Bool) throws {
        if replacing { try db.execute(sql: "DELETE FROM exposures") }
        let statement = try db.cachedStatement(
            sql: "INSERT INTO exposures (date, duration, total_risk_score, transmission_risk_level) VALUES (?, ?, ?, ?)"
        )
        for exposure in exposures {
            try statement.execute(arguments: [
                StoreCodec.column(exposure.date), exposure.duration, exposure.totalRiskScore.map { Int64($0) },
                exposure.transmissionRiskLevel.map { Int64($0) },
            ])
        }
    }
}
