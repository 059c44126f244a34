internal import ENCore
internal import ENCrypto
internal import ENKeyServer
internal import Foundation

extension FuzzTarget {
    /// The moment certificates are checked at: the fixture certificate's (`keyserver/verification-certificate.json`,
    /// made by `Scripts/make-verification-certificate-fixture.py`), when it is valid.
    static let certificateNow = Date(timeIntervalSince1970: 1_778_307_200)

    /// The fixture certificate's header and claims, `header.claims`: the only ones key `v1` ever signed.
    static let fixtureSigningInput = Data(
        ("eyJhbGciOiAiRVMyNTYiLCAia2lkIjogInYxIiwgInR5cCI6ICJKV1QifQ."
            + "eyJhdWQiOiAiZXhwb3N1cmUtbm90aWZpY2F0aW9ucy1zZXJ2ZXIiLCAiZXhwIjogMTc3ODMwODEwMCwgImlhdCI6IDE3NzgzMDcx"
            + "OTUsICJpc3MiOiAiZGlhZ25vc2lzLXZlcmlmaWNhdGlvbi1leGFtcGxlIiwgIm5iZiI6IDE3NzgzMDcxOTUsICJyZXBvcnRUeXBl"
            + "IjogImxpa2VseSIsICJzeW1wdG9tT25zZXRJbnRlcnZhbCI6IDI5NjM1MjAsICJ0ZWttYWMiOiAiVFg0bjF6OEdrVS9vRmlsUzJt"
            + "NCtZYVVoMXRiblFOK0ZUOUF3Wm11T2Z3bz0ifQ").utf8)

    /// The key that signs certificates re-encoded by the round trip (`kid` `fuzz`); a fuzzing fixture, nothing else.
    static let certificateSigningKey: P256SigningKey? = try? P256SigningKey(
        pemRepresentation: """
            -----BEGIN PRIVATE KEY-----
            MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgJCfk4DHWzqoUa6/B
            YCGti1WpfhqHRn6kUJjSgyJn5p6hRANCAATXepbW+3+9tkJUqk0eigFhfRZi9VNZ
            pTvtUdQkbBPnGv30KjXSJcO6bCPHZrFLg77dRhz1nr0Hi2XuKZJxd5xJ
            -----END PRIVATE KEY-----
            """)

    /// One health authority with two keys: the fixture certificate's (`v1`) and ``certificateSigningKey`` (`fuzz`).
    static let certificateVerifier: ENVerificationCertificateVerifier? = {
        let fixtureKey = try? P256VerifyingKey(
            pemRepresentation: """
                -----BEGIN PUBLIC KEY-----
                MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEU4rJPBlagStoB1/YmhDPPK7BcEhs
                1y27P/JOV/8K35TUa84n2saZgrB5O0LixKoi/Utj0xGZFGmpRJXPoQSm2A==
                -----END PUBLIC KEY-----
                """)
        guard let fixtureKey, let fuzzKey = try? certificateSigningKey?.publicKey else { return nil }
        return ENVerificationCertificateVerifier(healthAuthorities: [
            .init(
                issuer: "diagnosis-verification-example", audience: "exposure-notifications-server",
                keys: [.init(version: "v1", publicKey: fixtureKey), .init(version: "fuzz", publicKey: fuzzKey)])
        ])
    }()

    /// The fixture's request, whose keys and `hmacKey` the fixture certificate's `tekmac` covers.
    static let certificateRequest = ENPublishRequest(
        temporaryExposureKeys: [
            ENPublishExposureKey(key: "9qcDseTx+7ZkImo8N6+aNA==", rollingStartNumber: 2_963_664, rollingPeriod: 144),
            ENPublishExposureKey(
                key: "V2dGzabVPYmkqlKec246nQ==", rollingStartNumber: 2_963_520, rollingPeriod: 144,
                transmissionRisk: 2),
            ENPublishExposureKey(
                key: "Dl5pbMQJ88gMQmbi/uhBZA==", rollingStartNumber: 2_963_376, rollingPeriod: 144,
                transmissionRisk: 5),
        ],
        healthAuthorityID: "com.example.app", hmacKey: "ZHQMVKBU3IXAyX1vGyk3a5TqUtkXx1/HZnD5KJzyE9k=")

    /// A certificate (a request's `verificationPayload`) parsed and checked as the key server does before it trusts
    /// anything in the request: a parsed certificate survives its round trip, one that verifies carries the header and
    /// claims its key signed, and its claims, re-encoded and signed again, verify to the same claims.
    static func fuzzVerificationCertificate(_ input: Data) throws(FuzzViolation) {
        guard let verifier = certificateVerifier, let signingKey = certificateSigningKey else {
            throw FuzzViolation(.verificationCertificate, "the fixed keys do not load")
        }
        let text = String(decoding: input, as: UTF8.self)
        try checkGoJSONSegments(text)
        guard let certificate = try? VerificationCertificate(text) else {
            try checkRefused(text, verifier)
            return
        }
        let reencoded = encode(certificate, keyID: certificate.keyID, signature: certificate.signature)
        var again: VerificationCertificate
        do {
            again = try VerificationCertificate(reencoded)
        } catch {
            throw FuzzViolation(.verificationCertificate, "a parsed certificate, re-encoded, does not parse: \(error)")
        }
        again.signingInput = certificate.signingInput
        guard again == certificate else {
            throw FuzzViolation(.verificationCertificate, "a parsed certificate changes in its round trip")
        }

        var request = certificateRequest
        request.verificationPayload = text
        let claims: ENVerifiedClaims
        do {
            claims = try verifier.claims(of: request, at: certificateNow)
        } catch {
            return
        }
        guard certificate.keyID == "fuzz" || certificate.signingInput == fixtureSigningInput else {
            throw FuzzViolation(.verificationCertificate, "a certificate verifies with header and claims nobody signed")
        }
        var resigned = certificate
        resigned.algorithm = "ES256"
        // `header.claims.` with an empty signature segment: the signing input and its dot.
        let signingInput = String(encode(resigned, keyID: "fuzz", signature: Data()).dropLast())
        guard let signature = try? signingKey.signature(for: Data(signingInput.utf8)) else {
            throw FuzzViolation(.verificationCertificate, "the fixed key does not sign")
        }
        request.verificationPayload = signingInput + "." + base64URL(signature.rawRepresentation)
        do {
            let resignedClaims = try verifier.claims(of: request, at: certificateNow)
            guard resignedClaims == claims else {
                throw FuzzViolation(.verificationCertificate, "verified claims change in their round trip")
            }
        } catch let violation as FuzzViolation {
            throw violation
        } catch {
            throw FuzzViolation(
                .verificationCertificate, "verified claims, re-encoded and signed, are refused: \(error)")
        }
    }

    /// A certificate that does not parse does not verify either (the verifier parses first).
    private static func checkRefused(_ text: String, _ verifier: ENVerificationCertificateVerifier)
        throws(FuzzViolation)
    {
        var request = certificateRequest
        request.verificationPayload = text
        if (try? verifier.claims(of: request, at: certificateNow)) != nil {
            throw FuzzViolation(.verificationCertificate, "a certificate that does not parse verifies")
        }
    }

    /// The JSON of the header and claims segments keeps the JSON round trip rule.
    private static func checkGoJSONSegments(_ text: String) throws(FuzzViolation) {
        for segment in text.split(separator: ".", omittingEmptySubsequences: false).prefix(2) {
            var base64 = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
            if let json = Data(base64Encoded: base64) {
                try checkGoJSONRoundTrip(Array(json), target: .verificationCertificate)
            }
        }
    }

    /// A JWT of `certificate`'s header and claims, written by Foundation's JSON encoder, with `signature`.
    private static func encode(_ certificate: VerificationCertificate, keyID: String?, signature: Data) -> String {
        var header: [String: Any] = [:]
        if let algorithm = certificate.algorithm { header["alg"] = algorithm }
        if certificate.hasKeyID || keyID != nil { header["kid"] = keyID ?? NSNull() }
        let claims: [String: Any] = [
            "iss": certificate.issuer, "aud": certificate.audience, "exp": certificate.expiresAt,
            "iat": certificate.issuedAt, "nbf": certificate.notBefore, "reportType": certificate.reportType,
            "symptomOnsetInterval": Int(certificate.symptomOnsetInterval), "tekmac": certificate.tekmac,
        ]
        let headerJSON = (try? JSONSerialization.data(withJSONObject: header)) ?? Data()
        let claimsJSON = (try? JSONSerialization.data(withJSONObject: claims)) ?? Data()
        return [headerJSON, claimsJSON, signature].map(base64URL).joined(separator: ".")
    }

    /// Unpadded base64url, as JWTs write their segments.
    private static func base64URL(_ data: Data) -> String {
        var text = data.base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }
}
