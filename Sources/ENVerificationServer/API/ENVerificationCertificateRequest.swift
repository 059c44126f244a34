public import Foundation

/// A device's request to exchange a token and the HMAC of its keys for a certificate (Google's
/// `VerificationCertificateRequest`, `POST /api/certificate`).
public struct ENVerificationCertificateRequest: Codable, Hashable, Sendable, GoJSONEncodable {
    /// The padding to send; `nil` sends random bytes. Ignored when received.
    public var padding: Data?
    /// The token from ``ENVerifyCodeResponse/token``.
    public var token: String
    /// The HMAC-SHA256 of the keys to publish, base64 (`ekeyhmac`), as the key server recomputes it.
    public var ekeyhmac: String

    /// Creates a request.
    public init(token: String, ekeyhmac: String, padding: Data? = nil) {
        self.token = token
        self.ekeyhmac = ekeyhmac
        self.padding = padding
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case token, ekeyhmac }

    /// Decodes Google's JSON.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        padding = nil
        token = try container.decodeIfPresent(String.self, forKey: .token) ?? ""
        ekeyhmac = try container.decodeIfPresent(String.self, forKey: .ekeyhmac) ?? ""
    }

    /// Encodes as Google's client does.
    public func encode(to encoder: any Encoder) throws { try encodeGoMembers(to: encoder) }

    var goJSONMembers: [GoJSONValue.Member] {
        [
            .init("padding", ENVerificationPadding.value(padding)), .init("token", .string(token)),
            .init("ekeyhmac", .string(ekeyhmac)),
        ]
    }
}

/// The answer to an ``ENVerificationCertificateRequest`` (Google's `VerificationCertificateResponse`): `padding`,
/// then `certificate`, `error`, `errorCode`, each omitted when empty.
public struct ENVerificationCertificateResponse: Codable, Hashable, Sendable, GoJSONEncodable {
    /// The padding to send; `nil` sends random bytes.
    public var padding: Data?
    /// The certificate (a JWT) to send to the key server as `verificationPayload`.
    public var certificate: String
    /// An error message, or empty.
    public var error: String
    /// An error code, or empty.
    public var errorCode: String

    /// Creates a response.
    public init(certificate: String = "", error: String = "", errorCode: String = "", padding: Data? = nil) {
        self.certificate = certificate
        self.error = error
        self.errorCode = errorCode
        self.padding = padding
    }

    enum CodingKeys: String, CodingKey { case certificate, error, errorCode }

    /// Decodes Google's JSON.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        padding = nil
        certificate = try container.decodeIfPresent(String.self, forKey: .certificate) ?? ""
        error = try container.decodeIfPresent(String.self, forKey: .error) ?? ""
        errorCode = try container.decodeIfPresent(String.self, forKey: .errorCode) ?? ""
    }

    /// Encodes as Google's server does.
    public func encode(to encoder: any Encoder) throws { try encodeGoMembers(to: encoder) }

    var goJSONMembers: [GoJSONValue.Member] {
        var members: [GoJSONValue.Member] = [.init("padding", ENVerificationPadding.value(padding))]
        for (name, value) in [("certificate", certificate), ("error", error), ("errorCode", errorCode)]
        where !value.isEmpty {
            members.append(.init(name, .string(value)))
        }
        return members
    }
}
