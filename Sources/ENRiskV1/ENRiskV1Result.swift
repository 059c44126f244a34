/// What version 1 scoring returns: the summary and the exposures that passed the minimum scores.
public struct ENRiskV1Result: Hashable, Sendable {
    /// The version 1 summary.
    public var summary: ENExposureDetectionSummaryV1
    /// One info per exposure that passed the minimum scores, in input order.
    public var exposureInfo: [ENExposureInfo]

    /// Creates a result.
    public init(summary: ENExposureDetectionSummaryV1, exposureInfo: [ENExposureInfo]) {
        self.summary = summary
        self.exposureInfo = exposureInfo
    }
}
