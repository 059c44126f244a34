import ENCore
import ENRiskV1
import ENTestSupport
import Foundation
import Testing

/// 2020-07-01 00:00:00 UTC.
private let day0 = Date(timeIntervalSince1970: 1_593_561_600)

private func exposure(
    daysAgo: Int = 0, trl: ENRiskLevel = 0, _ segments: [(ENAttenuation, TimeInterval)]
) -> ENScoringV1.Exposure {
    ENScoringV1.Exposure(
        date: day0 - Double(daysAgo) * 86_400, transmissionRiskLevel: trl,
        attenuationSegments: segments.map { ENScoringV1.AttenuationSegment(attenuation: $0.0, duration: $0.1) })
}

@Suite("Version 1 buckets")
struct BucketTests {
    @Test("Attenuation buckets: >73, >63, >51, >33, >27, >15, >10, <=10 dB")
    func attenuation() {
        let cases: [(ENAttenuation, Int)] = [
            (255, 0), (74, 0), (73, 1), (64, 1), (63, 2), (52, 2), (51, 3), (34, 3), (33, 4), (28, 4), (27, 5),
            (16, 5), (15, 6), (11, 6), (10, 7), (0, 7),
        ]
        for (attenuation, bucket) in cases {
            #expect(ENScoringV1.attenuationBucket(attenuation) == bucket, "\(attenuation) dB")
        }
    }

    @Test("Days buckets: >=14, >=12, ..., >=2, fewer")
    func days() {
        let cases: [(Int, Int)] = [
            (100, 0), (14, 0), (13, 1), (12, 1), (11, 2), (10, 2), (9, 3), (8, 3), (7, 4), (6, 4), (5, 5), (4, 5),
            (3, 6), (2, 6), (1, 7), (0, 7),
        ]
        for (days, bucket) in cases { #expect(ENScoringV1.daysBucket(days) == bucket, "\(days) days") }
    }

    @Test("Duration buckets in minutes as a double: 0, <=5, <=10, ..., <=30, >30")
    func duration() {
        let cases: [(TimeInterval, Int)] = [
            (0, 0), (1, 1), (300, 1), (301, 2), (600, 2), (601, 3), (900, 3), (901, 4), (1200, 4), (1201, 5),
            (1500, 5), (1501, 6), (1800, 6), (1801, 7), (100_000, 7),
        ]
        for (seconds, bucket) in cases { #expect(ENScoringV1.durationBucket(seconds) == bucket, "\(seconds) s") }
    }

    @Test("Each bucket selects its own level value in the score")
    func levelValuesPerBucket() {
        // One table at a time gets distinct values; the others are all 1, so the score is that value.
        for bucket in 0..<8 {
            var configuration = ENExposureConfiguration()
            let ones: [ENRiskLevelValue] = Array(repeating: 1, count: 8)
            configuration.attenuationLevelValues = ones
            configuration.daysSinceLastExposureLevelValues = ones
            configuration.durationLevelValues = ones
            configuration.transmissionRiskLevelValues = [1, 2, 3, 4, 5, 6, 7, 8]
            let info = ENScoringV1.exposureInfo(
                for: exposure(trl: ENRiskLevel(bucket), [(40, 60)]), configuration: configuration, now: day0)
            #expect(info.totalRiskScore == ENRiskScore(bucket + 1), "transmission risk level \(bucket)")
        }
        var configuration = ENExposureConfiguration()
        configuration.attenuationLevelValues = Array(repeating: 1, count: 8)
        configuration.durationLevelValues = Array(repeating: 1, count: 8)
        // Level 8 (Google's highest, outside Apple's 0...7) scores as 7.
        let eight = ENScoringV1.exposureInfo(for: exposure(trl: 8, [(40, 60)]), configuration: configuration, now: day0)
        #expect(eight.totalRiskScore == 8 * 8)  // days bucket 7 (value 8) x transmission value 8
        // days: 4 days ago -> bucket 5 -> value 6; duration 14 min -> bucket 3 -> value 4.
        configuration = ENExposureConfiguration()
        configuration.attenuationLevelValues = Array(repeating: 1, count: 8)
        let info = ENScoringV1.exposureInfo(
            for: exposure(daysAgo: 4, trl: 0, [(40, 840)]), configuration: configuration, now: day0 + 3600)
        let expected: Double = 1 * 6 * 4 * 1
        #expect(info.totalRiskScoreFullRange == expected)
    }
}

@Suite("Version 1 exposure info")
struct ExposureInfoTests {
    @Test("attenuationValue is the duration-weighted level value; zero-level buckets leave the divisor")
    func attenuationValue() {
        var configuration = ENExposureConfiguration()
        configuration.attenuationLevelValues = [0, 1, 2, 3, 4, 5, 6, 8]
        // 600 s at 74 dB (level 0) and 300 s at 5 dB (level 8): 300 x 8 / 300 = 8, not 2400 / 900.
        let segments = [
            ENScoringV1.AttenuationSegment(attenuation: 74, duration: 600), .init(attenuation: 5, duration: 300),
        ]
        #expect(ENScoringV1.attenuationValue(segments, configuration: configuration) == 8)
        configuration.attenuationLevelValues[0] = 1
        #expect(ENScoringV1.attenuationValue(segments, configuration: configuration) == 3)  // 3000 / 900 = 3.33
        // Rounded half away from zero: 60 s at level 1 (74 dB) and 60 s at level 2 (63 dB) -> 1.5 -> 2.
        let half = [
            ENScoringV1.AttenuationSegment(attenuation: 74, duration: 60), .init(attenuation: 63, duration: 60),
        ]
        #expect(ENScoringV1.attenuationValue(half, configuration: configuration) == 2)
        // Only zero-level time: 0.
        configuration.attenuationLevelValues[0] = 0
        #expect(
            ENScoringV1.attenuationValue([.init(attenuation: 80, duration: 600)], configuration: configuration) == 0)
        #expect(ENScoringV1.attenuationValue([], configuration: configuration) == 0)
    }

    @Test("totalRiskScore clamps at 255; the full range keeps the product")
    func clamp() {
        var configuration = ENExposureConfiguration()
        let eights: [ENRiskLevelValue] = Array(repeating: 8, count: 8)
        configuration.attenuationLevelValues = eights
        configuration.daysSinceLastExposureLevelValues = eights
        configuration.durationLevelValues = eights
        configuration.transmissionRiskLevelValues = eights
        let info = ENScoringV1.exposureInfo(for: exposure([(40, 600)]), configuration: configuration, now: day0)
        #expect(info.totalRiskScore == 255)
        #expect(info.totalRiskScoreFullRange == 4096)
        // Weights multiply the level values (Apple's implementation; 1 by default).
        configuration.attenuationWeight = 0.5
        let halved = ENScoringV1.exposureInfo(for: exposure([(40, 600)]), configuration: configuration, now: day0)
        #expect(halved.totalRiskScoreFullRange == 2048)
        configuration.attenuationLevelValues = Array(repeating: 1, count: 8)
        configuration.daysSinceLastExposureLevelValues = Array(repeating: 1, count: 8)
        configuration.attenuationWeight = 1.5
        configuration.transmissionRiskLevelValues = [1, 1, 1, 1, 1, 1, 1, 1]
        let fractional = ENScoringV1.exposureInfo(for: exposure([(40, 600)]), configuration: configuration, now: day0)
        #expect(fractional.totalRiskScoreFullRange == 12)  // 1 x 1.5 x 1 x 8 (duration bucket 2 -> value 8) x 1
        #expect(fractional.totalRiskScore == 12)
    }

    @Test("Apple's V1 example (14 min, 4 days ago, attenuation 68 dB) saturates at 255 with the default levels")
    func appleExample() {
        // Default levels: 68 dB -> bucket 1 -> 2; 4 days -> 6; 14 min -> 4; transmission risk level 7 -> 8.
        let info = ENScoringV1.exposureInfo(
            for: exposure(daysAgo: 4, trl: 7, [(68, 840)]), configuration: ENExposureConfiguration(), now: day0)
        #expect(info.attenuationValue == 2)
        let expected: Double = 2 * 6 * 4 * 8
        #expect(info.totalRiskScoreFullRange == expected)
        #expect(info.totalRiskScore == 255)
    }

    @Test("Duration is rounded up to a minute and capped at 1800 s; its bucket uses the raw duration")
    func durationRounding() {
        var configuration = ENExposureConfiguration()
        configuration.attenuationLevelValues = Array(repeating: 1, count: 8)
        configuration.daysSinceLastExposureLevelValues = Array(repeating: 1, count: 8)
        configuration.transmissionRiskLevelValues = Array(repeating: 1, count: 8)
        let cases: [(TimeInterval, TimeInterval, Double)] = [
            (0, 0, 0), (1, 60, 2), (60, 60, 2), (61, 120, 2), (301, 360, 3), (1801, 1800, 8), (5000, 1800, 8),
        ]
        // With no time at all the attenuation value, and so the score, is 0.
        for (seconds, duration, score) in cases {
            let info = ENScoringV1.exposureInfo(for: exposure([(40, seconds)]), configuration: configuration, now: day0)
            #expect(info.duration == duration, "\(seconds) s")
            #expect(info.totalRiskScoreFullRange == score, "\(seconds) s")
        }
    }

    @Test("attenuationDurations with 3 thresholds: <=X, (X,Y], (Y,Z], >Z")
    func threeThresholds() {
        let configuration = ENExposureConfiguration()  // [50, 70, 90]
        let info = ENScoringV1.exposureInfo(
            for: exposure([(50, 60), (51, 61), (70, 60), (90, 2000), (91, 30), (255, 30)]),
            configuration: configuration, now: day0)
        #expect(info.attenuationDurations == [60, 180, 1800, 60])
    }

    @Test("attenuationDurations with 2 thresholds: <=X, (X,Y], >Y")
    func twoThresholds() {
        var configuration = ENExposureConfiguration()
        configuration.attenuationDurationThresholds = [50, 70]
        let info = ENScoringV1.exposureInfo(
            for: exposure([(50, 60), (51, 61), (70, 60), (71, 30), (255, 30)]), configuration: configuration, now: day0)
        #expect(info.attenuationDurations == [60, 180, 60])
    }

    @Test("Info carries the exposure's fields")
    func fields() {
        let source = ENScoringV1.Exposure(
            date: day0, transmissionRiskLevel: 5, attenuationSegments: [], diagnosisReportType: .selfReported,
            daysSinceOnsetOfSymptoms: -3)
        let info = ENScoringV1.exposureInfo(for: source, configuration: ENExposureConfiguration(), now: day0)
        #expect(info.date == day0)
        #expect(info.transmissionRiskLevel == 5)
        #expect(info.diagnosisReportType == .selfReported)
        #expect(info.daysSinceOnsetOfSymptoms == -3)
        #expect(info.duration == 0)
        #expect(info.attenuationValue == 0)
        #expect(info.totalRiskScore == 0)
    }
}

@Suite("Version 1 summary")
struct SummaryTests {
    @Test("Summary of unfiltered exposures")
    func summary() {
        let exposures = [
            exposure(daysAgo: 10, trl: 0, [(40, 1000)]),
            exposure(daysAgo: 3, trl: 7, [(40, 1000), (95, 30)]),
        ]
        let result = ENScoringV1.evaluate(exposures, configuration: ENExposureConfiguration(), now: day0 + 7200)
        #expect(result.summary.matchedKeyCount == 2)
        #expect(result.summary.daysSinceLastExposure == 3)
        #expect(result.exposureInfo.count == 2)
        // 40 dB -> level 4 (attenuation), 10 days -> 3, 3 days -> 7; 1000 s -> bucket 4 -> 5, 1030 s -> 5.
        // Second: attenuation (1000 x 4 + 30 x 1) / 1030 = 3.91 -> 4.
        let expected: [Double] = [4 * 3 * 5 * 1, 4 * 7 * 5 * 8]
        #expect(result.exposureInfo.map(\.totalRiskScoreFullRange) == expected)
        #expect(result.summary.maximumRiskScore == 255)
        #expect(result.summary.maximumRiskScoreFullRange == 1120)
        #expect(result.summary.riskScoreSumFullRange == 1180)
        // Per info 1000 s -> 1020 s; summed raw 2000 s -> capped at 1800 s.
        #expect(result.exposureInfo[0].attenuationDurations == [1020, 0, 0, 0])
        #expect(result.summary.attenuationDurations == [1800, 0, 0, 60])
    }

    @Test("Summary durations sum raw seconds before rounding")
    func summaryRounding() {
        let exposures = [exposure([(40, 30)]), exposure([(40, 30)]), exposure([(60, 61)])]
        var configuration = ENExposureConfiguration()
        configuration.attenuationDurationThresholds = [50, 70]
        let result = ENScoringV1.evaluate(exposures, configuration: configuration, now: day0)
        #expect(result.exposureInfo.map(\.attenuationDurations) == [[60, 0, 0], [60, 0, 0], [0, 120, 0]])
        #expect(result.summary.attenuationDurations == [60, 120, 0])
    }

    @Test("minimumRiskScore drops exposures from infos, maximum, sum and durations, not from counts")
    func minimumRiskScore() {
        var configuration = ENExposureConfiguration()
        configuration.minimumRiskScore = 100
        let exposures = [
            exposure(daysAgo: 1, trl: 0, [(40, 60)]),  // 4 x 8 x 2 x 1 = 64: dropped
            exposure(daysAgo: 9, trl: 7, [(40, 600)]),  // 4 x 4 x 3 x 8 = 384 -> 255: kept
        ]
        let result = ENScoringV1.evaluate(exposures, configuration: configuration, now: day0)
        #expect(result.exposureInfo.map(\.totalRiskScore) == [255])
        #expect(result.summary.matchedKeyCount == 2)
        #expect(result.summary.daysSinceLastExposure == 1)
        #expect(result.summary.maximumRiskScoreFullRange == 384)
        #expect(result.summary.riskScoreSumFullRange == 384)
        #expect(result.summary.attenuationDurations == [600, 0, 0, 0])
        // The clamped score is compared: 255 passes a minimum of 255.
        configuration.minimumRiskScore = 255
        #expect(ENScoringV1.evaluate(exposures, configuration: configuration, now: day0).exposureInfo.count == 1)
    }

    @Test("minimumRiskScoreFullRange compares the unclamped score")
    func minimumFullRange() {
        var configuration = ENExposureConfiguration()
        configuration.minimumRiskScoreFullRange = 300
        let exposures = [
            exposure(daysAgo: 9, trl: 7, [(40, 600)]),  // 384: kept
            exposure(daysAgo: 9, trl: 4, [(40, 600)]),  // 4 x 4 x 3 x 5 = 240 (clamped 240): dropped
        ]
        let result = ENScoringV1.evaluate(exposures, configuration: configuration, now: day0)
        #expect(result.exposureInfo.map(\.totalRiskScoreFullRange) == [384])
        #expect(result.summary.maximumRiskScore == 255)
        #expect(result.summary.riskScoreSumFullRange == 384)
        #expect(result.summary.matchedKeyCount == 2)
        configuration.minimumRiskScoreFullRange = 385
        let none = ENScoringV1.evaluate(exposures, configuration: configuration, now: day0)
        #expect(none.exposureInfo.isEmpty)
        #expect(none.summary.maximumRiskScore == 0)
        #expect(none.summary.attenuationDurations == [0, 0, 0, 0])
        #expect(none.summary.daysSinceLastExposure == 9)
    }

    @Test("No exposures: an empty summary")
    func empty() {
        let result = ENScoringV1.evaluate([ENScoringV1.Exposure](), configuration: ENExposureConfiguration(), now: day0)
        #expect(result.summary == ENScoringV1.Summary(attenuationDurations: [0, 0, 0, 0]))
        #expect(result.exposureInfo.isEmpty)
    }

    @Test("Exposures from matched sightings: one per key, dated by the first sighting's UTC day")
    func fromMatches() throws {
        let keyData = Data(repeating: 3, count: 16)
        func matched(_ date: Date, rssi: Int8) -> ENMatchedSighting {
            ENMatchedSighting(
                sighting: ENSighting(
                    rpi: RollingProximityIdentifier(lowWord: 0, highWord: 0),
                    aem: AssociatedEncryptedMetadata(rawValue: 0),
                    timestamp: date, rssi: rssi),
                derivedInterval: ENIntervalNumber(date: date), txPower: 8)
        }
        let start = day0 + 10 * 3600
        let match = ENKeyMatch(
            key: ENTemporaryExposureKey(
                keyData: keyData, rollingStartNumber: ENIntervalNumber(date: day0), transmissionRiskLevel: 6,
                diagnosisReportType: .confirmedTest),
            sightings: (0..<10).map { matched(start + Double($0 * 60), rssi: -40) })
        let revoked = ENKeyMatch(
            key: ENTemporaryExposureKey(
                keyData: keyData, rollingStartNumber: ENIntervalNumber(date: day0), diagnosisReportType: .revoked),
            sightings: [matched(start, rssi: -40)])
        let exposure = try #require(ENScoringV1.Exposure(match: match))
        #expect(exposure.date == day0)
        #expect(exposure.transmissionRiskLevel == 6)
        #expect(exposure.attenuationSegments.map(\.attenuation) == Array(repeating: 48, count: 10))
        let total: TimeInterval = exposure.attenuationSegments.map(\.duration).reduce(0, +)
        #expect(total == 660)
        #expect(ENScoringV1.Exposure(match: revoked) == nil)
        let result = ENScoringV1.evaluate(
            matches: [match, revoked], configuration: ENExposureConfiguration(), now: day0 + 86_400)
        #expect(result.summary.matchedKeyCount == 1)
        #expect(result.exposureInfo.first?.duration == 660)
        #expect(result.exposureInfo.first?.attenuationDurations == [660, 0, 0, 0])
    }

    @Test("The earlier sample configuration (weights 50) multiplies every level value by 50")
    func earlierConfiguration() throws {
        let configuration = try ENExposureConfiguration(
            jsonData: Fixtures.data("risk/exposure-configuration-earlier.json"))
        let info = ENScoringV1.exposureInfo(
            for: exposure(daysAgo: 20, trl: 0, [(80, 60)]), configuration: configuration, now: day0)
        let expected: Double = 1 * 50 * 1 * 50 * 2 * 50 * 1 * 50
        #expect(info.totalRiskScoreFullRange == expected)
        #expect(info.totalRiskScore == 255)
    }
}
