package import ENCore

extension ENScoringV2 {
    /// What version 2 scoring reads of a configuration, as plain values: read once and then used for any number
    /// of windows without touching the configuration's arrays and dictionaries (no reference counting).
    ///
    /// Every window score goes through these values: ``ENScoringV2/score(of:configuration:now:)`` reads them
    /// from its configuration, and so does evaluation against many configurations.
    package struct Parameters: Sendable {
        /// The bucket thresholds: `ENExposureConfiguration`'s effective attenuation thresholds.
        package var thresholds: (ENAttenuation, ENAttenuation, ENAttenuation)
        /// The bucket weights divided by 100: immediate, near, medium, other.
        package var durationFactors: (Double, Double, Double, Double)
        /// The report type that unknown ones are scored as.
        package var reportTypeNoneMap: ENDiagnosisReportType
        /// The report-type weights (percent): confirmed test, confirmed clinical diagnosis, self-reported,
        /// recursive.
        package var reportTypeWeights: (Double, Double, Double, Double)
        /// The infectiousness weights (percent): standard, high.
        package var infectiousnessWeights: (Double, Double)
        /// Windows whose clamped score is below this are skipped.
        package var minimumRiskScore: ENRiskScore
        /// Windows whose score is below this are skipped.
        package var minimumRiskScoreFullRange: Double
        /// Windows more whole days old than this are skipped, when it is at least 1.
        package var daysSinceLastExposureThreshold: Int

        /// Reads a configuration's version 2 values.
        package init(_ configuration: ENExposureConfiguration) {
            thresholds = configuration.effectiveAttenuationThresholds
            durationFactors = (
                configuration.durationWeight(for: .immediate) / 100, configuration.durationWeight(for: .near) / 100,
                configuration.durationWeight(for: .medium) / 100, configuration.durationWeight(for: .other) / 100
            )
            reportTypeNoneMap = configuration.reportTypeNoneMap
            reportTypeWeights = (
                configuration.reportTypeWeight(for: .confirmedTest),
                configuration.reportTypeWeight(for: .confirmedClinicalDiagnosis),
                configuration.reportTypeWeight(for: .selfReported), configuration.reportTypeWeight(for: .recursive)
            )
            infectiousnessWeights = (
                configuration.infectiousnessWeight(for: .standard), configuration.infectiousnessWeight(for: .high)
            )
            minimumRiskScore = configuration.minimumRiskScore
            minimumRiskScoreFullRange = configuration.minimumRiskScoreFullRange
            daysSinceLastExposureThreshold = configuration.daysSinceLastExposureThreshold
        }

        /// Filter 1: whether a window `wholeDays` before now is recent enough (always, when the threshold is
        /// below 1).
        package func admits(wholeDaysBeforeNow wholeDays: Int) -> Bool {
            daysSinceLastExposureThreshold < 1 || wholeDays <= daysSinceLastExposureThreshold
        }

        /// Filter 2: the report type a window is scored under, or nil when it is skipped (infectiousness none,
        /// or a report type still unknown after mapping).
        package func scoredReportType(
            _ reportType: ENDiagnosisReportType, infectiousness: ENInfectiousness
        ) -> ENDiagnosisReportType? {
            let mapped = ENExposureConfiguration.mappedReportType(reportType, reportTypeNoneMap: reportTypeNoneMap)
            guard infectiousness != .none, mapped != .unknown else { return nil }
            return mapped
        }

        /// The attenuation-weighted duration of bucket seconds: Σ seconds × weight / 100, summed immediate
        /// first (Apple's order: seconds are summed per bucket before the weight is applied).
        package func weightedDuration(_ seconds: BucketSeconds) -> Double {
            Double(seconds.immediate) * durationFactors.0 + Double(seconds.near) * durationFactors.1
                + Double(seconds.medium) * durationFactors.2 + Double(seconds.other) * durationFactors.3
        }

        /// Scores a window that passed filters 1 and 2 (``scoredReportType(_:infectiousness:)`` gave
        /// `reportType`) from its seconds per bucket, or returns nil when filter 3 (the minimum scores) skips it.
        package func score(
            _ seconds: BucketSeconds, reportType: ENDiagnosisReportType, infectiousness: ENInfectiousness
        ) -> WindowScore? {
            let weighted = weightedDuration(seconds)
            let score = (reportTypeWeight(reportType) / 100) * ((infectiousnessWeight(infectiousness) / 100) * weighted)
            let clamped = ENRiskScore(clamping: Int(max(0, min(255, score.rounded(.down)))))
            guard clamped >= minimumRiskScore, score >= minimumRiskScoreFullRange else { return nil }
            return WindowScore(reportType: reportType, weightedDuration: weighted, score: score)
        }

        /// The weight of a report type, in percent (as `ENExposureConfiguration.reportTypeWeight(for:)`).
        package func reportTypeWeight(_ type: ENDiagnosisReportType) -> Double {
            switch type {
            case .confirmedTest: reportTypeWeights.0
            case .confirmedClinicalDiagnosis: reportTypeWeights.1
            case .selfReported: reportTypeWeights.2
            case .recursive: reportTypeWeights.3
            case .unknown, .revoked: 0
            }
        }

        /// The weight of an infectiousness, in percent (as `ENExposureConfiguration.infectiousnessWeight(for:)`).
        package func infectiousnessWeight(_ infectiousness: ENInfectiousness) -> Double {
            switch infectiousness {
            case .none: 0
            case .standard: infectiousnessWeights.0
            case .high: infectiousnessWeights.1
            }
        }
    }
}
