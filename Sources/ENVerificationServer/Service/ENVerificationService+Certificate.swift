internal import Foundation

extension ENVerificationService {
    /// Exchanges a token and the HMAC of the app's keys for a certificate (Google's `/api/certificate`): the
    /// token (400 `token_invalid`), `ekeyhmac` (400 `hmac_invalid` unless 32 bytes of base64), the certificate
    /// signed, then the token claimed atomically (unknown, expired, used or changed: 400 `token_expired`).
    public func certificate(_ request: ENVerificationCertificateRequest) async
        -> Result<ENVerificationCertificateResponse, ENVerificationAPIError>
    {
        let now = clock()
        let nowSeconds = Self.unix(now)
        func invalid(_ message: String) -> Result<ENVerificationCertificateResponse, ENVerificationAPIError> {
            .failure(ENVerificationAPIError(status: 400, message: message, code: .tokenInvalid))
        }
        guard
            let verified = try? ENVerificationJWT.verify(
                request.token, keys: [configuration.tokenKeyID: tokenVerifyingKey]),
            let claims = ENVerificationTokenClaims(json: verified.claims)
        else { return invalid("invalid verification token") }
        guard claims.isValid(at: nowSeconds) else { return invalid("verification token expired") }
        guard claims.issuer == configuration.tokenIssuer, claims.audience == configuration.tokenIssuer else {
            return invalid("verification token not valid")
        }
        guard let subject = ENVerificationSubject(parsing: claims.subject) else {
            return invalid("invalid subject: \(claims.subject)")
        }
        guard let mac = ENVerificationAPIKey.decodeBase64(request.ekeyhmac) else {
            return .failure(
                ENVerificationAPIError(
                    status: 400, message: "exposure key HMAC is not a valid base64", code: .hmacInvalid))
        }
        guard mac.count == Self.hmacByteCount else {
            return .failure(
                ENVerificationAPIError(
                    status: 400,
                    message:
                        "exposure key HMAC is not the correct length, want: \(Self.hmacByteCount) got: \(mac.count)",
                    code: .hmacInvalid))
        }
        let issued = Self.unix(now.addingTimeInterval(-configuration.allowedClockSkew))
        let certificateClaims = ENVerificationCertificateClaims(
            audience: configuration.certificateAudience,
            expiresAt: Self.unix(now.addingTimeInterval(configuration.certificateDuration)), issuedAt: issued,
            issuer: configuration.certificateIssuer, notBefore: issued, reportType: subject.testType.rawValue,
            symptomOnsetInterval: subject.symptomDate?.intervalNumber ?? 0, tekmac: request.ekeyhmac)
        let certificate: String
        do {
            certificate = try certificateClaims.signed(keyID: configuration.certificateKeyID, key: certificateKey)
        } catch {
            return .failure(ENVerificationAPIError(status: 500, message: "\(error)", code: .internalServerError))
        }
        // The claim comes last, so that a failure before it leaves the token usable (as Google's).
        let claim: ENVerificationTokenClaim
        do {
            claim = try await storage.claimToken(id: claims.tokenID, subject: subject, now: now)
        } catch {
            return .failure(ENVerificationAPIError(status: 500, message: "\(error)"))
        }
        switch claim {
        case .notFound, .expired:
            return .failure(
                ENVerificationAPIError(status: 400, message: "verification token expired", code: .tokenExpired))
        case .used, .subjectMismatch:
            return .failure(
                ENVerificationAPIError(status: 400, message: "verification token invalid", code: .tokenExpired))
        case .claimed:
            return .success(ENVerificationCertificateResponse(certificate: certificate))
        }
    }

    /// Google's `HMACLength`: an HMAC-SHA256 is 32 bytes.
    static let hmacByteCount = 32
}
