extension ENScoringV1 {
    /// What version 1 scoring returns: the summary and the exposures that passed the minimum scores.
    public struct Result: Hashable, Sendable {
        /// The version 1 summary.
        public var summary: ENScoringV1.Summary
        /// One info per exposure that passed the minimum scores, in input order.
        public var exposureInfo: [ENExposureInfo]

        /// Creates a result.
        public init(summary: ENScoringV1.Summary, exposureInfo: [ENExposureInfo]) {
            self.summary = summary
            self.exposureInfo = exposureInfo
        }
    }
}
