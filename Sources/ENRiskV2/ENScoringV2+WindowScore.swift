public import ENCore

extension ENScoringV2 {
    /// The unrounded version 2 score of one exposure window that passed every filter.
    public struct WindowScore: Hashable, Sendable {
        /// The report type the window counts under, after `ENExposureConfiguration.reportTypeNoneMap`.
        public var reportType: ENDiagnosisReportType
        /// Σ seconds × attenuation-bucket weight / 100, in seconds.
        public var weightedDuration: Double
        /// weightedDuration × report-type weight / 100 × infectiousness weight / 100.
        public var score: Double

        /// Creates a score.
        public init(reportType: ENDiagnosisReportType, weightedDuration: Double, score: Double) {
            self.reportType = reportType
            self.weightedDuration = weightedDuration
            self.score = score
        }
    }
}
