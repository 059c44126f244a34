package import ENCore
package import Foundation

/// A verification certificate read as Google's server reads it with golang-jwt v3
/// (`ParseWithClaims` into `VerificationClaims`): three base64url segments, a JSON header and JSON claims.
/// Package-visible for the fuzz targets.
package struct VerificationCertificate: Equatable {
    /// The header's `alg`.
    package var algorithm: String?
    /// The header's `kid`, when it is a string.
    package var keyID: String?
    /// Whether the header has a `kid` at all.
    package var hasKeyID = false
    /// `iss`.
    package var issuer = ""
    /// `aud`.
    package var audience = ""
    /// `exp` in Unix seconds (0 when absent, as Go's zero value).
    package var expiresAt: Int64 = 0
    /// `iat` in Unix seconds (0 when absent).
    package var issuedAt: Int64 = 0
    /// `nbf` in Unix seconds (0 when absent).
    package var notBefore: Int64 = 0
    /// `reportType`.
    package var reportType = ""
    /// `symptomOnsetInterval`.
    package var symptomOnsetInterval: UInt32 = 0
    /// `tekmac`.
    package var tekmac = ""
    /// `header.claims`, what the signature covers.
    package var signingInput: Data
    /// The decoded signature segment.
    package var signature: Data

    /// Parses a JWT.
    ///
    /// - Throws: `ENError.Code.badFormat` when it is not three segments of base64url, the header is not a
    ///   JSON object, or a claim has the wrong JSON type (golang-jwt's `ValidationErrorMalformed`).
    package init(_ text: String) throws(ENError) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw .badFormat(
                "token contains an invalid number of segments", context: .init(field: "verificationPayload"))
        }
        signingInput = Data("\(parts[0]).\(parts[1])".utf8)
        let header = try Self.segment(parts[0], "header")
        let claims = try Self.segment(parts[1], "claims")
        signature = try Self.segment(parts[2], "signature")

        // json.Unmarshal: one object, nothing but spaces after it.
        guard case .value(.object(let headerFields), let end) = GoJSON.firstValue(in: Array(header)),
            header.dropFirst(end).allSatisfy(GoJSON.isSpace)
        else {
            throw .badFormat("the header is not a JSON object", context: .init(field: "header"))
        }
        for (name, value) in headerFields {
            switch name {
            case "alg": if case .string(let text) = value { algorithm = text } else { algorithm = nil }
            case "kid":
                hasKeyID = true
                if case .string(let text) = value { keyID = text } else { keyID = nil }
            default: break
            }
        }

        // The claims: json.Decoder reads the first value; unknown fields are allowed, names match
        // case-insensitively, and a wrong type fails the token.
        guard case .value(let value, _) = GoJSON.firstValue(in: Array(claims)) else {
            throw .badFormat("the claims are not JSON", context: .init(field: "claims"))
        }
        switch value {
        case .null: break
        case .object(let entries):
            for (name, value) in entries {
                switch Fields.match(name, in: Self.claimNames) {
                case "aud": audience = try Self.string(value, "aud")
                case "iss": issuer = try Self.string(value, "iss")
                case "jti", "sub": _ = try Self.string(value, name)
                case "exp": expiresAt = try Self.integer(value, "exp", Int64.self)
                case "iat": issuedAt = try Self.integer(value, "iat", Int64.self)
                case "nbf": notBefore = try Self.integer(value, "nbf", Int64.self)
                case "reportType": reportType = try Self.string(value, "reportType")
                case "symptomOnsetInterval":
                    symptomOnsetInterval = try Self.integer(value, "symptomOnsetInterval", UInt32.self)
                case "tekmac": tekmac = try Self.string(value, "tekmac")
                default: break
                }
            }
        default:
            throw .badFormat("the claims are not a JSON object", context: .init(field: "claims"))
        }
    }

    private static let claimNames = [
        "aud", "exp", "jti", "iat", "iss", "nbf", "sub", "reportType", "symptomOnsetInterval", "tekmac",
    ]

    /// golang-jwt v3's `DecodeSegment`: padding restored, then Go's `base64.URLEncoding` (URL alphabet only).
    private static func segment(_ text: Substring, _ name: String) throws(ENError) -> Data {
        var padded = String(text)
        if padded.utf8.count % 4 != 0 { padded += String(repeating: "=", count: 4 - padded.utf8.count % 4) }
        let bytes = Array(padded.utf8).filter { $0 != 0x0A && $0 != 0x0D }
        let body = bytes.prefix { $0 != UInt8(ascii: "=") }
        let padding = bytes.count - body.count
        guard bytes.count % 4 == 0, padding <= 2, bytes.suffix(padding).allSatisfy({ $0 == UInt8(ascii: "=") }),
            !body.contains(UInt8(ascii: "+")), !body.contains(UInt8(ascii: "/")),
            case .success(let data) = GoBase64.decode(String(decoding: body, as: UTF8.self))
        else {
            throw .badFormat("the \(name) segment is not base64url", context: .init(field: name))
        }
        return data
    }

    private static func string(_ value: GoJSON.Value, _ name: String) throws(ENError) -> String {
        switch value {
        case .null: return ""
        case .string(let text): return text
        default:
            throw .badFormat("the claim \(name) must be a string, found \(value.kind)", context: .init(field: name))
        }
    }

    private static func integer<T: FixedWidthInteger>(
        _ value: GoJSON.Value, _ name: String, _ type: T.Type
    ) throws(ENError) -> T {
        switch value {
        case .null: return 0
        case .number(let literal):
            guard let parsed = T(literal) else {
                throw .badFormat("the claim \(name) must be an integer, found \(literal)", context: .init(field: name))
            }
            return parsed
        default:
            throw .badFormat("the claim \(name) must be a number, found \(value.kind)", context: .init(field: name))
        }
    }
}
