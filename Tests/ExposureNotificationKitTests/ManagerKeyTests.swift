import ENCore
import ENCrypto
import ENSimulator
import ExposureNotificationKit
import Foundation
import Testing

@Suite("ENManager: broadcasting and key release")
struct ManagerKeyTests {
    static let entitled: ENEntitlements = [.exposureNotification, .testDiagnosisKeys]

    @Test("the advertisement of every interval of a day is the key's RPI and AEM, service 0xFD6F, 20 bytes")
    func broadcastSchedule() async throws {
        let fixture = Fixture()
        let dayStart = Date(timeIntervalSince1970: 2_642_976 * 600)
        fixture.clock.set(dayStart)
        let manager = try await fixture.enabledManager(entitlements: Self.entitled)
        var identifiers = Set<RollingProximityIdentifier>()
        for interval in 0..<144 {
            let date = dayStart.addingTimeInterval(TimeInterval(interval * 600 + 37))
            let advertisement = try fixture.radio.advertisement(at: date)
            #expect(advertisement.serviceData.count == 20)
            #expect(ENAdvertisement.serviceUUID == 0xFD6F)
            identifiers.insert(advertisement.rpi)
        }
        #expect(identifiers.count == 144)
        let keys = try await manager.getTestDiagnosisKeys()
        let key = try #require(keys.first)
        #expect(keys.count == 1)
        #expect(key.rollingStartNumber == 2_642_976)
        #expect(key.rollingPeriod == 144)
        // The same identifiers, derived by ENCrypto from the key the manager releases.
        let rpik = try RollingProximityIdentifierKey(temporaryExposureKey: key)
        let aemk = try AssociatedEncryptedMetadataKey(temporaryExposureKey: key)
        let derived = try rpik.identifiers(startingAt: 2_642_976, count: 144)
        #expect(Set(derived) == identifiers)
        let noon = try fixture.radio.advertisement(at: dayStart.addingTimeInterval(12 * 3600))
        #expect(noon.rpi == derived[72])
        #expect(noon.serviceData == derived[72].data + noon.aem.data)
        let metadata = try aemk.decrypt(noon.aem, for: noon.rpi)
        #expect(metadata.majorVersion == 1)
    }

    @Test("the key rolls at the UTC day boundary")
    func dayBoundary() async throws {
        let fixture = Fixture()
        let midnight = Date(timeIntervalSince1970: 2_643_120 * 600)
        fixture.clock.set(midnight.addingTimeInterval(-60))
        let manager = try await fixture.enabledManager(entitlements: Self.entitled)
        let before = try fixture.radio.advertisement(at: midnight.addingTimeInterval(-60))
        fixture.clock.set(midnight.addingTimeInterval(60))
        let after = try fixture.radio.advertisement(at: midnight.addingTimeInterval(60))
        let keys = try await manager.getTestDiagnosisKeys()
        #expect(keys.map(\.rollingStartNumber) == [2_642_976, 2_643_120])
        let first = try RollingProximityIdentifierKey(temporaryExposureKey: keys[0])
        let second = try RollingProximityIdentifierKey(temporaryExposureKey: keys[1])
        #expect(try first.identifier(for: 2_643_119) == before.rpi)
        #expect(try second.identifier(for: 2_643_120) == after.rpi)
    }

    @Test("version 2 releases the current key shortened; what is broadcast afterwards belongs to a new key")
    func sameDayRelease() async throws {
        let fixture = Fixture()
        let manager = try await fixture.enabledManager(apiVersion: .version2, entitlements: Self.entitled)
        _ = try fixture.radio.advertisement(at: fixture.clock.now)  // 10:00, interval 2,643,036
        fixture.clock.advance(by: 1800)
        let released = try await manager.getDiagnosisKeys()
        let key = try #require(released.first)
        #expect(released.count == 1)
        #expect(key.rollingStartNumber == 2_642_976)
        #expect(key.rollingPeriod < 144)
        #expect(key.rollingStartNumber + key.rollingPeriod <= 2_643_039)
        let later = try fixture.radio.advertisement(at: fixture.clock.now.addingTimeInterval(60))
        let releasedIdentifiers = try RollingProximityIdentifierKey(temporaryExposureKey: key)
            .identifiers(startingAt: 2_642_976, count: 144)
        #expect(!releasedIdentifiers.contains(later.rpi))
        #expect(fixture.consent.prompts == ["authorize", "release"])
    }

    @Test("version 1 leaves the current key out; earlier keys of the last 14 days are released")
    func versionOneRelease() async throws {
        let fixture = Fixture()
        let manager = try await fixture.enabledManager(apiVersion: .version1)
        _ = try fixture.radio.advertisement(at: fixture.clock.now)
        #expect(try await manager.getDiagnosisKeys().isEmpty)
        for _ in 0..<16 {
            fixture.clock.advance(by: 86_400)
            _ = try fixture.radio.advertisement(at: fixture.clock.now)
        }
        let keys = try await manager.getDiagnosisKeys()
        #expect(keys.count == 14)
        let today = fixture.clock.now.enIntervalNumber
        #expect(keys.allSatisfy { $0.rollingStartNumber + $0.rollingPeriod <= today - today % 144 })
        #expect(keys.allSatisfy { $0.rollingStartNumber + 14 * 144 + 144 > today })
    }

    @Test("key release needs consent every time; test keys need the test entitlement")
    func consentAndEntitlement() async throws {
        let fixture = Fixture()
        let manager = try await fixture.enabledManager()
        fixture.consent.answers.withLock { $0.release = false }
        await #expect(throws: ENError(.notAuthorized)) { _ = try await manager.getDiagnosisKeys() }
        await #expect(throws: ENError(.notEntitled)) { _ = try await manager.getTestDiagnosisKeys() }
        fixture.consent.answers.withLock { $0.release = true }
        _ = try await manager.getDiagnosisKeys()
        #expect(fixture.consent.prompts == ["authorize", "release", "release"])
    }

    @Test("sightings the radio hears are kept through disable and enable")
    func sightingsKept() async throws {
        let fixture = Fixture()
        let manager = try await fixture.enabledManager()
        let sighting = ENSighting(
            rpi: RollingProximityIdentifier(lowWord: 1, highWord: 2), aem: AssociatedEncryptedMetadata(rawValue: 3),
            timestamp: fixture.clock.now, rssi: -60)
        fixture.radio.hear(sighting)
        try await manager.setExposureNotificationEnabled(false)
        fixture.radio.hear(sighting)  // not scanning: nothing is heard
        try await manager.setExposureNotificationEnabled(true)
        #expect(manager.exposureNotificationStatus == .active)
    }
}

@Suite("ENManager: pre-authorized key release")
struct PreAuthorizationTests {
    @Test("released once through the handler; a second request returns no keys and no error")
    func releaseOnce() async throws {
        let fixture = Fixture()
        let manager = try await fixture.enabledManager()
        let queue = DispatchQueue(label: "keys")
        manager.dispatchQueue = queue
        let deliveries = Locked<[[ENTemporaryExposureKey]]>([])
        await #expect(throws: ENError(.apiMisuse)) { try await manager.requestPreAuthorizedDiagnosisKeys() }
        manager.diagnosisKeysAvailableHandler = { keys in deliveries.withLock { $0.append(keys) } }
        await #expect(throws: ENError(.notAuthorized)) { try await manager.requestPreAuthorizedDiagnosisKeys() }
        _ = try fixture.radio.advertisement(at: fixture.clock.now)
        try await manager.preAuthorizeDiagnosisKeys()
        fixture.clock.advance(by: 3 * 86_400)
        try await manager.requestPreAuthorizedDiagnosisKeys()
        try await manager.requestPreAuthorizedDiagnosisKeys()
        queue.sync {}
        let delivered = deliveries.withLock { $0 }
        #expect(delivered.count == 1)
        // The first day's key, and the key of the day of release (made when the request came, as no periodic run
        // did it), released the same day.
        #expect(delivered.first?.count == 2)
        #expect(fixture.consent.prompts == ["authorize", "preAuthorize"])
    }

    @Test("expired after 5 days; refused pre-authorization; not enabled")
    func expiryAndRefusal() async throws {
        let fixture = Fixture()
        let manager = try await fixture.enabledManager()
        manager.diagnosisKeysAvailableHandler = { _ in }
        try await manager.preAuthorizeDiagnosisKeys()
        fixture.clock.advance(by: 5 * 86_400 + 1)
        await #expect(throws: ENError(.notAuthorized)) { try await manager.requestPreAuthorizedDiagnosisKeys() }
        fixture.consent.answers.withLock { $0.preAuthorize = false }
        await #expect(throws: ENError(.notAuthorized)) { try await manager.preAuthorizeDiagnosisKeys() }
        try await manager.setExposureNotificationEnabled(false)
        await #expect(throws: ENError(.notEnabled)) { try await manager.preAuthorizeDiagnosisKeys() }
    }
}
