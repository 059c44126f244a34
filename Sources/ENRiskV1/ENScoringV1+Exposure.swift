public import ENCore
public import Foundation

extension ENScoringV1 {
    /// One matched key's exposure as version 1 scoring sees it: a date, the key's transmission risk level and the
    /// time spent at each attenuation.
    ///
    /// Build one from a matched key with ``init(match:)``, or directly from pre-aggregated data.
    public struct Exposure: Hashable, Sendable {
        /// The day of the exposure (scoring uses whole days before "now").
        public var date: Date
        /// The key's transmission risk level; levels above 7 score as 7.
        public var transmissionRiskLevel: ENRiskLevel
        /// The time spent at each attenuation.
        public var attenuationSegments: [ENScoringV1.AttenuationSegment]
        /// The key's report type, carried through to ``ENExposureInfo``.
        public var diagnosisReportType: ENDiagnosisReportType
        /// The key's days since onset of symptoms, carried through to ``ENExposureInfo``.
        public var daysSinceOnsetOfSymptoms: Int

        /// Creates an exposure.
        public init(
            date: Date,
            transmissionRiskLevel: ENRiskLevel,
            attenuationSegments: [ENScoringV1.AttenuationSegment],
            diagnosisReportType: ENDiagnosisReportType = .unknown,
            daysSinceOnsetOfSymptoms: Int = ENDaysSinceOnsetOfSymptomsUnknown
        ) {
            self.date = date
            self.transmissionRiskLevel = transmissionRiskLevel
            self.attenuationSegments = attenuationSegments
            self.diagnosisReportType = diagnosisReportType
            self.daysSinceOnsetOfSymptoms = daysSinceOnsetOfSymptoms
        }

        /// The exposure of one matched key, or nil when the key has no sightings or is revoked (revoked keys never
        /// match).
        ///
        /// One exposure per key, as in Apple's published implementation (a newer iOS builds it from the key's
        /// 30-minute windows; the sums are the same). The date is the UTC midnight before the key's first sighting
        /// (Apple's published implementation; a newer iOS uses the key's own day, Google the key's start interval).
        /// Each scan (see `ENSightingScan`) is one segment at its typical attenuation for its
        /// `secondsSinceLastScan`.
        public init?(match: ENKeyMatch) {
            guard match.key.diagnosisReportType != .revoked else { return nil }
            let scans = match.scans
            guard let first = scans.first else { return nil }
            self.init(
                date: UTCDay.start(of: first.timestamp),
                transmissionRiskLevel: match.key.transmissionRiskLevel,
                attenuationSegments: scans.map {
                    ENScoringV1.AttenuationSegment(
                        attenuation: $0.typicalAttenuation, duration: TimeInterval($0.secondsSinceLastScan))
                },
                diagnosisReportType: match.key.diagnosisReportType,
                daysSinceOnsetOfSymptoms: match.key.daysSinceOnsetOfSymptoms)
        }
    }
}
