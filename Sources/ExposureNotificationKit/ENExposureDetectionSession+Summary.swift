public import ENRiskV1

// The one place that decides what the session's summary is. Today: the version 1 fields of Apple's
// `ENExposureDetectionSummary` (`ENScoringV1.Summary`). When the facade's `ENExposureDetectionSummary` (one type
// with Apple's V1 and V2 properties) exists, point `Summary` at it and build it in `summary(_:)`; nothing else in
// the session names the type.
extension ENExposureDetectionSession {
    /// What ``ENExposureDetectionSession/finishedDiagnosisKeys()`` returns: the version 1 summary of Apple's
    /// `ENExposureDetectionSummary` (matched key count, days since the last exposure, maximum risk score, ...).
    public typealias Summary = ENScoringV1.Summary

    /// The session's summary from version 1 scoring's.
    static func summary(_ scored: ENScoringV1.Summary) -> Summary { scored }
}
