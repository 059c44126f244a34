import ENCore
import ENRiskV2
import ENTestSupport
import Foundation
import Testing

@testable import ENEvaluation

/// `ENEvaluator`'s day-summary evaluation (windows prepared once, configurations read once, evaluated in parallel)
/// against the straightforward path: each placement's windows scored by `ENScoringV2.daySummaries` per
/// configuration.
@Suite("Day-summary fast path")
struct FastPathTests {
    static let now = Date(timeIntervalSince1970: 1_600_000_000)

    static func randomEncounter(_ index: Int, _ random: inout SeededRandomNumberGenerator) -> ENLabelledEncounter {
        let metadata = ENKeyMetadata(
            transmissionRiskLevel: 1, reportType: ENDiagnosisReportType.allCases.randomElement(using: &random)!,
            infectiousness: ENInfectiousness.allCases.randomElement(using: &random)!,
            daysSinceExposure: Int.random(in: 0...5, using: &random))
        let groundTruth = ENGroundTruth(
            distanceMeters: Double.random(in: 0.5...4, using: &random), durationSeconds: 600)
        if Bool.random(using: &random) {
            var bins: [ENAttenuationHistogram.Bin] = []
            var lo = Int.random(in: 30...60, using: &random)
            while lo < 110, bins.count < 20 {
                let hi = lo + [1, 1, 2, 3, 5, 10].randomElement(using: &random)!
                let seconds =
                    Bool.random(using: &random)
                    ? Double(Int.random(in: 0...6, using: &random) * 60) : Double.random(in: 0...400, using: &random)
                bins.append(ENAttenuationHistogram.Bin(lo: lo, hi: hi, seconds: seconds))
                lo = hi + Int.random(in: 0...2, using: &random)
            }
            return ENLabelledEncounter(
                id: "h\(index)", groundTruth: groundTruth, keyMetadata: metadata,
                observation: .attenuationHistogram(ENAttenuationHistogram(bins: bins)))
        }
        let windows = (0..<Int.random(in: 0...5, using: &random)).map { _ in
            ENObservedWindow(
                date: UTCDay.start(of: now).addingTimeInterval(-86_400 * Double(Int.random(in: 0...5, using: &random))),
                reportType: Bool.random(using: &random)
                    ? nil : ENDiagnosisReportType.allCases.randomElement(using: &random)!,
                infectiousness: Bool.random(using: &random)
                    ? nil : ENInfectiousness.allCases.randomElement(using: &random)!,
                scanInstances: (0..<Int.random(in: 0...12, using: &random)).map { _ in
                    ENScanInstance(
                        minimumAttenuation: 0, typicalAttenuation: ENAttenuation.random(in: 30...110, using: &random),
                        secondsSinceLastScan: Int.random(in: -30...300, using: &random))
                })
        }
        return ENLabelledEncounter(
            id: "w\(index)", groundTruth: groundTruth, keyMetadata: metadata, observation: .exposureWindows(windows))
    }

    static func randomConfiguration(_ index: Int, _ random: inout SeededRandomNumberGenerator)
        -> ENEvaluationConfiguration
    {
        var framework = ENExposureConfiguration()
        let count = [2, 3, 3, 3, 4].randomElement(using: &random)!
        framework.attenuationDurationThresholds = (0..<count).map { _ in Int.random(in: 35...105, using: &random) }
        if Int.random(in: 0..<4, using: &random) > 0 { framework.attenuationDurationThresholds.sort() }
        framework.immediateDurationWeight = Double(Int.random(in: 0...250, using: &random))
        framework.nearDurationWeight = Double.random(in: 0...250, using: &random)
        framework.mediumDurationWeight = Double(Int.random(in: 0...100, using: &random))
        framework.otherDurationWeight = Double(Int.random(in: 0...1, using: &random) * 10)
        framework.reportTypeSelfReportedWeight = Double.random(in: 0...250, using: &random)
        framework.infectiousnessHighWeight = Double(Int.random(in: 0...250, using: &random))
        framework.reportTypeNoneMap = ENDiagnosisReportType.allCases.randomElement(using: &random)!
        framework.minimumRiskScore = ENRiskScore(Int.random(in: 0...2, using: &random) * 30)
        framework.minimumRiskScoreFullRange = Double(Int.random(in: 0...2, using: &random) * 200)
        framework.daysSinceLastExposureThreshold = Int.random(in: 0...4, using: &random)
        return ENEvaluationConfiguration(
            name: "c\(index)", framework: framework,
            rule: .daySummary(
                field: ENNotificationRule.DaySummaryField.allCases.randomElement(using: &random)!,
                notifyIfAtLeastSeconds: Double(Int.random(in: 0...20, using: &random) * 60)))
    }

    /// The decision by `ENScoringV2.daySummaries` on each placement's windows; nil when a window lacks metadata.
    static func straightforward(
        _ encounter: ENLabelledEncounter, _ configuration: ENEvaluationConfiguration, _ request: ENEvaluationRequest
    ) -> ENEncounterDecision? {
        guard case .daySummary(let field, let threshold) = configuration.rule else { return nil }
        let metadata = encounter.keyMetadata.filled(from: request.defaults)
        let placements: [ENAttenuationHistogram.Placement] =
            encounter.observation.isDeterminate
            ? [.even] : [.lowest, .highest, .even]
        var notified: [Bool] = []
        var value = 0.0
        for placement in placements {
            var windows: [ENExposureWindow] = []
            for window in ENEvaluator.windows(encounter, metadata: metadata, placement: placement, now: request.now) {
                guard let reportType = window.reportType, let infectiousness = window.infectiousness else { return nil }
                windows.append(
                    ENExposureWindow(
                        calibrationConfidence: window.calibrationConfidence, date: window.date,
                        diagnosisReportType: reportType, infectiousness: infectiousness,
                        scanInstances: ENEvaluator.wholeSecondScans(window.scans)))
            }
            let days = ENScoringV2.daySummaries(
                for: windows, configuration: configuration.framework, now: request.now, platform: request.platform)
            value =
                days.map { day in
                    switch field {
                    case .scoreSum: day.daySummary.scoreSum
                    case .weightedDurationSum: day.daySummary.weightedDurationSum
                    case .maximumScore: day.daySummary.maximumScore
                    }
                }.max() ?? 0
            notified.append(value >= threshold)
        }
        let some = notified.contains(true)
        let every = !notified.contains(false)
        return ENEncounterDecision(
            id: encounter.id, contact: request.contactRule.isContact(encounter.groundTruth), notified: notified.last!,
            determinate: every || !some, value: value, notifiedInSomePlacement: some, notifiedInEveryPlacement: every)
    }

    @Test(
        "random encounters and configurations: the same decisions as ENScoringV2.daySummaries",
        arguments: ENScoringPlatform.allCases)
    func randomDecisions(platform: ENScoringPlatform) throws {
        var random = SeededRandomNumberGenerator.forTest(defaultSeed: platform == .apple ? 0xFA57 : 0xA4D2)
        let request = ENEvaluationRequest(now: Self.now, platform: platform)
        let encounters = (0..<TestScale.pick(300, reduced: 120)).map { Self.randomEncounter($0, &random) }
        let configurations = (0..<TestScale.pick(40, reduced: 12)).map { Self.randomConfiguration($0, &random) }
        // Only the encounters every window of which has metadata: the others throw (tested elsewhere).
        let scorable = encounters.filter { encounter in
            Self.straightforward(encounter, configurations[0], request) != nil
        }
        #expect(scorable.count > encounters.count / 3)
        let results = try ENEvaluator.evaluate(scorable, configurations: configurations, request: request)
        #expect(results.map(\.name) == configurations.map(\.name))
        var compared = 0
        for (result, configuration) in zip(results, configurations) {
            for (decision, encounter) in zip(result.decisions, scorable) {
                let expected = try #require(Self.straightforward(encounter, configuration, request))
                #expect(decision == expected, "\(random) \(configuration.name) \(encounter.id)")
                #expect(decision.value.bitPattern == expected.value.bitPattern)
                compared += 1
            }
            let single = try ENEvaluator.evaluate(scorable, configuration: configuration, request: request)
            #expect(single == result)
        }
        #expect(compared == scorable.count * configurations.count)
    }

    @Test("the first configuration and encounter that fail are reported, as evaluating one by one does")
    func firstFailure() throws {
        var random = SeededRandomNumberGenerator.forTest(defaultSeed: 0xE440)
        let request = ENEvaluationRequest(now: Self.now)
        var encounters = (0..<50).map { Self.randomEncounter($0, &random) }
        encounters[30].keyMetadata = ENKeyMetadata()
        encounters[30].observation = .attenuationHistogram(
            ENAttenuationHistogram(bins: [ENAttenuationHistogram.Bin(lo: 50, hi: 52, seconds: 60)]))
        encounters[40] = encounters[30]
        encounters[40].id = "second"
        let configurations = (0..<20).map { Self.randomConfiguration($0, &random) }
        var expected: ENError?
        for configuration in configurations {
            do {
                _ = try ENEvaluator.evaluate(encounters, configuration: configuration, request: request)
            } catch {
                expected = error
                break
            }
        }
        #expect(expected != nil)
        #expect(throws: expected!) {
            try ENEvaluator.evaluate(encounters, configurations: configurations, request: request)
        }
    }
}
