import ENCore
package import ENRiskV2

/// The JSON shape of `entool score v2 --json`; absent per-type items print as `null`.
package struct ScoreV2Output: Encodable {
    package struct Item: Encodable {
        package var maximumScore: Double
        package var scoreSum: Double
        package var weightedDurationSum: Double

        package init(_ item: ENExposureSummaryItem) {
            maximumScore = item.maximumScore
            scoreSum = item.scoreSum
            weightedDurationSum = item.weightedDurationSum
        }
    }
    package struct Day: Encodable {
        package var date: String
        package var daySummary: Item
        package var confirmedTestSummary: Item?
        package var confirmedClinicalDiagnosisSummary: Item?
        package var selfReportedSummary: Item?
        package var recursiveSummary: Item?

        package init(_ summary: ENExposureDaySummary) {
            date = ScoreInput.formatDay(summary.date)
            daySummary = Item(summary.daySummary)
            confirmedTestSummary = summary.confirmedTestSummary.map(Item.init)
            confirmedClinicalDiagnosisSummary = summary.confirmedClinicalDiagnosisSummary.map(Item.init)
            selfReportedSummary = summary.selfReportedSummary.map(Item.init)
            recursiveSummary = summary.recursiveSummary.map(Item.init)
        }

        package enum CodingKeys: String, CodingKey {
            case date, daySummary, confirmedTestSummary, confirmedClinicalDiagnosisSummary, selfReportedSummary
            case recursiveSummary
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(date, forKey: .date)
            try container.encode(daySummary, forKey: .daySummary)
            try container.encode(confirmedTestSummary, forKey: .confirmedTestSummary)
            try container.encode(confirmedClinicalDiagnosisSummary, forKey: .confirmedClinicalDiagnosisSummary)
            try container.encode(selfReportedSummary, forKey: .selfReportedSummary)
            try container.encode(recursiveSummary, forKey: .recursiveSummary)
        }
    }
    package var daySummaries: [Day]

    /// The output of `daySummaries`.
    package init(daySummaries: [Day]) {
        self.daySummaries = daySummaries
    }
}

extension ScoreV2Output {
    package init(_ summaries: [ENExposureDaySummary]) {
        daySummaries = summaries.map(Day.init)
    }

    /// Prints the day summaries for a person.
    package func printText() {
        if daySummaries.isEmpty { print("no scored windows") }
        for day in daySummaries {
            let item = day.daySummary
            print(
                "\(day.date)  maximum score \(Int(item.maximumScore)) s  score sum \(Int(item.scoreSum)) s  "
                    + "weighted duration \(Int(item.weightedDurationSum)) s")
        }
    }
}
