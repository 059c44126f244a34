internal import ENCrypto
internal import Foundation

extension ENVerificationService {
    /// Exchanges a code for a token (Google's `/api/verify`): the `accept` list (400 `invalid_test_type`), the
    /// nonce (400 `unparsable_request` when not base64), then the atomic claim: unknown or used 400
    /// `code_invalid`, expired 400 `code_expired`, a type the app does not accept 412 `unsupported_test_type`
    /// (the code stays usable).
    public func verify(_ request: ENVerifyCodeRequest) async -> Result<ENVerifyCodeResponse, ENVerificationAPIError> {
        let now = clock()
        let accepted: ENVerificationAcceptedTypes
        do throws(ENVerificationAPIError) {
            accepted = try ENVerificationAcceptedTypes(accept: request.accept)
        } catch {
            return .failure(error)
        }
        if !request.nonce.isEmpty, ENVerificationAPIKey.decodeBase64(request.nonce) == nil {
            return .failure(
                ENVerificationAPIError(status: 400, message: "illegal base64 data in nonce", code: .unparsableRequest))
        }
        let claim: ENVerificationCodeClaim
        do {
            let tokenID = Self.rawStandardBase64(try SecureRandom.bytes(count: Self.tokenIDByteCount))
            claim = try await storage.claimCode(
                hmacs: secrets.codeHMACs(request.code), accepting: accepted.types, now: now, tokenID: tokenID,
                tokenExpiresAt: now.addingTimeInterval(configuration.tokenDuration))
        } catch {
            return .failure(.internalError)
        }
        switch claim {
        case .notFound, .used:
            return .failure(
                ENVerificationAPIError(status: 400, message: "verification code invalid", code: .codeInvalid))
        case .expired:
            return .failure(
                ENVerificationAPIError(status: 400, message: "verification code expired", code: .codeExpired))
        case .unsupportedTestType:
            return .failure(
                ENVerificationAPIError(
                    status: 412, message: "verification code has unsupported test type", code: .unsupportedTestType))
        case .claimed(let token):
            let claims = ENVerificationTokenClaims(
                audience: configuration.tokenIssuer,
                expiresAt: Self.unix(now.addingTimeInterval(configuration.tokenDuration)),
                tokenID: token.tokenID, issuedAt: Self.unix(now), issuer: configuration.tokenIssuer,
                subject: token.subject.description)
            do {
                let jwt = try ENVerificationJWT.sign(
                    claims: claims.goJSONMembers, keyID: configuration.tokenKeyID, key: tokenKey)
                return .success(
                    ENVerifyCodeResponse(
                        testType: token.subject.testType.rawValue,
                        symptomDate: token.subject.symptomDate?.description ?? "",
                        testDate: token.subject.testDate?.description ?? "", token: jwt))
            } catch {
                return .failure(ENVerificationAPIError(status: 400, message: "\(error)", code: .internalServerError))
            }
        }
    }

    /// Google's `tokenBytes`: a token ID is 96 random bytes.
    static let tokenIDByteCount = 96

    /// Go's `base64.RawStdEncoding`.
    static func rawStandardBase64(_ data: Data) -> String {
        var text = data.base64EncodedString()
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }
}
