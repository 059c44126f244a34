import ENCore
import ENKeyServer
import ENKeyServerSQLite
import ENTestSupport
import Foundation
import Testing

@testable import ENSimulator

/// The health authority that closes an in-process run's key server: its certified requests pass Google's publish
/// API with its certificate key trusted, and nothing passes without them.
@Suite("ENSimulator: the health authority and the closed key server")
struct SimulationHealthAuthorityTests {
    /// The run's moment: noon on a day in 2020, as the scenarios' clocks are.
    static let now = Date(timeIntervalSince1970: 1_590_000_000)

    /// Keys of the three days before `now`, stamped as the simulator stamps them (transmission risk 4).
    static func keys() -> [ENTemporaryExposureKey] {
        let today = ENIntervalNumber(date: now).rollingStart
        return (1...3).map { TestKeys.fresh(start: today.adding(-144 * $0), transmissionRiskLevel: 4) }
    }

    /// The publish API as the in-process key server builds it, on a fresh store.
    static func handler(_ authority: SimulationHealthAuthority) throws -> (ENPublishHandler, ENKeyServerSQLiteStore) {
        let store = try ENKeyServerSQLiteStore(clock: { now })
        let configuration = ENPublishConfiguration(
            authorizedApps: authority.authorizedApps, revisionTokenKeys: authority.revisionTokenKeys,
            defaultRegion: "US")
        return (ENPublishHandler(storage: store, configuration: configuration, clock: { now }), store)
    }

    @Test("a certified request is accepted; without its certificate, or with other keys, 401")
    func closed() async throws {
        let authority = try await SimulationHealthAuthority(clock: { Self.now })
        let (handler, _) = try Self.handler(authority)
        let onset = ENIntervalNumber(date: Self.now).rollingStart / ENIntervalNumberPerDay - 2
        let request = try await authority.certifiedRequest(for: Self.keys(), symptomOnsetDay: onset)
        #expect(request.healthAuthorityID == SimulationHealthAuthority.healthAuthorityID)

        var uncertified = request
        uncertified.verificationPayload = ""
        let refused = await handler.publish(uncertified)
        #expect(refused.status == 401, "\(refused.response)")

        var otherKeys = try await authority.certifiedRequest(for: Self.keys(), symptomOnsetDay: onset)
        otherKeys.temporaryExposureKeys = request.temporaryExposureKeys
        let forged = await handler.publish(otherKeys)
        #expect(forged.status == 401, "\(forged.response)")

        let accepted = await handler.publish(request)
        #expect(accepted.status == 200, "\(accepted.response)")
        #expect(accepted.response.insertedExposures == 3)
    }

    @Test("a symptom date older than the verification server allows is refused there, naming the step")
    func refusedIssue() async throws {
        let authority = try await SimulationHealthAuthority(clock: { Self.now })
        let onset = ENIntervalNumber(date: Self.now).rollingStart / ENIntervalNumberPerDay - 60
        do {
            _ = try await authority.certifiedRequest(for: Self.keys(), symptomOnsetDay: onset)
            Issue.record("a 60-day-old symptom date was certified")
        } catch {
            #expect(error.code == .notAuthorized && error.reason.contains("issue"), "\(error)")
        }
    }
}
