import ENCore
import ENStore
import ENTestSupport
import Foundation
import Testing

@Suite("Schema migration")
struct MigrationTests {
    /// `Fixtures/store-v1.sqlite` was written by schema v1 (see `make-fixtures.py`); opening it migrates to v2.
    @Test func aSchemaV1FileOpensWithEveryRecordIntactAndTheLedgerSeeded() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = try copyFixture("store-v1.sqlite", to: directory)
        let clock = TestClock(referenceDate.addingTimeInterval(3_600))
        let store = try ENStore(path: path, configuration: clock.configuration())
        try store.checkIntegrity()

        let dayStart: ENIntervalNumber = 2_963_808
        #expect(
            try store.ownKeys() == [
                ENTemporaryExposureKey(keyData: Data(repeating: 0x11, count: 16), rollingStartNumber: dayStart)
            ])
        let sighting = ENSighting(
            rpi: try RollingProximityIdentifier(bytes: Array(0..<16)),
            aem: try AssociatedEncryptedMetadata(hexString: "a0a1a2a3"),
            timestamp: referenceDate.addingTimeInterval(12.5), rssi: -60, calibrationConfidence: .high)
        #expect(try store.sightings(from: .distantPast) == [sighting])
        #expect(
            try store.detectionState()
                == ENDetectionState(nextKeyFileIndex: 3, lastDetectionDate: referenceDate.addingTimeInterval(60)))
        let detection = try #require(try store.latestDetection(as: SampleSummary.self))
        #expect(
            detection
                == ENStoredDetection(
                    id: 1, date: referenceDate.addingTimeInterval(60), kind: "v2",
                    result: SampleSummary(matchedKeyCount: 1, maximumScore: 1_800)))
        #expect(try store.unprocessedKeyFileHashes([Data(repeating: 0xAB, count: 32)]).isEmpty)
        #expect(
            try store.cachedDiagnosisKeys() == [
                ENTemporaryExposureKey(
                    keyData: Data(repeating: 0x22, count: 16), rollingStartNumber: dayStart.adding(-144),
                    transmissionRiskLevel: 4, diagnosisReportType: .confirmedTest, daysSinceOnsetOfSymptoms: -2)
            ])
        #expect(try store.isOnboarded())
        let testID = try #require(UUID(uuidString: "6F1C2E4A-0B7D-4C4B-9C55-0A4C7C2D9E10"))
        #expect(
            try store.testResults() == [
                ENTestResult(
                    id: testID, isAdded: true, dateAdministered: referenceDate.addingTimeInterval(-86_400),
                    isShared: true)
            ])
        #expect(
            try store.exposures() == [
                ENExposureRecord(
                    date: referenceDate.addingTimeInterval(-3 * 86_400), duration: 900, totalRiskScore: 42,
                    transmissionRiskLevel: 5)
            ])

        // v2 seeded the rate-limit ledger from the detections v1 recorded.
        #expect(try store.rateLimitLedger(since: .distantPast) == [referenceDate.addingTimeInterval(60)])
        // v2's key-server tables work.
        #expect(try store.postDiagnosisKeys([makeKey(1, start: dayStart)]) == 1)
        #expect(try store.publishExportBatch()?.index == 0)

        // Opening again is a no-op migration.
        try store.close()
        let again = try ENStore(path: path, configuration: clock.configuration())
        #expect(try again.exportBatches().count == 1)
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
        try store.addSightings([makeSighting(1, at: referenceDate)])
        #expect(try store.sightingCount() == 1)
    }
}
