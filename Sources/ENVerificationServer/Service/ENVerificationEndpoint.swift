/// A route of Google's verification API: the device API's two and the admin API's four, all `POST`.
public enum ENVerificationEndpoint: String, CaseIterable, Hashable, Sendable {
    /// `POST /api/verify`: a code for a token (device keys).
    case verify = "/api/verify"
    /// `POST /api/certificate`: a token and an HMAC for a certificate (device keys).
    case certificate = "/api/certificate"
    /// `POST /api/issue`: a code (admin keys).
    case issue = "/api/issue"
    /// `POST /api/batch-issue`: up to 10 codes (admin keys).
    case batchIssue = "/api/batch-issue"
    /// `POST /api/checkcodestatus`: a code's status (admin keys).
    case checkCodeStatus = "/api/checkcodestatus"
    /// `POST /api/expirecode`: expire a code (admin keys).
    case expireCode = "/api/expirecode"

    /// The path.
    public var path: String { rawValue }

    /// The type of API key the route admits.
    public var apiKeyType: ENVerificationAPIKeyType {
        switch self {
        case .verify, .certificate: .device
        case .issue, .batchIssue, .checkCodeStatus, .expireCode: .admin
        }
    }

    /// Whether the route answers chaff requests (`X-Chaff`): the device routes.
    public var answersChaff: Bool { apiKeyType == .device }
}
