public import ENCore
internal import Foundation

/// A test type of Google's verification server, which becomes the certificate's `reportType`.
public enum ENVerificationTestType: String, CaseIterable, Hashable, Sendable, Codable {
    /// A confirmed test (`CONFIRMED_TEST` in export files).
    case confirmed
    /// A clinical diagnosis (`CONFIRMED_CLINICAL_DIAGNOSIS`).
    case likely
    /// A negative test, which revokes keys published before (`REVOKED`).
    case negative
    /// A user's own report (`SELF_REPORT`).
    case userReport = "user-report"

    /// The report type the key server gives the keys of a certificate of this type.
    public var reportType: ENDiagnosisReportType {
        switch self {
        case .confirmed: .confirmedTest
        case .likely: .confirmedClinicalDiagnosis
        case .negative: .revoked
        case .userReport: .selfReported
        }
    }

    /// Reads a type as Google's realm does (`ValidTestType`): lower-cased, spaces trimmed.
    public init?(lenient text: String) {
        self.init(rawValue: text.lowercased().trimmingCharacters(in: .whitespaces))
    }
}

/// The `accept` list of a verify request as Google reads it (`GetAcceptedTestTypes`): empty accepts every type;
/// otherwise each entry, lower-cased, adds itself and the types below it in `confirmed` < `likely` < `negative`,
/// and `user-report` adds itself and `confirmed`.
public struct ENVerificationAcceptedTypes: Hashable, Sendable {
    /// The types accepted.
    public var types: Set<ENVerificationTestType>

    /// Reads an `accept` list.
    ///
    /// - Throws: ``ENVerificationAPIError`` 400 `invalid_test_type` for an entry that is not a test type.
    public init(accept: [String]) throws(ENVerificationAPIError) {
        guard !accept.isEmpty else {
            types = Set(ENVerificationTestType.allCases)
            return
        }
        var types: Set<ENVerificationTestType> = []
        for entry in accept {
            let lowered = entry.lowercased()
            switch ENVerificationTestType(rawValue: lowered) {
            case .confirmed: types.insert(.confirmed)
            case .likely: types.formUnion([.confirmed, .likely])
            case .negative: types.formUnion([.confirmed, .likely, .negative])
            case .userReport: types.formUnion([.confirmed, .userReport])
            case nil:
                throw ENVerificationAPIError(
                    status: 400, message: "invalid accepted test type: \(lowered)", code: .invalidTestType)
            }
        }
        self.types = types
    }

    /// Whether a code of `type` may be given to the app.
    public func contains(_ type: ENVerificationTestType) -> Bool { types.contains(type) }
}
