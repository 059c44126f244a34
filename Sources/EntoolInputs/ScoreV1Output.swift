package import ENCore
package import ENRiskV1
import Foundation

/// The JSON shape of `entool score v1 --json`.
package struct ScoreV1Output: Encodable {
    package struct Summary: Encodable {
        package var matchedKeyCount: UInt64
        package var daysSinceLastExposure: Int
        package var maximumRiskScore: ENRiskScore
        package var maximumRiskScoreFullRange: Double
        package var riskScoreSumFullRange: Double
        package var attenuationDurations: [Double]

        /// Apple's summary properties as they are.
        package init(
            matchedKeyCount: UInt64, daysSinceLastExposure: Int, maximumRiskScore: ENRiskScore,
            maximumRiskScoreFullRange: Double, riskScoreSumFullRange: Double, attenuationDurations: [Double]
        ) {
            self.matchedKeyCount = matchedKeyCount
            self.daysSinceLastExposure = daysSinceLastExposure
            self.maximumRiskScore = maximumRiskScore
            self.maximumRiskScoreFullRange = maximumRiskScoreFullRange
            self.riskScoreSumFullRange = riskScoreSumFullRange
            self.attenuationDurations = attenuationDurations
        }
    }
    package struct Info: Encodable {
        package var date: String
        package var duration: Double
        package var attenuationValue: ENAttenuation
        package var attenuationDurations: [Double]
        package var totalRiskScore: ENRiskScore
        package var totalRiskScoreFullRange: Double
        package var transmissionRiskLevel: ENRiskLevel

        package init(_ info: ENExposureInfo) {
            date = ScoreInput.formatDay(info.date)
            duration = info.duration
            attenuationValue = info.attenuationValue
            attenuationDurations = info.attenuationDurations
            totalRiskScore = info.totalRiskScore
            totalRiskScoreFullRange = info.totalRiskScoreFullRange
            transmissionRiskLevel = info.transmissionRiskLevel
        }
    }
    package var summary: Summary
    package var exposureInfo: [Info]

    /// The output of `summary` and `exposureInfo`.
    package init(summary: Summary, exposureInfo: [Info]) {
        self.summary = summary
        self.exposureInfo = exposureInfo
    }
}

extension ScoreV1Output {
    package init(_ result: ENScoringV1.Result) {
        let s = result.summary
        summary = Summary(
            matchedKeyCount: s.matchedKeyCount, daysSinceLastExposure: s.daysSinceLastExposure,
            maximumRiskScore: s.maximumRiskScore, maximumRiskScoreFullRange: s.maximumRiskScoreFullRange,
            riskScoreSumFullRange: s.riskScoreSumFullRange, attenuationDurations: s.attenuationDurations)
        exposureInfo = result.exposureInfo.map(Info.init)
    }

    /// Prints the result for a person.
    package func printText() {
        print("matched keys               \(summary.matchedKeyCount)")
        print("days since last exposure   \(summary.daysSinceLastExposure)")
        print(
            "maximum risk score         \(summary.maximumRiskScore) (full range \(summary.maximumRiskScoreFullRange))")
        print("risk score sum (full)      \(summary.riskScoreSumFullRange)")
        print(
            "attenuation durations (s)  \(summary.attenuationDurations.map { String(Int($0)) }.joined(separator: " "))")
        for info in exposureInfo {
            print(
                "\(info.date)  duration \(Int(info.duration)) s  attenuation value \(info.attenuationValue)  "
                    + "score \(info.totalRiskScore) (full range \(info.totalRiskScoreFullRange))")
        }
    }
}
