import ENCore
import ENEvaluation
import ENRiskV2
import Foundation
import Testing

/// The worked examples of the configuration-evaluation reference (§4.1, §4.3), Apple platform, computed by hand
/// there and checked here against the package's scoring.
@Suite("Worked examples")
struct WorkedExampleTests {
    let request = ENEvaluationRequest(now: EvaluationTestData.now)

    @Test("hist-17-minutes, Immuni: attenuation value 5 × duration level 5 = 25, notified")
    func immuni() throws {
        let encounter = try #require(try EvaluationTestData.exampleEncounters()["hist-17-minutes"])
        let decision = try ENEvaluator.decide(
            encounter, configuration: try EvaluationTestData.configuration("immuni-2020-06-22.v1"), request: request)
        #expect(decision.value == 25)
        #expect(decision.notified)
        #expect(decision.determinate)
        #expect(!decision.contact)  // 2.5 m
    }

    @Test("hist-straddle, CWA June 2020: 30/25 × (13 + 3 × 0.5) = 17.4, notified")
    func cwaVersion1() throws {
        let encounter = try #require(try EvaluationTestData.exampleEncounters()["hist-straddle"])
        let decision = try ENEvaluator.decide(
            encounter, configuration: try EvaluationTestData.configuration("cwa-2020-06-22.v1"), request: request)
        #expect(abs(decision.value - 17.4) < 1e-9)
        #expect(decision.notified)
        #expect(decision.contact)
    }

    @Test("hist-straddle, SwissCovid 50/55 at 8 min: even 8.5 notified; lowest 10.5 and highest 6.5 disagree")
    func straddle() throws {
        let encounter = try #require(try EvaluationTestData.exampleEncounters()["hist-straddle"])
        var configuration = try EvaluationTestData.configuration("swisscovid-2020-06-25.v1")
        configuration.rule = .weightedAttenuationDurations(bucketWeights: [1, 0.5, 0], notifyIfAtLeastMinutes: 8)
        let decision = try ENEvaluator.decide(encounter, configuration: configuration, request: request)
        #expect(decision.value == 8.5)
        #expect(decision.notified)
        #expect(!decision.determinate)
        #expect(decision.notifiedInSomePlacement && !decision.notifiedInEveryPlacement)
        // At the published 15 minutes every placement stays below: determinate, not notified.
        let launch = try ENEvaluator.decide(
            encounter, configuration: try EvaluationTestData.configuration("swisscovid-2020-06-25.v1"),
            request: request)
        #expect(launch.determinate && !launch.notified)
    }

    @Test("windows-day-rounding, CWA 2.0 on Apple: 0.8 × 7 min × 1.6 = 8.96, LOW, not notified")
    func cwaDayRounding() throws {
        let encounter = try #require(try EvaluationTestData.exampleEncounters()["windows-day-rounding"])
        let decision = try ENEvaluator.decide(
            encounter, configuration: try EvaluationTestData.configuration("cwa-2021-04-15.exposure-windows"),
            request: request)
        #expect(abs(decision.value - 8.96) < 1e-9)
        #expect(!decision.notified)
        #expect(!decision.contact)  // 1 m, but 420 s < 15 min
    }

    @Test("V2 on scanInstances scores exactly as ENScoringV2 on the same windows")
    func oneImplementation() throws {
        let encounter = try #require(try EvaluationTestData.exampleEncounters()["windows-1"])
        let configuration = try EvaluationTestData.configuration("lfph-wide-net-2021-12.v2")
        guard case .exposureWindows(let observed) = encounter.observation else {
            Issue.record("not windows")
            return
        }
        let windows = observed.map {
            ENExposureWindow(
                calibrationConfidence: $0.calibrationConfidence, date: $0.date,
                diagnosisReportType: $0.reportType!, infectiousness: $0.infectiousness!,
                scanInstances: $0.scanInstances)
        }
        let days = ENScoringV2.daySummaries(
            for: windows, configuration: configuration.framework, now: EvaluationTestData.now)
        let decision = try ENEvaluator.decide(encounter, configuration: configuration, request: request)
        #expect(days.count == 1)
        #expect(decision.value == days.map(\.daySummary.scoreSum).max())
        #expect(decision.value > 0)
    }

    @Test("sightings become windows through the package's scan and window rules")
    func sightings() throws {
        let encounter = try #require(try EvaluationTestData.exampleEncounters()["sightings-1"])
        guard case .exposureWindows(let windows) = encounter.observation else {
            Issue.record("not windows")
            return
        }
        // txPower -20, correction 5: RSSI -61 ... becomes attenuation 36 ...; scans 4 minutes apart.
        #expect(windows.count == 1)
        #expect(
            windows.first?.scanInstances == [
                ENScanInstance(minimumAttenuation: 30, typicalAttenuation: 36, secondsSinceLastScan: 120),
                ENScanInstance(minimumAttenuation: 34, typicalAttenuation: 37, secondsSinceLastScan: 240),
            ])
        #expect(windows.first?.date == ISO8601DateFormatter().date(from: "2021-03-02T00:00:00Z"))
    }
}
