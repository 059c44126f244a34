public import ENCore
public import Foundation

/// Up to 30 minutes during which advertisements of one diagnosis key were received (Apple's `ENExposureWindow`).
public struct ENExposureWindow: Hashable, Sendable, Codable {
    /// The receiving device's calibration confidence (the lowest during the window).
    public var calibrationConfidence: ENCalibrationConfidence
    /// The UTC midnight that starts the day of the window's first scan.
    public var date: Date
    /// The key's report type after `ENExposureConfiguration.reportTypeNoneMap`.
    public var diagnosisReportType: ENDiagnosisReportType
    /// The key's infectiousness from its days since onset of symptoms and the configuration.
    public var infectiousness: ENInfectiousness
    /// The window's scans, in time order.
    public var scanInstances: [ENScanInstance]
    /// The key's variant of concern.
    public var variantOfConcernType: ENVariantOfConcernType

    /// Creates a window.
    public init(
        calibrationConfidence: ENCalibrationConfidence = .high,
        date: Date,
        diagnosisReportType: ENDiagnosisReportType,
        infectiousness: ENInfectiousness,
        scanInstances: [ENScanInstance],
        variantOfConcernType: ENVariantOfConcernType = .unknown
    ) {
        self.calibrationConfidence = calibrationConfidence
        self.date = date
        self.diagnosisReportType = diagnosisReportType
        self.infectiousness = infectiousness
        self.scanInstances = scanInstances
        self.variantOfConcernType = variantOfConcernType
    }

    /// The longest a window lasts: a scan at or after 1800 s past the window's first scan starts a new one.
    public static let maximumDuration: TimeInterval = 1800
}
