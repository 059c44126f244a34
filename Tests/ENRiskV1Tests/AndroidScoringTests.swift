import ENCore
import ENRiskV1
import Foundation
import Testing

/// 2020-07-01 00:00:00 UTC.
private let day = Date(timeIntervalSince1970: 1_593_561_600)

private func exposure(trl: ENRiskLevel = 1, _ segments: [(ENAttenuation, TimeInterval)]) -> ENScoringV1.Exposure {
    ENScoringV1.Exposure(
        date: day, transmissionRiskLevel: trl,
        attenuationSegments: segments.map { ENScoringV1.AttenuationSegment(attenuation: $0.0, duration: $0.1) })
}

/// Every level table filled with `value` (1: a score isolates the table under test).
private func uniform(_ value: ENRiskLevelValue) -> ENExposureConfiguration {
    var configuration = ENExposureConfiguration()
    let values = [ENRiskLevelValue](repeating: value, count: 8)
    configuration.attenuationLevelValues = values
    configuration.daysSinceLastExposureLevelValues = values
    configuration.durationLevelValues = values
    configuration.transmissionRiskLevelValues = values
    return configuration
}

private func ones() -> ENExposureConfiguration { uniform(1) }

/// Google's V1 scoring (`KeyExposureEvaluator`, `RiskScoreCalculator` in google/exposure-notifications-internals),
/// each difference from Apple on a case computed by hand.
@Suite("Version 1 on Android")
struct AndroidScoringTests {
    @Test("Attenuation value: time-weighted mean in dB, rounded half up")
    func attenuationValue() {
        let value = ENScoringV1.androidAttenuationValue
        // (300·60 + 300·61) / 600 = 60.5 → 61; (600·60 + 420·94) / 1020 = 74.0 → 74.
        #expect(value([.init(attenuation: 60, duration: 300), .init(attenuation: 61, duration: 300)]) == 61)
        #expect(value([.init(attenuation: 60, duration: 600), .init(attenuation: 94, duration: 420)]) == 74)
        // (100·40 + 300·80) / 400 = 70; a negative duration counts 0; no time gives 0.
        #expect(value([.init(attenuation: 40, duration: 100), .init(attenuation: 80, duration: 300)]) == 70)
        #expect(value([.init(attenuation: 40, duration: 100), .init(attenuation: 80, duration: -300)]) == 40)
        #expect(value([]) == 0)
    }

    @Test("The level value comes from the mean's bucket, not the per-segment level values (Apple)")
    func attenuationLevelFromMean() {
        var configuration = ones()
        configuration.attenuationLevelValues = [0, 5, 5, 5, 5, 5, 5, 5]
        // 10 min at 60 and 7 min at 94: Apple averages level values 5 and 0 (0 left out) → 5; Google's mean is
        // (600·60 + 420·94)/1020 = 74 dB → bucket > 73 → level 0.
        let item = exposure([(60, 600), (94, 420)])
        let apple = ENScoringV1.exposureInfo(for: item, configuration: configuration, now: day)
        let android = ENScoringV1.exposureInfo(for: item, configuration: configuration, now: day, platform: .android)
        #expect(apple.attenuationValue == 5)
        #expect(apple.totalRiskScoreFullRange == 5)
        #expect(android.attenuationValue == 74)
        #expect(android.totalRiskScoreFullRange == 0)
    }

    @Test("Duration: nearest 5 minutes (a remainder of 150 s rounds down), bucketed in whole minutes")
    func duration() {
        let cases: [(TimeInterval, TimeInterval)] = [
            (0, 0), (150, 0), (151, 300), (1050, 900), (1051, 1200), (960, 900), (1020, 900), (1080, 1200),
        ]
        for (seconds, rounded) in cases { #expect(ENScoringV1.androidDuration(seconds) == rounded, "\(seconds) s") }
        var configuration = ones()
        configuration.durationLevelValues = [0, 1, 2, 3, 4, 5, 6, 7]
        // 16 minutes: Apple's level is bucket "<= 20" (4); Google rounds to 15 minutes, bucket "<= 15" (3).
        let item = exposure([(40, 960)])
        #expect(ENScoringV1.exposureInfo(for: item, configuration: configuration, now: day).totalRiskScore == 4)
        let android = ENScoringV1.exposureInfo(for: item, configuration: configuration, now: day, platform: .android)
        #expect(android.totalRiskScore == 3)
        #expect(android.duration == 900)
    }

    @Test("Transmission risk: level 0 scores 1, level n scores values[n - 1]; Apple clamps to values[min(n, 7)]")
    func transmissionRisk() {
        var configuration = ones()
        configuration.transmissionRiskLevelValues = [1, 2, 3, 4, 5, 6, 7, 8]
        let cases: [(ENRiskLevel, Double, Double)] = [(0, 1, 1), (1, 2, 1), (5, 6, 5), (7, 8, 7), (8, 8, 8)]
        for (level, apple, android) in cases {
            let item = exposure(trl: level, [(40, 60)])
            #expect(
                ENScoringV1.exposureInfo(for: item, configuration: configuration, now: day).totalRiskScoreFullRange
                    == apple, "level \(level)")
            #expect(
                ENScoringV1.exposureInfo(for: item, configuration: configuration, now: day, platform: .android)
                    .totalRiskScoreFullRange == android, "level \(level)")
        }
    }

    @Test("Score: the product of four level values, unweighted and uncapped")
    func uncapped() {
        var configuration = uniform(8)
        configuration.attenuationWeight = 0.5
        let item = exposure(trl: 3, [(40, 600)])
        let apple = ENScoringV1.exposureInfo(for: item, configuration: configuration, now: day)
        let android = ENScoringV1.exposureInfo(for: item, configuration: configuration, now: day, platform: .android)
        #expect(apple.totalRiskScoreFullRange == 2048)  // 8⁴ × 0.5
        #expect(apple.totalRiskScore == 255)
        #expect(android.totalRiskScoreFullRange == 4096)
        #expect(android.totalRiskScore == 255)
        let summary = ENScoringV1.evaluate([item], configuration: configuration, now: day, platform: .android).summary
        #expect(summary.maximumRiskScoreFullRange == 4096)
    }

    @Test("attenuationDurations: a < low, low <= a < high, a >= high; unrounded seconds capped at 1800")
    func attenuationDurationEdges() {
        var configuration = ENExposureConfiguration()
        configuration.attenuationDurationThresholds = [50, 70]
        let item = exposure([(49, 90), (50, 90), (69, 30), (70, 2000)])
        let apple = ENScoringV1.exposureInfo(for: item, configuration: configuration, now: day)
        let android = ENScoringV1.exposureInfo(for: item, configuration: configuration, now: day, platform: .android)
        // Apple: <= 50 → 180 s, (50, 70] → 2030 s → 1800, > 70 → 0; Google: < 50 → 90, [50, 70) → 120, >= 70 → 1800.
        #expect(apple.attenuationDurations == [180, 1800, 0])
        #expect(android.attenuationDurations == [90, 120, 1800])
        // Three thresholds: Apple has four buckets, Google uses the first two.
        configuration.attenuationDurationThresholds = [50, 60, 70]
        let three = ENScoringV1.exposureInfo(
            for: exposure([(55, 45), (65, 45)]), configuration: configuration, now: day, platform: .android)
        #expect(three.attenuationDurations == [0, 45, 45])
    }

    @Test("minimumRiskScore: Apple drops the exposure, Google zeroes its score and keeps its durations")
    func minimumRiskScore() {
        var configuration = ones()
        configuration.minimumRiskScore = 2
        let exposures = [exposure([(40, 90)]), exposure([(80, 45)])]
        let apple = ENScoringV1.evaluate(exposures, configuration: configuration, now: day)
        let android = ENScoringV1.evaluate(exposures, configuration: configuration, now: day, platform: .android)
        #expect(apple.exposureInfo.isEmpty)
        #expect(apple.summary.attenuationDurations == [0, 0, 0, 0])  // default: three thresholds
        #expect(android.exposureInfo.map(\.totalRiskScore) == [0, 0])
        // Google uses the first two default thresholds, 50/70: 40 dB below, 80 dB at or above.
        #expect(android.summary.attenuationDurations == [90, 0, 45])
        #expect(android.summary.matchedKeyCount == 2)
    }

    @Test("Apple stays the default: no platform and .apple give identical results")
    func appleDefault() {
        var configuration = ENExposureConfiguration()
        configuration.transmissionRiskLevelValues = [1, 2, 3, 4, 5, 6, 7, 8]
        let exposures = [exposure(trl: 4, [(45, 333), (66, 500)]), exposure(trl: 8, [(30, 1900)])]
        #expect(
            ENScoringV1.evaluate(exposures, configuration: configuration, now: day)
                == ENScoringV1.evaluate(exposures, configuration: configuration, now: day, platform: .apple))
    }
}
