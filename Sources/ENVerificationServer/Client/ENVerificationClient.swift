internal import ENCore
internal import ENCrypto
public import ENKeyServer
public import Foundation

/// An app's side of Google's verification protocol: exchange the code the health authority gave the user for a
/// token, then the token and the HMAC of the keys to publish for a certificate, which goes to the key server with
/// the HMAC's key (`verificationPayload` and `hmacKey` of the publish request).
///
/// ```swift
/// let client = ENVerificationClient(apiKey: deviceAPIKey, transport: transport)
/// let verified = try await client.verify(code: code)
/// let certified = try await client.certificate(token: verified.token, keys: keys)
/// publishRequest.verificationPayload = certified.certificate
/// publishRequest.hmacKey = certified.hmacKey
/// ```
public struct ENVerificationClient: Sendable {
    /// The app's device API key.
    public var apiKey: String
    /// How the server is reached.
    public var transport: any ENVerificationTransport

    /// Creates a client.
    public init(apiKey: String, transport: any ENVerificationTransport) {
        self.apiKey = apiKey
        self.transport = transport
    }

    /// A certificate and the key of the HMAC it certifies.
    public struct Certificate: Hashable, Sendable {
        /// The certificate, the publish request's `verificationPayload`.
        public var certificate: String
        /// The HMAC key, base64, the publish request's `hmacKey`.
        public var hmacKey: String
    }

    /// Exchanges `code` for a token.
    ///
    /// - Parameters:
    ///   - code: the short or the long code.
    ///   - accept: the test types the app handles (empty: all, as Google's `accept`).
    /// - Throws: ``ENVerificationAPIError`` with the server's status and code (`code_invalid`, `code_expired`,
    ///   `unsupported_test_type`, …); the transport's error.
    public func verify(code: String, accept: [ENVerificationTestType] = []) async throws -> ENVerifyCodeResponse {
        let request = ENVerifyCodeRequest(code: code, accept: accept.map(\.rawValue))
        return try await post(.verify, request.jsonData, as: ENVerifyCodeResponse.self)
    }

    /// Exchanges `token` and the HMAC of `keys` for a certificate.
    ///
    /// - Parameters:
    ///   - token: the token from ``verify(code:accept:)``.
    ///   - keys: the keys the app will publish, exactly as it will send them.
    ///   - hmacKey: the HMAC's key; 32 fresh random bytes when `nil`.
    /// - Throws: `ENError.Code.badParameter` for no keys; ``ENVerificationAPIError`` with the server's status and
    ///   code (`token_invalid`, `token_expired`, `hmac_invalid`, …); the transport's error.
    public func certificate(token: String, keys: [ENPublishExposureKey], hmacKey: Data? = nil) async throws
        -> Certificate
    {
        guard !keys.isEmpty else { throw ENError.badParameter("cannot calculate hmac on empty exposure keys") }
        let secret = try hmacKey ?? SecureRandom.bytes(count: 32)
        let mac = Self.exposureKeyHMAC(of: keys, key: secret)
        let request = ENVerificationCertificateRequest(token: token, ekeyhmac: mac.base64EncodedString())
        let response = try await post(.certificate, request.jsonData, as: ENVerificationCertificateResponse.self)
        return Certificate(certificate: response.certificate, hmacKey: secret.base64EncodedString())
    }

    /// The HMAC-SHA256 of `keys` as Google's protocol defines it (`CalculateExposureKeyHMAC`): the keys sorted by
    /// their base64 text, each written `key.rollingStartNumber.rollingPeriod.transmissionRisk`, joined with `,`.
    public static func exposureKeyHMAC(of keys: [ENPublishExposureKey], key: Data) -> Data {
        let text = keys.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }
            .map { "\($0.key).\($0.rollingStartNumber).\($0.rollingPeriod).\($0.transmissionRisk)" }
            .joined(separator: ",")
        return HMAC.authenticationCode(for: Data(text.utf8), using: key)
    }

    /// Sends a chaff request to `endpoint` (Google's clients send them now and then, so that real requests do not
    /// stand out); the answer is not read.
    public func sendChaff(to endpoint: ENVerificationEndpoint) async throws {
        let body =
            endpoint == .certificate
            ? ENVerificationCertificateRequest(token: "", ekeyhmac: "").jsonData
            : ENVerifyCodeRequest(code: "").jsonData
        _ = try await transport.post(endpoint, apiKey: apiKey, body: body, chaff: true)
    }

    /// Google's `ErrorReturn`, as read back.
    private struct ErrorBody: Decodable {
        var error: String?
        var errorCode: String?
    }

    private func post<Response: Decodable>(_ endpoint: ENVerificationEndpoint, _ body: Data, as type: Response.Type)
        async throws -> Response
    {
        let answer = try await transport.post(endpoint, apiKey: apiKey, body: body, chaff: false)
        guard answer.status == 200 else {
            let returned = try? JSONDecoder().decode(ErrorBody.self, from: answer.body)
            throw ENVerificationAPIError(
                status: answer.status, message: returned?.error ?? "HTTP \(answer.status)",
                code: returned?.errorCode.flatMap { $0.isEmpty ? nil : ENVerificationErrorCode(rawValue: $0) })
        }
        do {
            return try JSONDecoder().decode(type, from: answer.body)
        } catch {
            throw ENError.badFormat("the verification server's answer is not its JSON: \(error)")
        }
    }
}
