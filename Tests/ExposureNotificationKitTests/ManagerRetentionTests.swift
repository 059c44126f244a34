import ENCore
import ENSimulator
import ENStore
import ENTestSupport
import ExposureNotificationKit
import ExposureNotificationKitTesting
import Foundation
import Testing

@Suite("ENManager while it runs: keys from the moment it is enabled, and retention without reopening")
struct ManagerRetentionTests {
    /// The framework's store file of a manager on `directory`, opened beside it without retention on open, so that
    /// the test sees the rows as they are on disk.
    func rawStore(_ directory: TemporaryDirectory) throws -> ENDeviceStore {
        try ENDeviceStore(
            path: directory.path("ExposureNotificationFramework.sqlite"),
            configuration: ENStoreConfiguration(deletesExpiredRecordsOnOpen: false))
    }

    @Test("a manager enabled a minute ago with a silent radio releases today's key on version 2, not on version 1")
    func sameDayKeyWithSilentRadio() async throws {
        for version in [ENAPIVersion.version2, .version1] {
            let fixture = Fixture()
            var environment = fixture.environment(apiVersion: version)
            environment.radio = ENSilentRadio()
            let manager = ENManager(environment: environment)
            manager.dispatchQueue = DispatchQueue(label: "test handlers")
            try await manager.activate()
            try await manager.setExposureNotificationEnabled(true)
            fixture.clock.advance(by: 60)
            let keys = try await manager.getDiagnosisKeys()
            let today = ENIntervalNumber(date: testStart).rollingStart
            if version == .version2 {
                #expect(keys.count == 1)
                #expect(keys.first?.rollingStartNumber == today)
                #expect(keys.first.map { $0.rollingEndNumber <= ENIntervalNumber(date: fixture.clock.now) } == true)
            } else {
                #expect(keys.isEmpty, "version 1 withholds today's key")
            }
            manager.invalidate()
        }
    }

    @Test("a new day's key is made by the periodic run while enabled, without a radio asking")
    func newDayKeyFromPeriodicRun() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let fixture = Fixture()
        let manager = try await fixture.enabledManager(storeLocation: .directory(directory.url))
        fixture.clock.advance(by: 86_400)
        #expect(fixture.scheduler.fire() == 1)
        let starts = try await rawStore(directory).read(.ownKeys).map(\.rollingStartNumber)
        let day = ENIntervalNumber(date: testStart).rollingStart
        #expect(starts == [day, day.adding(144)])
        manager.invalidate()
    }

    @Test("a manager whose clock moves 20 days without reopening holds nothing older than 14 days on disk")
    func retentionWhileRunning() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let fixture = Fixture()
        let manager = try await fixture.enabledManager(storeLocation: .directory(directory.url))
        let raw = try rawStore(directory)
        try await raw.write(
            .addSightings([
                ENSighting(
                    rpi: RollingProximityIdentifier(lowWord: 1, highWord: 2),
                    aem: AssociatedEncryptedMetadata(rawValue: 3),
                    timestamp: fixture.clock.now, rssi: -60)
            ]))
        #expect(try await raw.read(.recordCounts).sightings == 1)
        #expect(try await raw.read(.recordCounts).ownKeys == 1)

        for _ in 0..<20 {
            fixture.clock.advance(by: 86_400)
            fixture.scheduler.fire()
        }
        let cutoff = ENIntervalNumber(date: fixture.clock.now.addingTimeInterval(-14 * 86_400))
        let keys = try await raw.read(.ownKeys)
        #expect(!keys.isEmpty)
        #expect(keys.allSatisfy { $0.rollingEndNumber > cutoff }, "no key ended more than 14 days ago stays stored")
        #expect(keys.count <= 15)
        #expect(try await raw.read(.recordCounts).sightings == 0, "the 20-day-old sighting is deleted from the file")
        manager.invalidate()
    }

    @Test("a disabled manager left open deletes expired rows at its periodic runs too")
    func retentionWhileDisabled() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let fixture = Fixture()
        let manager = try await fixture.enabledManager(storeLocation: .directory(directory.url))
        try await manager.setExposureNotificationEnabled(false)
        #expect(try await rawStore(directory).read(.recordCounts).ownKeys == 1)
        fixture.clock.advance(by: 20 * 86_400)
        #expect(fixture.scheduler.fire() == 1)
        #expect(try await rawStore(directory).read(.recordCounts).ownKeys == 0)
        manager.invalidate()
    }

    @Test("before a release, expired rows are deleted even when no periodic run came")
    func retentionBeforeRelease() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let fixture = Fixture()
        let manager = try await fixture.enabledManager(storeLocation: .directory(directory.url))
        fixture.clock.advance(by: 20 * 86_400)
        _ = try await manager.getDiagnosisKeys()
        let cutoff = ENIntervalNumber(date: fixture.clock.now.addingTimeInterval(-14 * 86_400))
        #expect(try await rawStore(directory).read(.ownKeys).allSatisfy { $0.rollingEndNumber > cutoff })
        manager.invalidate()
    }
}
