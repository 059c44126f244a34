/// The kind of diagnosis behind a shared key, with Apple's raw values (the export file's `ReportType`).
public enum ENDiagnosisReportType: UInt32, Hashable, Sendable, CaseIterable, Codable {
    /// No report type; never returned by the API, mapped through `reportTypeNoneMap` when scoring.
    case unknown = 0
    /// A confirmed test.
    case confirmedTest = 1
    /// A confirmed clinical diagnosis.
    case confirmedClinicalDiagnosis = 2
    /// A self report.
    case selfReported = 3
    /// Recursive: reserved for future use; iOS does not match keys with this type.
    case recursive = 4
    /// Revoked: cancels an earlier report of the same key. Revoked keys never match.
    case revoked = 5
}
