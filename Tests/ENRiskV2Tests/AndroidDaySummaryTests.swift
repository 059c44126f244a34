import ENCore
import ENRiskV2
import Foundation
import Testing

/// Google's day summaries (`DailySummaryUtils.java` in google/exposure-notifications-internals) keep the doubles;
/// Apple rounds every value up to the minute.
@Suite("Version 2 on Android")
struct AndroidDaySummaryTests {
    @Test("Day values are not rounded: 870 s stays 870 s (Apple: 900 s)")
    func notRounded() {
        var configuration = standardConfiguration()
        configuration.infectiousnessStandardWeight = 150
        // 580 s at 40 dB (immediate, 100 %): weighted 580 s, score 580 × 1.5 = 870 s; a second window adds 30 s.
        let windows = [window([scan(40, 580)]), window([scan(40, 30)])]
        let apple = ENScoringV2.daySummaries(for: windows, configuration: configuration, now: day0)
        let android = ENScoringV2.daySummaries(
            for: windows, configuration: configuration, now: day0, platform: .android)
        #expect(
            apple.first?.daySummary == ENExposureSummaryItem(maximumScore: 900, scoreSum: 960, weightedDurationSum: 660)
        )
        #expect(
            android.first?.daySummary
                == ENExposureSummaryItem(maximumScore: 870, scoreSum: 915, weightedDurationSum: 610))
        #expect(android.first?.confirmedTestSummary == android.first?.daySummary)
        #expect(
            ENScoringV2.daySummaries(for: windows, configuration: configuration, now: day0, platform: .apple) == apple)
    }
}
