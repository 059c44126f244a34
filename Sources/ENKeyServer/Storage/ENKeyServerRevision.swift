public import ENCore
public import Foundation

/// The revision of a stored key: its new report type and days since onset, and when it may be exported.
public struct ENKeyServerRevision: Hashable, Sendable {
    /// The key data of the stored key.
    public var keyData: Data
    /// The revised report type.
    public var reportType: ENDiagnosisReportType
    /// The revised days since onset of symptoms, or `ENDaysSinceOnsetOfSymptomsUnknown`.
    public var daysSinceOnsetOfSymptoms: Int
    /// The time from which the revision may be exported (the revising request's `created_at`).
    public var revisedAt: Date
    /// The key's regions after the revision: its stored regions and the revising request's (Google's
    /// `AddMissingRegions`); empty to leave the stored regions as they are.
    public var regions: [String]

    /// Creates a revision.
    public init(
        keyData: Data, reportType: ENDiagnosisReportType, daysSinceOnsetOfSymptoms: Int, revisedAt: Date,
        regions: [String] = []
    ) {
        self.keyData = keyData
        self.reportType = reportType
        self.daysSinceOnsetOfSymptoms = daysSinceOnsetOfSymptoms
        self.revisedAt = revisedAt
        self.regions = regions
    }
}
