/// An `errorCode` of Google's verification API (`pkg/api/api.go`), its raw value the string on the wire.
public struct ENVerificationErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The code as it appears in `errorCode` and `error_code`.
    public var rawValue: String

    /// A code with any raw value (a newer server may send codes this build does not name).
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The raw value.
    public var description: String { rawValue }

    /// The request could not be parsed.
    public static let unparsableRequest = Self(rawValue: "unparsable_request")
    /// A server-side failure.
    public static let internalServerError = Self(rawValue: "internal_server_error")
    /// The code is unknown or already used (Google answers this for an unknown code too).
    public static let codeInvalid = Self(rawValue: "code_invalid")
    /// The code is known but expired.
    public static let codeExpired = Self(rawValue: "code_expired")
    /// No code has the UUID (check-status and expire).
    public static let codeNotFound = Self(rawValue: "code_not_found")
    /// The API key did not issue the code and is not an admin key.
    public static let codeUserUnauthorized = Self(rawValue: "code_user_unauthorized")
    /// The code's test type is not in the client's `accept` list (412), or the realm does not allow the type (400).
    public static let unsupportedTestType = Self(rawValue: "unsupported_test_type")
    /// A test type this server does not know.
    public static let invalidTestType = Self(rawValue: "invalid_test_type")
    /// The realm requires a date and none was given.
    public static let missingDate = Self(rawValue: "missing_date")
    /// A date outside the allowed range.
    public static let invalidDate = Self(rawValue: "invalid_date")
    /// The `uuid` of an issue request is taken.
    public static let uuidAlreadyExists = Self(rawValue: "uuid_already_exists")
    /// The server is read-only for maintenance.
    public static let maintenanceMode = Self(rawValue: "maintenance_mode")
    /// The realm's daily quota is used up.
    public static let quotaExceeded = Self(rawValue: "quota_exceeded")
    /// The token is not a valid token of this server.
    public static let tokenInvalid = Self(rawValue: "token_invalid")
    /// The token is expired, used, unknown, or its subject changed (Google answers all four with this code).
    public static let tokenExpired = Self(rawValue: "token_expired")
    /// `ekeyhmac` is not base64 or not 32 bytes.
    public static let hmacInvalid = Self(rawValue: "hmac_invalid")
}
