import ENCore
import ENEvaluation
import Foundation
import Testing

/// The worked examples of the configuration-evaluation reference (§4.1-4.3) on the Android platform, and the
/// app-side differences of Corona-Warn-App's two apps, each computed by hand.
@Suite("Android platform")
struct AndroidPlatformTests {
    let android = ENEvaluationRequest(now: EvaluationTestData.now, platform: .android)
    let apple = ENEvaluationRequest(now: EvaluationTestData.now)

    @Test("hist-17-minutes, Immuni: mean 74.5 dB → 75 → level 0, 17 min → 15 → level 0: score 0, not notified")
    func immuni() throws {
        let encounter = try #require(try EvaluationTestData.exampleEncounters()["hist-17-minutes"])
        let decision = try ENEvaluator.decide(
            encounter, configuration: try EvaluationTestData.configuration("immuni-2020-06-22.v1"), request: android)
        #expect(decision.value == 0)
        #expect(!decision.notified)
    }

    @Test("hist-straddle, CWA June 2020: 25/25 × (10.5 + 5.5 × 0.5) = 13.25, not notified (Apple 17.4)")
    func cwaVersion1() throws {
        let encounter = try #require(try EvaluationTestData.exampleEncounters()["hist-straddle"])
        let decision = try ENEvaluator.decide(
            encounter, configuration: try EvaluationTestData.configuration("cwa-2020-06-22.v1"), request: android)
        #expect(abs(decision.value - 13.25) < 1e-9)
        #expect(!decision.notified)
    }

    @Test("hist-straddle, SwissCovid 50/55 at 8 min: a < 50 edges give even 5.25, determinate, not notified")
    func straddle() throws {
        let encounter = try #require(try EvaluationTestData.exampleEncounters()["hist-straddle"])
        var configuration = try EvaluationTestData.configuration("swisscovid-2020-06-25.v1")
        configuration.rule = .weightedAttenuationDurations(bucketWeights: [1, 0.5, 0], notifyIfAtLeastMinutes: 8)
        let decision = try ENEvaluator.decide(encounter, configuration: configuration, request: android)
        #expect(decision.value == 5.25)
        #expect(!decision.notified)
        #expect(decision.determinate)
    }

    @Test("windows-day-rounding, CWA 2.0: the Android app rounds the day's 8.96 to 9.0: HIGH, notified")
    func cwaDayRounding() throws {
        let encounter = try #require(try EvaluationTestData.exampleEncounters()["windows-day-rounding"])
        let configuration = try EvaluationTestData.configuration("cwa-2021-04-15.exposure-windows")
        let decision = try ENEvaluator.decide(encounter, configuration: configuration, request: android)
        #expect(decision.value == 9.0)
        #expect(decision.notified)
        #expect(try !ENEvaluator.decide(encounter, configuration: configuration, request: apple).notified)
    }

    @Test("daySummary: a day scoreSum of 870 s notifies at 900 s on Apple (rounded up), not on Android")
    func daySummaryRounding() throws {
        // SwissCovid in V2 form: 100 % below 50 dB, scoreSum >= 900 s; confirmed test, standard infectiousness.
        let set = try ENLabelledEncounterSet(
            jsonData: EvaluationTestData.file(
                """
                {"id": "w870", "groundTruth": {"distanceMeters": 1, "durationSeconds": 870},
                 "keyMetadata": {"reportType": 1, "infectiousness": 1},
                 "observation": {"kind": "scanInstances", "windows": [{"date": "2021-06-14", "scanInstances": [
                   {"minimumAttenuation": 40, "typicalAttenuation": 40, "secondsSinceLastScan": 870}]}]}}
                """))
        let configuration = try EvaluationTestData.configuration("swisscovid-2020-06-25.v2")
        let onApple = try ENEvaluator.decide(set.encounters[0], configuration: configuration, request: apple)
        let onAndroid = try ENEvaluator.decide(set.encounters[0], configuration: configuration, request: android)
        #expect(onApple.value == 900)
        #expect(onApple.notified)
        #expect(onAndroid.value == 870)
        #expect(!onAndroid.notified)
    }

    @Test("CWA filters: the iOS app counts whole minutes, the Android app seconds / 60")
    func cwaFilterMinutes() throws {
        // CWA 1.7 with its filter moved to "drop if under 9.5 minutes below 73 dB"; 580 s at 50 dB, confirmed test
        // (offset 1) + high (offset 4) = TRL 5, value 5 × 0.2 = 1.0, weight 1.0: normalized time 9.67.
        // Android: 9.67 min is not under 9.5 → kept, the day 9.67 → 9.7. iOS: 580 / 60 = 9 min → dropped → 0.
        var configuration = try EvaluationTestData.configuration("cwa-2020-11-23.exposure-windows")
        guard case .cwaExposureWindows(var parameters) = configuration.rule else {
            Issue.record("not a CWA rule")
            return
        }
        parameters.minutesAtAttenuationFilters = [
            .init(
                attenuationRange: .init(min: 0, max: 73, maxExclusive: true),
                dropIfMinutesInRange: .init(min: 0, max: 9.5, maxExclusive: true))
        ]
        configuration.rule = .cwaExposureWindows(parameters)
        let set = try ENLabelledEncounterSet(
            jsonData: EvaluationTestData.file(
                """
                {"id": "w580", "groundTruth": {"distanceMeters": 1, "durationSeconds": 580},
                 "observation": {"kind": "scanInstances", "windows": [{"date": "2021-06-14", "diagnosisReportType": 1,
                   "infectiousness": 2, "scanInstances": [
                   {"minimumAttenuation": 50, "typicalAttenuation": 52, "secondsSinceLastScan": 580}]}]}}
                """))
        #expect(try ENEvaluator.decide(set.encounters[0], configuration: configuration, request: android).value == 9.7)
        #expect(try ENEvaluator.decide(set.encounters[0], configuration: configuration, request: apple).value == 0)
    }

    @Test("CWA: an unknown report type is bad input for the Android app, offset 0 for the iOS app")
    func cwaUnknownReportType() throws {
        let set = try ENLabelledEncounterSet(
            jsonData: EvaluationTestData.file(
                """
                {"id": "unknown-type", "groundTruth": {"distanceMeters": 1, "durationSeconds": 900},
                 "observation": {"kind": "scanInstances", "windows": [{"date": "2021-06-14", "diagnosisReportType": 0,
                   "infectiousness": 2, "scanInstances": [
                   {"minimumAttenuation": 50, "typicalAttenuation": 52, "secondsSinceLastScan": 900}]}]}}
                """))
        let configuration = try EvaluationTestData.configuration("cwa-2021-04-15.exposure-windows")
        _ = try ENEvaluator.decide(set.encounters[0], configuration: configuration, request: apple)
        do {
            _ = try ENEvaluator.decide(set.encounters[0], configuration: configuration, request: android)
            Issue.record("accepted an unknown report type on Android")
        } catch {
            #expect(error.code == .badParameter)
            #expect(error.context.section == "encounter unknown-type")
            #expect(error.context.field == "reportType")
        }
    }

    @Test("Immuni on Android compares the uncapped score: 8 × 8 × 8 × 8 = 4096")
    func uncappedMaximumRiskScore() throws {
        var configuration = try EvaluationTestData.configuration("immuni-2020-06-22.v1")
        let eights: [ENRiskLevelValue] = Array(repeating: 8, count: 8)
        configuration.framework.attenuationLevelValues = eights
        configuration.framework.daysSinceLastExposureLevelValues = eights
        configuration.framework.durationLevelValues = eights
        configuration.framework.transmissionRiskLevelValues = eights
        configuration.rule = .maximumRiskScore(notifyIfAtLeast: 300)
        let encounter = try #require(try EvaluationTestData.exampleEncounters()["hist-17-minutes"])
        let onAndroid = try ENEvaluator.decide(encounter, configuration: configuration, request: android)
        #expect(onAndroid.value == 4096)
        #expect(onAndroid.notified)
        let onApple = try ENEvaluator.decide(encounter, configuration: configuration, request: apple)
        #expect(onApple.value == 255)
        #expect(!onApple.notified)
    }
}
