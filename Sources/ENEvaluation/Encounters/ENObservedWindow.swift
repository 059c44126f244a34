public import ENCore
public import ENRiskV2
public import Foundation

/// An exposure window as an encounter's observation gives it: Apple's `ENExposureWindow` with the key metadata
/// left optional (the encounter or the request supplies what is missing).
public struct ENObservedWindow: Hashable, Sendable {
    /// The UTC midnight of the window's day.
    public var date: Date
    /// The window's report type, if the observation gives one.
    public var reportType: ENDiagnosisReportType?
    /// The window's infectiousness, if the observation gives one.
    public var infectiousness: ENInfectiousness?
    /// The receiver's calibration confidence.
    public var calibrationConfidence: ENCalibrationConfidence
    /// The scans; a negative `secondsSinceLastScan` counts as 0.
    public var scanInstances: [ENScanInstance]

    /// Creates a window.
    public init(
        date: Date, reportType: ENDiagnosisReportType? = nil, infectiousness: ENInfectiousness? = nil,
        calibrationConfidence: ENCalibrationConfidence = .high, scanInstances: [ENScanInstance]
    ) {
        self.date = date
        self.reportType = reportType
        self.infectiousness = infectiousness
        self.calibrationConfidence = calibrationConfidence
        self.scanInstances = scanInstances
    }
}
