public import ENCore

/// What a verified certificate says about the diagnosis behind a publish request.
public struct ENVerifiedClaims: Hashable, Sendable {
    /// The report type given to every key: `ENDiagnosisReportType.confirmedTest` (Google's `confirmed`),
    /// `ENDiagnosisReportType.confirmedClinicalDiagnosis` (`likely`), `ENDiagnosisReportType.revoked`
    /// (`negative`), `ENDiagnosisReportType.selfReported` (`user-report`), or
    /// `ENDiagnosisReportType.unknown` for none.
    public var reportType: ENDiagnosisReportType
    /// The certificate's symptom onset interval, 0 when absent.
    public var symptomOnsetInterval: UInt32

    /// Creates claims.
    public init(reportType: ENDiagnosisReportType, symptomOnsetInterval: UInt32 = 0) {
        self.reportType = reportType
        self.symptomOnsetInterval = symptomOnsetInterval
    }
}
