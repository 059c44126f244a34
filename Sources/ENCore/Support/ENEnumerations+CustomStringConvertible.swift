/// The names of Apple's cases, as `description` (Apple's Objective-C enums print their raw values; Swift code
/// reads the names).
extension ENAuthorizationStatus: CustomStringConvertible {
    /// The case's name.
    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .restricted: "restricted"
        case .notAuthorized: "notAuthorized"
        case .authorized: "authorized"
        }
    }
}

extension ENDiagnosisReportType: CustomStringConvertible {
    /// The case's name.
    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .confirmedTest: "confirmedTest"
        case .confirmedClinicalDiagnosis: "confirmedClinicalDiagnosis"
        case .selfReported: "selfReported"
        case .recursive: "recursive"
        case .revoked: "revoked"
        }
    }
}

extension ENInfectiousness: CustomStringConvertible {
    /// The case's name.
    public var description: String {
        switch self {
        case .none: "none"
        case .standard: "standard"
        case .high: "high"
        }
    }
}

extension ENCalibrationConfidence: CustomStringConvertible {
    /// The case's name.
    public var description: String {
        switch self {
        case .lowest: "lowest"
        case .low: "low"
        case .medium: "medium"
        case .high: "high"
        }
    }
}

extension ENVariantOfConcernType: CustomStringConvertible {
    /// The case's name.
    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .type1: "type1"
        case .type2: "type2"
        case .type3: "type3"
        case .type4: "type4"
        }
    }
}

extension ENExposureConfiguration: CustomStringConvertible {
    /// The type's name and its properties.
    public var description: String { ENDescription.of(self) }
}
