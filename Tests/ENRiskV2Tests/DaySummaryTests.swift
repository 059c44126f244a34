import ENCore
import ENRiskV2
import Foundation
import Testing

@Suite("Version 2 scoring")
struct DaySummaryTests {
    /// Apple's worked example (ENExposureConfiguration documentation): 5 min immediate at 150 %, 10 min near at
    /// 100 %, 10 min medium at 50 %, 5 min other at 0 % = 22.5 weighted minutes; high infectiousness at 200 %
    /// gives an exposure risk value of 45 minutes.
    @Test("Apple's worked example scores 45 minutes")
    func appleExample() throws {
        var configuration = standardConfiguration()
        configuration.immediateDurationWeight = 150
        configuration.nearDurationWeight = 100
        configuration.mediumDurationWeight = 50
        configuration.otherDurationWeight = 0
        configuration.infectiousnessHighWeight = 200
        let example = window(
            infectiousness: .high,
            [scan(45, 300), scan(60, 300), scan(65, 300), scan(80, 300), scan(85, 300), scan(100, 300)])
        #expect(ENScoringV2.weightedDuration(of: example, configuration: configuration) == 1350)
        let score = try #require(ENScoringV2.score(of: example, configuration: configuration, now: day0))
        #expect(score.score == 2700)
        let days = ENScoringV2.daySummaries(for: [example], configuration: configuration, now: day0)
        #expect(days.count == 1)
        #expect(days[0].date == day0)
        #expect(days[0].daySummary.maximumScore == 45 * 60)
        #expect(days[0].daySummary.scoreSum == 45 * 60)
        #expect(days[0].daySummary.weightedDurationSum == 1380)  // 22.5 min rounded up to 23 min
        #expect(days[0].confirmedTestSummary == days[0].daySummary)
    }

    @Test("Thresholds are inclusive upper bounds; two thresholds leave 'other' empty")
    func bucketEdges() {
        var configuration = standardConfiguration()
        configuration.attenuationDurationThresholds = [50, 70, 90]
        configuration.immediateDurationWeight = 250
        configuration.nearDurationWeight = 100
        configuration.mediumDurationWeight = 50
        configuration.otherDurationWeight = 0
        func weighted(_ attenuation: ENAttenuation) -> Double {
            ENScoringV2.weightedDuration(of: window([scan(attenuation, 60)]), configuration: configuration)
        }
        #expect([0, 50, 51, 70, 71, 90, 91, 255].map(weighted) == [150, 150, 60, 60, 30, 30, 0, 0])
        configuration.attenuationDurationThresholds = [50, 70]
        #expect([70, 71, 255].map(weighted) == [60, 30, 30])
    }

    @Test("DP-3T's window vector: typical 20/22 s, 30/55 s, 40/77 s with thresholds 25 and 45")
    func dp3tVector() {
        var configuration = standardConfiguration()
        configuration.attenuationDurationThresholds = [25, 45]
        configuration.nearDurationWeight = 0
        configuration.mediumDurationWeight = 0
        let example = window([scan(20, 22), scan(30, 55), scan(40, 77)])
        #expect(ENScoringV2.weightedDuration(of: example, configuration: configuration) == 22)
        configuration.immediateDurationWeight = 0
        configuration.nearDurationWeight = 100
        #expect(ENScoringV2.weightedDuration(of: example, configuration: configuration) == 132)
    }

    @Test("Per-report-type items: present for the types of scored windows, nil otherwise")
    func perTypeItems() throws {
        let configuration = standardConfiguration()
        let windows = [
            window(type: .confirmedTest, [scan(40, 120)]),
            window(type: .confirmedTest, [scan(40, 300)]),
            window(type: .selfReported, [scan(40, 60)]),
            window(date: day0 + 86_400, type: .recursive, [scan(40, 60)]),
        ]
        let days = ENScoringV2.daySummaries(for: windows, configuration: configuration, now: day0 + 2 * 86_400)
        #expect(days.map(\.date) == [day0, day0 + 86_400])
        let first = days[0]
        #expect(
            first.confirmedTestSummary
                == ENExposureSummaryItem(maximumScore: 300, scoreSum: 420, weightedDurationSum: 420))
        #expect(
            first.selfReportedSummary == ENExposureSummaryItem(maximumScore: 60, scoreSum: 60, weightedDurationSum: 60))
        #expect(first.confirmedClinicalDiagnosisSummary == nil)
        #expect(first.recursiveSummary == nil)
        #expect(first.daySummary == ENExposureSummaryItem(maximumScore: 300, scoreSum: 480, weightedDurationSum: 480))
        #expect(days[1].recursiveSummary != nil)
        #expect(days[1].confirmedTestSummary == nil)
    }

    @Test("Windows with infectiousness none or an unknown report type are skipped entirely")
    func skipped() {
        var configuration = standardConfiguration()
        let none = window(infectiousness: .none, [scan(40, 300)])
        #expect(ENScoringV2.score(of: none, configuration: configuration, now: day0) == nil)
        #expect(ENScoringV2.daySummaries(for: [none], configuration: configuration, now: day0).isEmpty)

        let unknown = window(type: .unknown, [scan(40, 300)])
        configuration.reportTypeNoneMap = .unknown
        #expect(ENScoringV2.daySummaries(for: [unknown], configuration: configuration, now: day0).isEmpty)
        // reportTypeNoneMap gives an unknown type a type and its weight.
        configuration.reportTypeNoneMap = .selfReported
        configuration.reportTypeSelfReportedWeight = 50
        let days = ENScoringV2.daySummaries(for: [unknown], configuration: configuration, now: day0)
        #expect(days.first?.selfReportedSummary?.scoreSum == 180)  // 300 * 50 % = 150, rounded up to 180
        #expect(days.first?.confirmedTestSummary == nil)
        // The default maps to confirmedTest.
        let defaults = ENScoringV2.daySummaries(for: [unknown], configuration: standardConfiguration(), now: day0)
        #expect(defaults.first?.confirmedTestSummary?.scoreSum == 300)
    }

    @Test("Weighted duration counts even when the report-type weight is 0")
    func weightedDurationIgnoresWeights() {
        var configuration = standardConfiguration()
        configuration.reportTypeConfirmedTestWeight = 0
        let days = ENScoringV2.daySummaries(for: [window([scan(40, 300)])], configuration: configuration, now: day0)
        #expect(days.first?.daySummary == ENExposureSummaryItem(maximumScore: 0, scoreSum: 0, weightedDurationSum: 300))
    }

    @Test("daysSinceLastExposureThreshold keeps windows up to that many whole days old")
    func dayThreshold() {
        var configuration = standardConfiguration()
        configuration.daysSinceLastExposureThreshold = 3
        let now = day0 + 10 * 86_400 + 3600
        let windows = (5...10).map { window(date: day0 + Double($0) * 86_400, [scan(40, 60)]) }
        let days = ENScoringV2.daySummaries(for: windows, configuration: configuration, now: now)
        #expect(days.map(\.date) == (7...10).map { day0 + Double($0) * 86_400 })
        configuration.daysSinceLastExposureThreshold = 0
        #expect(ENScoringV2.daySummaries(for: windows, configuration: configuration, now: now).count == 6)
    }

    @Test("Every summary value is rounded up to a multiple of 60 s")
    func rounding() {
        var configuration = standardConfiguration()
        configuration.infectiousnessStandardWeight = 150
        let cases: [(Int, Double, Double)] = [(0, 0, 0), (1, 60, 60), (60, 60, 120), (61, 120, 120), (119, 120, 180)]
        for (seconds, weighted, score) in cases {
            let days = ENScoringV2.daySummaries(
                for: [window([scan(40, seconds)])], configuration: configuration, now: day0)
            #expect(days.first?.daySummary.weightedDurationSum == weighted, "\(seconds) s")
            #expect(days.first?.daySummary.maximumScore == score, "\(seconds) s")
        }
        // Sums are rounded after adding: 2 x 30 s is 60 s, not 120 s.
        let two = ENScoringV2.daySummaries(
            for: [window([scan(40, 30)]), window([scan(40, 30)])], configuration: standardConfiguration(), now: day0)
        #expect(two.first?.daySummary == ENExposureSummaryItem(maximumScore: 60, scoreSum: 60, weightedDurationSum: 60))
    }

    @Test("minimumRiskScore compares the score clamped to 255; minimumRiskScoreFullRange the full score")
    func minimumScores() {
        var configuration = standardConfiguration()
        configuration.minimumRiskScore = 200
        let low = window([scan(40, 180)])
        let high = window([scan(40, 1200)])
        #expect(ENScoringV2.score(of: low, configuration: configuration, now: day0) == nil)
        #expect(ENScoringV2.score(of: high, configuration: configuration, now: day0)?.score == 1200)
        configuration.minimumRiskScore = 255
        #expect(ENScoringV2.score(of: high, configuration: configuration, now: day0) != nil)
        configuration.minimumRiskScore = 0
        configuration.minimumRiskScoreFullRange = 1201
        #expect(ENScoringV2.score(of: high, configuration: configuration, now: day0) == nil)
        // A filtered window contributes no weighted duration either.
        let days = ENScoringV2.daySummaries(for: [low, high], configuration: configuration, now: day0)
        #expect(days.isEmpty)
    }

    @Test("Negative seconds since last scan count as 0")
    func negativeSeconds() {
        #expect(
            ENScoringV2.weightedDuration(
                of: window([scan(40, -60), scan(40, 60)]), configuration: standardConfiguration()) == 60)
    }

    @Test("From sightings to day summaries")
    func endToEnd() {
        var configuration = standardConfiguration()
        configuration.attenuationDurationThresholds = [50, 70]
        // 12 minutes at 45 dB (txPower 0, RSSI -45): 120 + 11 x 60 = 780 s immediate.
        let sightings = (0..<12).map { sighting(at: day0 + 3600 + Double($0 * 60), rssi: -45) }
        let windows = ENScoringV2.exposureWindows(
            from: [ENKeyMatch(key: key(), sightings: sightings)], configuration: configuration)
        let days = ENScoringV2.daySummaries(for: windows, configuration: configuration, now: day0 + 86_400)
        #expect(
            days == [
                ENExposureDaySummary(
                    date: day0,
                    daySummary: ENExposureSummaryItem(maximumScore: 780, scoreSum: 780, weightedDurationSum: 780),
                    confirmedTestSummary: ENExposureSummaryItem(
                        maximumScore: 780, scoreSum: 780, weightedDurationSum: 780))
            ])
    }
}
