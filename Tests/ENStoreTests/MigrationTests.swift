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

    /// What `make-fixtures.py` put in the app's tables of schemas v1 and v2.
    var fixtureAppData: ENLegacyAppData {
        ENLegacyAppData(
            isOnboarded: true,
            detectionState: ENDetectionState(
                nextKeyFileIndex: 3, lastDetectionDate: referenceDate.addingTimeInterval(60)),
            testResults: [
                ENTestResult(
                    id: UUID(uuidString: "6F1C2E4A-0B7D-4C4B-9C55-0A4C7C2D9E10")!, isAdded: true,
                    dateAdministered: referenceDate.addingTimeInterval(-86_400), isShared: true)
            ],
            exposures: [
                ENExposureRecord(
                    date: referenceDate.addingTimeInterval(-3 * 86_400), duration: 900, totalRiskScore: 42,
                    transmissionRiskLevel: 5)
            ])
    }

    /// The framework records of the fixtures must survive every migration unchanged, except the cached
    /// diagnosis keys, which v4 drops (a cache, replaced by cached key files).
    func expectFrameworkRecordsIntact(_ store: ENStore, managerState: ENManagerState = ENManagerState()) throws {
        #expect(
            try store.read(.ownKeys) == [
                ENTemporaryExposureKey(keyData: Data(repeating: 0x11, count: 16), rollingStartNumber: dayStart)
            ])
        let sighting = ENSighting(
            rpi: try RollingProximityIdentifier(bytes: Array(0..<16)),
            aem: try AssociatedEncryptedMetadata(hexString: "a0a1a2a3"),
            timestamp: referenceDate.addingTimeInterval(12.5), rssi: -60, calibrationConfidence: .high)
        #expect(try store.read(.sightings(from: .distantPast)) == [sighting])
        let detection = try #require(try store.read(.latestDetection(as: SampleSummary.self)))
        #expect(
            detection
                == ENStoredDetection(
                    id: 1, date: referenceDate.addingTimeInterval(60), kind: "v2",
                    result: SampleSummary(matchedKeyCount: 1, maximumScore: 1_800)))
        #expect(try store.read(.unprocessedKeyFileHashes([Data(repeating: 0xAB, count: 32)])).isEmpty)
        #expect(try store.read(.cachedKeyFileHashes).isEmpty)
        #expect(try store.read(.recordCounts).cachedKeyFiles == 0)
        // v2 seeded the rate-limit ledger from the detections v1 recorded (once).
        #expect(try store.read(.rateLimitLedger(since: .distantPast)) == [referenceDate.addingTimeInterval(60)])
        // v3's manager state starts at Apple's defaults (a v3 file keeps the one it had).
        #expect(try store.read(.managerState) == managerState)
    }

    /// A file migrated to the current schema has `cached_key_files` and `key_file_contents`, no `cached_keys`
    /// (the fixture's cached key is gone with it), and caches key files like a new store.
    func expectCurrentSchemaCachedKeyFiles(_ path: String, _ store: ENStore) throws {
        let tables = Set(try tableNames(path))
        #expect(tables.isSuperset(of: ["cached_key_files", "key_file_contents"]))
        #expect(!tables.contains("cached_keys"))
        #expect(
            try rows(path, "SELECT identifier FROM grdb_migrations").map { $0[0] as String } == [
                "v1", "v2", "v3", "v4", "v5",
            ])
        let file = ENCachedKeyFile(hash: Data(repeating: 0x5C, count: 32), exportBinary: Data("EK Export v1    ".utf8))
        let before = try store.read(.cachedKeyFileHashes)
        try store.write(
            .recordDetection(
                ENDetectionRecord(
                    date: referenceDate, kind: "v2", result: 0, cachedKeyFiles: [file], countsTowardRateLimit: false)))
        #expect(try store.read(.cachedKeyFileHashes) == before + [file.hash])
        #expect(try store.read(.cachedKeyFile(file.hash)) == Data("EK Export v1    ".utf8))
    }

    /// `Fixtures/store-v1.sqlite` was written by schema v1 (see `Scripts/make-store-fixtures.py`); opening it
    /// migrates to v4.
    /// The app's tables hold data, so v3 keeps them as legacy tables; the key server's (created empty by v2)
    /// are dropped. The app data is imported into an app store once, then deleted.
    @Test func aSchemaV1FileOpensWithEveryRecordIntactAndItsAppDataImportable() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = try copyFixture("store-v1.sqlite", to: directory)
        let clock = TestClock(referenceDate.addingTimeInterval(3_600))
        let store = try ENStore(path: path, configuration: clock.configuration())
        try store.checkIntegrity()
        try expectFrameworkRecordsIntact(store)
        let tables = Set(try tableNames(path))
        #expect(tables.isSuperset(of: ["legacy_state", "legacy_test_results", "legacy_exposures"]))
        #expect(
            tables.isDisjoint(with: [
                "state", "test_results", "exposures", "server_keys", "server_batches", "legacy_server_keys",
                "legacy_server_batches",
            ]))

        let legacy = try #require(try store.read(.legacyAppData))
        #expect(legacy == fixtureAppData)
        let appStore = try ENAppStore(path: directory.path("app.sqlite"))
        #expect(try appStore.write(.importLegacyData(legacy)))
        #expect(try appStore.read(.isOnboarded))
        #expect(try appStore.read(.detectionState) == fixtureAppData.detectionState)
        #expect(try appStore.read(.testResults) == fixtureAppData.testResults)
        #expect(try appStore.read(.exposures) == fixtureAppData.exposures)
        // Importing again (say, after a crash before the legacy data was deleted) writes nothing.
        try appStore.write(.setOnboarded(false))
        #expect(try appStore.write(.importLegacyData(legacy)) == false)
        #expect(try appStore.read(.isOnboarded) == false)

        #expect(try store.write(.deleteLegacyData))
        #expect(try store.read(.legacyAppData) == nil)
        #expect(try store.write(.deleteLegacyData) == false)
        #expect(try tableNames(path).filter { $0.hasPrefix("legacy_") }.isEmpty)

        // Opening again is a no-op migration.
        try store.close()
        let again = try ENStore(path: path, configuration: clock.configuration())
        try expectFrameworkRecordsIntact(again)
        try expectCurrentSchemaCachedKeyFiles(path, again)
    }

    /// `Fixtures/store-v2.sqlite` was written by schemas v1 and v2: v3 keeps its key-server rows, untouched, in
    /// legacy tables until they are deleted; v4 replaces its cached keys by cached key files.
    @Test func aSchemaV2FileKeepsItsKeyServerRowsUntouchedUntilDeleted() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = try copyFixture("store-v2.sqlite", to: directory)
        let original = try Fixtures.url("store/store-v2.sqlite").path
        let keysSQL = "SELECT * FROM %@ ORDER BY id"
        let batchesSQL = "SELECT * FROM %@ ORDER BY batch_index"
        let originalKeys = try rows(original, String(format: keysSQL, "server_keys"))
        let originalBatches = try rows(original, String(format: batchesSQL, "server_batches"))
        #expect(originalKeys.count == 2)
        #expect(originalBatches.count == 1)

        let store = try ENStore(path: path, configuration: TestClock(referenceDate).configuration())
        try store.checkIntegrity()
        try expectFrameworkRecordsIntact(store)
        #expect(try store.read(.legacyAppData) == fixtureAppData)
        #expect(try rows(path, String(format: keysSQL, "legacy_server_keys")) == originalKeys)
        #expect(try rows(path, String(format: batchesSQL, "legacy_server_batches")) == originalBatches)

        #expect(try store.write(.deleteLegacyData))
        #expect(try tableNames(path).filter { $0.hasPrefix("legacy_") }.isEmpty)
        try expectFrameworkRecordsIntact(store)
        try expectCurrentSchemaCachedKeyFiles(path, store)
    }

    /// `Fixtures/store-v3.sqlite` is the v2 file after schema v3 (every legacy table kept, a manager state set):
    /// v4 drops its cached keys, adds cached key files, and leaves everything else as it was.
    @Test func aSchemaV3FileMigratesToCachedKeyFilesWithEverythingElseIntact() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = try copyFixture("store-v3.sqlite", to: directory)
        let original = try Fixtures.url("store/store-v3.sqlite").path
        #expect(try tableNames(original).contains("cached_keys"))
        let legacyTables = [
            "legacy_state", "legacy_test_results", "legacy_exposures", "legacy_server_keys", "legacy_server_batches",
        ]
        let originalLegacyRows = try legacyTables.map { table in try rows(original, "SELECT * FROM \(table)") }

        let store = try ENStore(path: path, configuration: TestClock(referenceDate).configuration())
        try store.checkIntegrity()
        let managerState = ENManagerState(
            exposureNotificationEnabled: true, authorizationStatus: .authorized,
            preAuthorization: ENPreAuthorization(authorizedAt: referenceDate.addingTimeInterval(30)))
        try expectFrameworkRecordsIntact(store, managerState: managerState)
        #expect(try store.read(.legacyAppData) == fixtureAppData)
        #expect(try legacyTables.map { table in try rows(path, "SELECT * FROM \(table)") } == originalLegacyRows)
        try expectCurrentSchemaCachedKeyFiles(path, store)
    }

    /// `Fixtures/store-v4.sqlite` is the v3 file after schema v4, with one cached key file: v5 moves its
    /// `export.bin` to `key_file_contents` and keeps its identifier, hash and date.
    @Test func aSchemaV4FileKeepsItsCachedKeyFiles() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = try copyFixture("store-v4.sqlite", to: directory)
        let original = try Fixtures.url("store/store-v4.sqlite").path
        let cached = try rows(original, "SELECT id, hash, export_binary, cached_at FROM cached_key_files")
        #expect(cached.count == 1)
        let hash: Data = cached[0][1]
        let exportBinary: Data = cached[0][2]

        let store = try ENStore(path: path, configuration: TestClock(referenceDate).configuration())
        try store.checkIntegrity()
        #expect(try store.read(.cachedKeyFileHashes) == [hash])
        #expect(try store.read(.cachedKeyFile(hash)) == exportBinary)
        #expect(try store.read(.recordCounts).cachedKeyFiles == 1)
        func describe(_ row: Row, _ columns: [Int]) -> String {
            "\(row[columns[0]] as Int64) \((row[columns[1]] as Data).base64EncodedString()) \(row[columns[2]] as Double)"
        }
        #expect(
            try rows(path, "SELECT id, hash, cached_at FROM cached_key_files").map { describe($0, [0, 1, 2]) }
                == cached.map { describe($0, [0, 1, 3]) })
        #expect(try store.read(.managerState).exposureNotificationEnabled)
        try expectCurrentSchemaCachedKeyFiles(path, store)
    }

    @Test func eraseAllDeletesLegacyTablesToo() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = try copyFixture("store-v2.sqlite", to: directory)
        let store = try ENStore(path: path, configuration: TestClock(referenceDate).configuration())
        try store.write(.eraseAll)
        #expect(try store.read(.legacyAppData) == nil)
        try store.close()
        #expect(try tableNames(path).filter { $0.hasPrefix("legacy_") }.isEmpty)
        #expect(try !fileContains(path, Data("6F1C2E4A-0B7D-4C4B-9C55-0A4C7C2D9E10".utf8)))
    }

    /// The three stores share no table: a new framework store has the framework's tables only, an app store
    /// the app's only.
    @Test func newFilesHoldOnlyTheirOwnTables() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let storePath = directory.path("store.sqlite")
        let appPath = directory.path("app.sqlite")
        try ENStore(path: storePath).close()
        try ENAppStore(path: appPath).close()
        #expect(
            Set(try tableNames(storePath)) == [
                "grdb_migrations", "store_metadata", "own_keys", "sightings", "detections", "processed_key_files",
                "cached_key_files", "key_file_contents", "detection_ledger", "manager_state",
            ])
        #expect(Set(try tableNames(appPath)) == ["grdb_migrations", "app_state", "test_results", "exposures"])
        #expect(try ENStore(inMemoryWith: ENStoreConfiguration()).read(.legacyAppData) == nil)
    }

    /// A file store keeps its cached key files' `export.bin` as files beside the database (SQLite would write each
    /// twice, page by page), and the database keeps SQLite's 4 KiB pages, which suit its small writes. A store
    /// migrated from a schema that kept them in the database reads those from there until they expire.
    @Test func cachedKeyFilesLiveBesideTheDatabaseAndOldOnesInIt() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        func pageSize(_ path: String) throws -> Int { try rows(path, "PRAGMA page_size")[0][0] as Int }
        let clock = TestClock(referenceDate)
        let migrated = try copyFixture("store-v4.sqlite", to: directory)
        let store = try ENStore(path: migrated, configuration: clock.configuration())
        #expect(store.cachedKeyFilesDirectory == migrated + "-keyfiles")
        #expect(try ENStore(inMemoryWith: clock.configuration()).cachedKeyFilesDirectory == nil)
        let old = try #require(try await store.read(.cachedKeyFileHashes).first)
        let oldBinary = try #require(try await store.read(.cachedKeyFile(old)))
        #expect(try storedContents(migrated) == 1)
        #expect(!FileManager.default.fileExists(atPath: migrated + "-keyfiles"))

        // A new file goes beside the database, as its export.bin byte for byte (this store has no cipher).
        let binary = try Fixtures.data("export/generated/bare-export.bin")
        let hash = SHA256.hash(binary)
        try await store.write(
            .recordDetection(
                ENDetectionRecord(
                    date: clock.now, kind: "v2", result: 1,
                    cachedKeyFiles: [ENCachedKeyFile(hash: hash, exportBinary: binary)])))
        let file = migrated + "-keyfiles/" + hash.hexString
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == binary)
        #expect(try rows(migrated, "SELECT COUNT(*) FROM key_file_contents")[0][0] as Int == 1)
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
        #expect(try storedContents(migrated) == 0)
        try await store.write(
            .recordDetection(
                ENDetectionRecord(
                    date: clock.now, kind: "v2", result: 2,
                    cachedKeyFiles: [ENCachedKeyFile(hash: hash, exportBinary: binary)])))
        #expect(try storedContents(migrated) == 1)
        try await store.write(.eraseAll)
        #expect(try storedContents(migrated) == 0)
        try store.close()

        // New stores, framework and app, have SQLite's 4 KiB pages.
        let storePath = directory.path("store.sqlite")
        let appPath = directory.path("app.sqlite")
        try ENStore(path: storePath).close()
        try ENAppStore(path: appPath).close()
        #expect(try pageSize(storePath) == 4_096)
        #expect(try pageSize(appPath) == 4_096)
    }

    /// Contents written by a detection whose transaction then fails are not data: the next sweep deletes them.
    @Test func contentsOfAFailedRecordAreSwept() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("store.sqlite")
        let store = try ENStore(path: path, configuration: TestClock(referenceDate).configuration())
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

    @Test func legacyDataIsImportedOnlyIntoAnEmptyAppStore() throws {
        let appStore = try ENAppStore()
        let own = ENTestResult(dateAdministered: referenceDate)
        try appStore.write(.saveTestResult(own))
        expectCode(.apiMisuse) { _ = try appStore.write(.importLegacyData(fixtureAppData)) }
        #expect(try appStore.read(.testResults) == [own])
        #expect(try appStore.read(.isOnboarded) == false)

        let fresh = try ENAppStore()
        var bad = fixtureAppData
        bad.detectionState.nextKeyFileIndex = -1
        expectCode(.badParameter) { _ = try fresh.write(.importLegacyData(bad)) }
        #expect(try fresh.read(.testResults).isEmpty)
        // Still importable after the refusal: nothing was marked.
        #expect(try fresh.write(.importLegacyData(fixtureAppData)))
    }
}

@Suite("Interrupted first open")
struct InterruptedFirstOpenTests {
    /// Found by the crash test under ThreadSanitizer: a process killed during its very first open can leave
    /// a file with only GRDB's migrations table. That is a new store, not a foreign database.
    @Test func aFileWithOnlyTheMigrationsTableOpensAsANewStore() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = try copyFixture("interrupted.sqlite", to: directory)
        let store = try ENStore(path: path, configuration: TestClock(referenceDate).configuration())
        try store.checkIntegrity()
        try store.write(.addSightings([makeSighting(1, at: referenceDate)]))
        #expect(try store.read(.recordCounts).sightings == 1)

        let appDirectory = try TemporaryDirectory()
        defer { appDirectory.cleanUp() }
        let appPath = try copyFixture("interrupted.sqlite", to: appDirectory)
        let appStore = try ENAppStore(path: appPath)
        try appStore.checkIntegrity()
        try appStore.write(.setOnboarded(true))
        #expect(try appStore.read(.isOnboarded))
    }
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
