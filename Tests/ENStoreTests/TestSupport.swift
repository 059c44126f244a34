import ENCore
import ENCrypto
import ENStore
import ENTestSupport
import Foundation
import GRDB
import Testing

/// A clock the test moves by hand.
final class TestClock: Sendable {
    private let current: Locked<Date>

    init(_ date: Date) { current = Locked(date) }

    var now: Date { current.withLock { $0 } }

    func advance(by seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }

    func configuration(cipher: (any ENAuthenticatedCipher)? = nil) -> ENStoreConfiguration {
        ENStoreConfiguration(now: { self.now }, cipher: cipher)
    }
}

/// The real AES-GCM cipher from ENCrypto (`AESGCM.Key` conforms to `ENAuthenticatedCipher`), keyed by
/// the SHA-256 of `seed` so that tests can name "the same key" and "another key" with short literals.
func aesCipher(_ seed: [UInt8]) -> AESGCM.Key {
    try! AESGCM.Key(data: SHA256.hash(Data(seed)))
}

/// A fixed reference moment for tests: 2026-05-09 06:13:20 UTC (interval 2_963_845).
let referenceDate = Date(timeIntervalSinceReferenceDate: 800_000_000)

func makeSighting(_ n: Int, at date: Date, rssi: Int8 = -60) -> ENSighting {
    var bytes = [UInt8](repeating: 0, count: 16)
    withUnsafeBytes(of: UInt64(n).littleEndian) { for i in 0..<8 { bytes[i] = $0[i] } }
    bytes[15] = 0xEE
    return ENSighting(
        rpi: try! RollingProximityIdentifier(bytes: bytes), aem: AssociatedEncryptedMetadata(rawValue: UInt32(n)),
        timestamp: date, rssi: rssi, calibrationConfidence: n % 2 == 0 ? .high : .medium)
}

/// Writes a valid SQLite database with what `sql` creates (not a store unless `sql` makes one) and returns its path.
func makeDatabaseFile(_ name: String, in directory: TemporaryDirectory, _ sql: String) throws -> String {
    let path = directory.path(name)
    let queue = try DatabaseQueue(path: path)
    try queue.write { db in try db.execute(sql: sql) }
    try queue.close()
    return path
}

/// The table `nextMigration` creates.
let nextMigrationTable = "next_feature"

/// A migration a later build could add after this build's: a column in an existing table and a new table.
let nextMigration: (identifier: String, migrate: @Sendable (Database) throws -> Void) = (
    "v2-next",
    { db in
        try db.execute(
            sql: """
                ALTER TABLE manager_state ADD COLUMN next_setting INTEGER;
                CREATE TABLE \(nextMigrationTable) (id INTEGER PRIMARY KEY, value BLOB NOT NULL);
                """)
    }
)

/// A later build's migrations: this build's, then `nextMigration`.
let laterMigrations = FrameworkSchema.migrations + [nextMigration]

/// Writes a store as a later build would (its schema records `nextMigration`) and returns its path.
func makeLaterStore(_ name: String, in directory: TemporaryDirectory) throws -> String {
    let path = directory.path(name)
    try ENDeviceStore(
        path: path, configuration: TestClock(referenceDate).configuration(), migrations: laterMigrations
    ).close()
    return path
}

/// A V1-like detection result for tests: an exposure an app keeps.
struct SampleExposure: Codable, Hashable, Sendable {
    var date: Date
    var duration: TimeInterval
}

/// A V2-like detection result for tests.
struct SampleSummary: Codable, Hashable, Sendable {
    var matchedKeyCount: Int
    var maximumScore: Double
}

/// Expects `body` to throw an ``ENError`` with `code`, and returns it.
@discardableResult
func expectCode(
    _ code: ENError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) -> ENError? {
    let error = #expect(throws: ENError.self, sourceLocation: sourceLocation) { try body() }
    #expect(error?.code == code, "\(String(describing: error))", sourceLocation: sourceLocation)
    return error
}

/// Expects `body` to throw an ``ENError`` with `code`.
func expectCodeAsync(
    _ code: ENError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
) async {
    let error = await #expect(throws: ENError.self, sourceLocation: sourceLocation) { try await body() }
    #expect(error?.code == code, "\(String(describing: error))", sourceLocation: sourceLocation)
}
