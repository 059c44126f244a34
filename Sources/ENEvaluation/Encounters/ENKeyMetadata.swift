public import ENCore

/// The transmitter's key as a server would have published it; every value is optional.
///
/// Precedence, per value: a window's own report type and infectiousness, then the encounter's metadata, then the
/// evaluation request's defaults (``filled(from:)``).
public struct ENKeyMetadata: Hashable, Sendable {
    /// The transmission risk level, 0...8 (V1 rules).
    public var transmissionRiskLevel: ENRiskLevel?
    /// The report type (V2 and Corona-Warn-App exposure-window rules).
    public var reportType: ENDiagnosisReportType?
    /// The infectiousness (V2 and Corona-Warn-App exposure-window rules).
    public var infectiousness: ENInfectiousness?
    /// Whole days from the exposure to "now" (histograms).
    public var daysSinceExposure: Int?

    /// Creates metadata.
    public init(
        transmissionRiskLevel: ENRiskLevel? = nil, reportType: ENDiagnosisReportType? = nil,
        infectiousness: ENInfectiousness? = nil, daysSinceExposure: Int? = nil
    ) {
        self.transmissionRiskLevel = transmissionRiskLevel
        self.reportType = reportType
        self.infectiousness = infectiousness
        self.daysSinceExposure = daysSinceExposure
    }

    /// These values, with the missing ones taken from `defaults`.
    public func filled(from defaults: ENKeyMetadata) -> ENKeyMetadata {
        ENKeyMetadata(
            transmissionRiskLevel: transmissionRiskLevel ?? defaults.transmissionRiskLevel,
            reportType: reportType ?? defaults.reportType,
            infectiousness: infectiousness ?? defaults.infectiousness,
            daysSinceExposure: daysSinceExposure ?? defaults.daysSinceExposure)
    }
}
