import ENCore
import ENRiskV2
import ENTestSupport
import Foundation
import Testing

/// The seconds-by-attenuation primitive every version 2 score goes through, against a scan-by-scan reference
/// written from the public bucket rule and weights.
@Suite("Bucket seconds")
struct BucketSecondsTests {
    /// Σ seconds × weight / 100 per bucket, bucketing scan by scan with `attenuationBucket(forTypicalAttenuation:)`.
    static func referenceWeightedDuration(_ window: ENExposureWindow, _ configuration: ENExposureConfiguration)
        -> Double
    {
        var seconds = [0, 0, 0, 0]
        for scan in window.scanInstances {
            seconds[configuration.attenuationBucket(forTypicalAttenuation: scan.typicalAttenuation).rawValue] +=
                max(0, scan.secondsSinceLastScan)
        }
        return Double(seconds[0]) * (configuration.durationWeight(for: .immediate) / 100)
            + Double(seconds[1]) * (configuration.durationWeight(for: .near) / 100)
            + Double(seconds[2]) * (configuration.durationWeight(for: .medium) / 100)
            + Double(seconds[3]) * (configuration.durationWeight(for: .other) / 100)
    }

    static func randomConfiguration(_ random: inout SeededRandomNumberGenerator) -> ENExposureConfiguration {
        var configuration = ENExposureConfiguration()
        let count = [2, 3, 3, 3, 1, 4].randomElement(using: &random)!
        configuration.attenuationDurationThresholds = (0..<count).map { _ in
            Bool.random(using: &random)
                ? Int.random(in: 0...260, using: &random) : Int.random(in: 40...90, using: &random)
        }
        if Bool.random(using: &random) { configuration.attenuationDurationThresholds.sort() }
        configuration.immediateDurationWeight = Double(Int.random(in: 0...250, using: &random))
        configuration.nearDurationWeight = Double.random(in: 0...250, using: &random)
        configuration.mediumDurationWeight = Double(Int.random(in: 0...250, using: &random))
        configuration.otherDurationWeight = Double.random(in: 0...100, using: &random)
        configuration.reportTypeConfirmedTestWeight = Double(Int.random(in: 0...250, using: &random))
        configuration.reportTypeSelfReportedWeight = Double.random(in: 0...250, using: &random)
        configuration.reportTypeRecursiveWeight = Double(Int.random(in: 0...250, using: &random))
        configuration.infectiousnessHighWeight = Double.random(in: 0...250, using: &random)
        configuration.reportTypeNoneMap = ENDiagnosisReportType.allCases.randomElement(using: &random)!
        configuration.minimumRiskScore = ENRiskScore(Int.random(in: 0...3, using: &random) * 20)
        configuration.minimumRiskScoreFullRange = Double(Int.random(in: 0...2, using: &random) * 300)
        configuration.daysSinceLastExposureThreshold = Int.random(in: 0...4, using: &random)
        return configuration
    }

    static func randomWindow(_ random: inout SeededRandomNumberGenerator, now: Date) -> ENExposureWindow {
        let scans = (0..<Int.random(in: 0...40, using: &random)).map { _ in
            ENScanInstance(
                minimumAttenuation: 0,
                typicalAttenuation: Bool.random(using: &random)
                    ? ENAttenuation.random(in: 0...255, using: &random)
                    : ENAttenuation.random(in: 40...100, using: &random),
                secondsSinceLastScan: Int.random(in: -60...300, using: &random))
        }
        return ENExposureWindow(
            date: now.addingTimeInterval(-86_400 * Double(Int.random(in: 0...6, using: &random))),
            diagnosisReportType: ENDiagnosisReportType.allCases.randomElement(using: &random)!,
            infectiousness: ENInfectiousness.allCases.randomElement(using: &random)!, scanInstances: scans)
    }

    @Test("weighted durations and scores equal the scan-by-scan reference on random windows")
    func randomWindows() {
        var random = SeededRandomNumberGenerator.forTest(defaultSeed: 0xB0C4)
        let now = Date(timeIntervalSince1970: 1_600_000_000)
        for _ in 0..<2_000 {
            let configuration = Self.randomConfiguration(&random)
            let window = Self.randomWindow(&random, now: now)
            var seconds = [0, 0, 0, 0]
            for scan in window.scanInstances {
                seconds[configuration.attenuationBucket(forTypicalAttenuation: scan.typicalAttenuation).rawValue] +=
                    max(0, scan.secondsSinceLastScan)
            }
            let buckets = ENScoringV2.BucketSeconds(
                immediate: seconds[0], near: seconds[1], medium: seconds[2], other: seconds[3])
            let thresholds = ENScoringV2.Parameters(configuration).thresholds
            var storage = [7, 11]  // a profile is read with storage shared with others
            let profile = ENScoringV2.AttenuationProfile(window.scanInstances, appendingTo: &storage)
            storage.append(13)
            #expect(profile.bucketSeconds(thresholds, in: storage) == buckets, "\(random) \(configuration)")
            #expect(ENScoringV2.BucketSeconds(window.scanInstances, thresholds: thresholds) == buckets)
            let expected = Self.referenceWeightedDuration(window, configuration)
            let weighted = ENScoringV2.weightedDuration(of: window, configuration: configuration)
            #expect(weighted.bitPattern == expected.bitPattern, "\(random) \(configuration) \(window)")
            if let score = ENScoringV2.score(of: window, configuration: configuration, now: now) {
                #expect(score.weightedDuration.bitPattern == expected.bitPattern)
                let reportType = configuration.mappedReportType(window.diagnosisReportType)
                let product =
                    (configuration.reportTypeWeight(for: reportType) / 100)
                    * ((configuration.infectiousnessWeight(for: window.infectiousness) / 100) * expected)
                #expect(score.score.bitPattern == product.bitPattern)
            }
        }
    }

    @Test("prepared windows give daySummaries' day totals on both platforms")
    func preparedWindows() {
        var random = SeededRandomNumberGenerator.forTest(defaultSeed: 0xDA75)
        let now = Date(timeIntervalSince1970: 1_600_000_000)
        for _ in 0..<1_000 {
            let windows = (0..<Int.random(in: 0...6, using: &random)).map { _ in Self.randomWindow(&random, now: now) }
            var prepared = ENScoringV2.PreparedWindows()
            prepared.append([Self.randomWindow(&random, now: now)], now: now)
            let group = prepared.append(windows, now: now)
            prepared.append([Self.randomWindow(&random, now: now)], now: now)
            for _ in 0..<4 {
                let configuration = Self.randomConfiguration(&random)
                let parameters = ENScoringV2.Parameters(configuration)
                for platform in ENScoringPlatform.allCases {
                    let expected = ENScoringV2.daySummaries(
                        for: windows, configuration: configuration, now: now, platform: platform
                    ).map(\.daySummary)
                    let totals = prepared.days(ofGroup: group).compactMap {
                        prepared.dayTotal($0, parameters: parameters, roundsUp: platform == .apple)
                    }
                    #expect(totals == expected, "\(random) \(platform)")
                }
            }
        }
    }
}
