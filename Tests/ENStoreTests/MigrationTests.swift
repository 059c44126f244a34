import ENCore
import ENCrypto
import ENStore
import ENTestSupport
import Foundation
import GRDB
import Testing

@Suite("Schema migration")
struct MigrationTests {
    let dayStart: ENIntervalNumber = 2_963_808

    /// Writes one record of each kind to `store`.
    func fill(_ store: ENDeviceStore) throws {
        try store.write(
            .saveOwnKey(ENTemporaryExposureKey(keyData: Data(repeating: 0x11, count: 16), rollingStartNumber: dayStart))
        )
        try store.write(.addSightings([makeSighting(1, at: referenceDate)]))
        try store.write(
            .recordDetection(
                ENDetectionRecord(
                    date: referenceDate.addingTimeInterval(60), kind: "v2",
                    result: SampleSummary(matchedKeyCount: 1, maximumScore: 1_800),
                    processedKeyFileHashes: [Data(repeating: 0xAB, count: 32)],
                    cachedKeyFiles: [
                        ENCachedKeyFile(
                            hash: Data(repeating: 0x5C, count: 32), exportBinary: Data("EK Export v1    ".utf8))
                    ])))
        try store.write(.setExposureNotificationEnabled(true))
    }

    /// The records `fill(_:)` wrote are all there, unchanged.
    func expectFilled(_ store: ENDeviceStore) throws {
        #expect(
            try store.read(.ownKeys) == [
                ENTemporaryExposureKey(keyData: Data(repeating: 0x11, count: 16), rollingStartNumber: dayStart)
            ])
        #expect(try store.read(.sightings(from: .distantPast)) == [makeSighting(1, at: referenceDate)])
        let detection = try #require(try store.read(.latestDetection(as: SampleSummary.self)))
        #expect(detection.result == SampleSummary(matchedKeyCount: 1, maximumScore: 1_800))
        #expect(try store.read(.unprocessedKeyFileHashes([Data(repeating: 0xAB, count: 32)])).isEmpty)
        #expect(try store.read(.cachedKeyFile(Data(repeating: 0x5C, count: 32))) == Data("EK Export v1    ".utf8))
        #expect(try store.read(.rateLimitLedger(since: .distantPast)) == [referenceDate.addingTimeInterval(60)])
        #expect(try store.read(.managerState).exposureNotificationEnabled)
    }

    /// A file this build wrote, opened by a later build whose schema adds a migration, is filePath: the new
    /// migration runs once, every record stays. This build then refuses the filePath file, untouched.
    @Test func aLaterMigrationRunsOverAFileOfThisSchemaAndThisBuildRefusesTheResult() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("store.sqlite")
        let clock = TestClock(referenceDate.addingTimeInterval(3_600))
        let store = try ENDeviceStore(path: path, configuration: clock.configuration())
        try fill(store)
        try store.close()
        #expect(try migrationIdentifiers(path) == FrameworkSchema.migrations.map(\.identifier))

        let later = try ENDeviceStore(path: path, configuration: clock.configuration(), migrations: laterMigrations)
        try later.checkIntegrity()
        try expectFilled(later)
        #expect(try migrationIdentifiers(path) == laterMigrations.map(\.identifier))
        #expect(try tableNames(path).contains(nextMigrationTable))
        try later.close()
        // Opening again runs nothing more.
        let again = try ENDeviceStore(path: path, configuration: clock.configuration(), migrations: laterMigrations)
        try expectFilled(again)
        #expect(try migrationIdentifiers(path) == laterMigrations.map(\.identifier))
        try again.close()

        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let error = expectCode(.unsupported) { _ = try ENDeviceStore(path: path, configuration: clock.configuration()) }
        #expect(error?.reason.contains(nextMigration.identifier) == true, "\(String(describing: error))")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    /// A new file has the framework's tables only.
    @Test func aNewFileHoldsOnlyTheFrameworksTables() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storePath = directory.path("store.sqlite")
        try ENDeviceStore(path: storePath).close()
        #expect(
            Set(try tableNames(storePath)) == [
                "grdb_migrations", "store_metadata", "own_keys", "sightings", "detections", "processed_key_files",
                "cached_key_files", "key_file_contents", "detection_ledger", "manager_state",
            ])
        #expect(try migrationIdentifiers(storePath) == ["v1"])
    }

    /// A file store keeps its cached key files' `export.bin` as files beside the database (SQLite would write each
    /// twice, page by page), and the database keeps SQLite's 4 KiB pages, which suit its small writes. The
    /// contents its table holds are read from there until they expire.
    @Test func cachedKeyFilesLiveBesideTheDatabaseAndOldOnesInIt() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        func pageSize(_ path: String) throws -> Int { try rows(path, "PRAGMA page_size")[0][0] as Int }
        let clock = TestClock(referenceDate)
        // A file whose table holds a cached file's `export.bin`, as an in-memory store keeps them.
        let filePath = directory.path("with-contents.sqlite")
        try ENDeviceStore(path: filePath, configuration: clock.configuration()).close()
        let queue = try DatabaseQueue(path: filePath)
        try await queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO key_file_contents (hash, export_binary) VALUES (?, ?);
                    INSERT INTO cached_key_files (hash, cached_at) VALUES (?, ?);
                    """,
                arguments: [
                    Data(repeating: 0x5D, count: 32), Data("EK Export v1    ".utf8), Data(repeating: 0x5D, count: 32),
                    referenceDate.timeIntervalSinceReferenceDate,
                ])
        }
        try queue.close()
        let store = try ENDeviceStore(path: filePath, configuration: clock.configuration())
        #expect(store.cachedKeyFilesDirectory == filePath + "-keyfiles")
        #expect(try ENDeviceStore(inMemoryWith: clock.configuration()).cachedKeyFilesDirectory == nil)
        let old = try #require(try await store.read(.cachedKeyFileHashes).first)
        let oldBinary = try #require(try await store.read(.cachedKeyFile(old)))
        #expect(try storedContents(filePath) == 1)
        #expect(!FileManager.default.fileExists(atPath: filePath + "-keyfiles"))

        // A new file goes beside the database, as its export.bin byte for byte (this store has no cipher).
        let binary = try Fixtures.data("export/generated/bare-export.bin")
        let hash = SHA256.hash(binary)
        try await store.write(
            .recordDetection(
                ENDetectionRecord(
                    date: clock.now, kind: "v2", result: 1,
                    cachedKeyFiles: [ENCachedKeyFile(hash: hash, exportBinary: binary)])))
        let file = filePath + "-keyfiles/" + hash.hexString
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == binary)
        #expect(try rows(filePath, "SELECT COUNT(*) FROM key_file_contents")[0][0] as Int == 1)
        #expect(try await store.read(.cachedKeyFile(old)) == oldBinary)
        #expect(try await store.read(.cachedKeyFile(hash)) == binary)

        // A file gone from the directory is an error that names it, not a file silently skipped.
        try FileManager.default.moveItem(atPath: file, toPath: file + "-aside")
        let error = expectCode(.dataInaccessible) { _ = try store.read(.cachedKeyFile(hash)) }
        #expect(error?.reason.contains(hash.hexString) == true)
        try FileManager.default.moveItem(atPath: file + "-aside", toPath: file)

        // Retention deletes both kinds; erasing deletes the files too.
        clock.advance(by: 15 * 86_400)
        #expect(try await store.write(.deleteExpiredRecords()).cachedKeyFiles == 2)
        #expect(try storedContents(filePath) == 0)
        try await store.write(
            .recordDetection(
                ENDetectionRecord(
                    date: clock.now, kind: "v2", result: 2,
                    cachedKeyFiles: [ENCachedKeyFile(hash: hash, exportBinary: binary)])))
        #expect(try storedContents(filePath) == 1)
        try await store.write(.eraseAll)
        #expect(try storedContents(filePath) == 0)
        try store.close()

        // A new store has SQLite's 4 KiB pages.
        let storePath = directory.path("store.sqlite")
        try ENDeviceStore(path: storePath).close()
        #expect(try pageSize(storePath) == 4_096)
    }

    /// Contents written by a detection whose transaction then fails are not data: the next sweep deletes them.
    @Test func contentsOfAFailedRecordAreSwept() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("store.sqlite")
        let store = try ENDeviceStore(path: path, configuration: TestClock(referenceDate).configuration())
        let binary = try Fixtures.data("export/generated/bare-export.bin")
        let failing = ENCachedKeyFile(hash: Data(repeating: 7, count: 32)) { () throws(ENError) in
            throw ENError(.dataInaccessible, "gone")
        }
        expectCode(.dataInaccessible) {
            _ = try store.write(
                .recordDetection(
                    ENDetectionRecord(
                        date: referenceDate, kind: "v2", result: 1,
                        cachedKeyFiles: [ENCachedKeyFile(hash: SHA256.hash(binary), exportBinary: binary), failing])))
        }
        #expect(try await store.read(.recordCounts) == ENStoreRecordCounts())
        #expect(try storedContents(path) == 1)
        #expect(try await store.write(.discardStagedKeyFiles) == 1)
        #expect(try storedContents(path) == 0)
    }
}

@Suite("Interrupted first open")
struct InterruptedFirstOpenTests {
    /// Found by the crash test under ThreadSanitizer: a process killed during its very first open can leave
    /// a file with only GRDB's migrations table. That is a new store, not a foreign database.
    @Test func aFileWithOnlyTheMigrationsTableOpensAsANewStore() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = try makeDatabaseFile(
            "interrupted.sqlite", in: directory, "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
        let store = try ENDeviceStore(path: path, configuration: TestClock(referenceDate).configuration())
        try store.checkIntegrity()
        try store.write(.addSightings([makeSighting(1, at: referenceDate)]))
        #expect(try store.read(.recordCounts).sightings == 1)
    }
}

/// The migrations recorded in the file at `path`, in the order they ran.
func migrationIdentifiers(_ path: String) throws -> [String] {
    try rows(path, "SELECT identifier FROM grdb_migrations ORDER BY rowid").map { $0[0] as String }
}

/// The names of the tables in the file at `path`, read with SQLite directly.
func tableNames(_ path: String) throws -> [String] {
    try rows(path, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        .map { $0[0] as String }
}

/// The rows `sql` selects in the file at `path`, opened read-only with SQLite directly.
func rows(_ path: String, _ sql: String) throws -> [Row] {
    var configuration = Configuration()
    configuration.readonly = true
    let queue = try DatabaseQueue(path: path, configuration: configuration)
    defer { try? queue.close() }
    return try queue.read { db in try Row.fetchAll(db, sql: sql) }
}

/// How many `export.bin` the store at `path` holds, cached or staged: the files in the directory beside it and the
/// rows of its `key_file_contents` table, read without opening the store (an open deletes what is staged).
func storedContents(_ path: String) throws -> Int {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: path + "-keyfiles")) ?? []
    return try names.count(where: { !$0.hasSuffix(".tmp") })
        + (rows(path, "SELECT COUNT(*) FROM key_file_contents")[0][0] as Int)
}
