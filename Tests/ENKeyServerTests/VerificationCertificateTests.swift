import ENCore
import ENCrypto
import ENKeyServer
import ENTestSupport
import Foundation
import Testing

/// Verification certificates as Google's key server checks them (reference §6): one made by an outside tool
/// (PyPI `cryptography`, `Scripts/make-verification-certificate-fixture.py`), and certificates signed here.
@Suite("Verification certificates")
struct VerificationCertificateTests {
    private static let issuer = "diagnosis-verification-example"
    private static let audience = "exposure-notifications-server"
    private let now = Int(referenceDate.timeIntervalSince1970)
    private let signingKey: P256SigningKey
    private let secret = Data((0..<32).map { UInt8($0) })
    private let keys = [sentKey(1, daysAgo: 1, transmissionRisk: 3), sentKey(2, daysAgo: 2), sentKey(3, daysAgo: 3)]

    init() throws { signingKey = try P256SigningKey() }

    private func verifier(
        _ publicKey: P256VerifyingKey, version: String = "v1", validFrom: Date = .distantPast, validUntil: Date? = nil
    ) -> ENVerificationCertificateVerifier {
        ENVerificationCertificateVerifier(healthAuthorities: [
            .init(
                issuer: Self.issuer, audience: Self.audience,
                keys: [.init(version: version, publicKey: publicKey, validFrom: validFrom, validUntil: validUntil)])
        ])
    }

    private static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Google's HMAC text of `keys`, with or without the transmission risks.
    private func tekmac(_ keys: [ENPublishExposureKey], withRisk: Bool = true, secret: Data? = nil) -> String {
        let text = keys.sorted { $0.key < $1.key }.map {
            "\($0.key).\($0.rollingStartNumber).\($0.rollingPeriod)" + (withRisk ? ".\($0.transmissionRisk)" : "")
        }.joined(separator: ",")
        return HMAC.authenticationCode(for: Data(text.utf8), using: secret ?? self.secret).base64EncodedString()
    }

    /// The verification server's claims for `keys` (iat = nbf = now - 5 s, exp = now + 15 min), changed by `edit`.
    private func certificate(
        keys: [ENPublishExposureKey]? = nil, header: [String: Any] = ["alg": "ES256", "kid": "v1", "typ": "JWT"],
        der: Bool = false, by key: P256SigningKey? = nil, edit: (inout [String: Any]) -> Void = { _ in }
    ) throws -> String {
        var claims: [String: Any] = [
            "iss": Self.issuer, "aud": Self.audience, "iat": now - 5, "nbf": now - 5, "exp": now + 900,
            "reportType": "confirmed", "symptomOnsetInterval": Int(today) - 288, "tekmac": tekmac(keys ?? self.keys),
        ]
        edit(&claims)
        let input =
            Self.base64URL(try JSONSerialization.data(withJSONObject: header, options: .sortedKeys)) + "."
            + Self.base64URL(try JSONSerialization.data(withJSONObject: claims, options: .sortedKeys))
        let signature = try (key ?? signingKey).signature(for: Data(input.utf8))
        return input + "." + Self.base64URL(der ? signature.derRepresentation : signature.rawRepresentation)
    }

    private func request(_ certificate: String, keys: [ENPublishExposureKey]? = nil, hmacKey: Data? = nil)
        -> ENPublishRequest
    {
        ENPublishRequest(
            temporaryExposureKeys: keys ?? self.keys, healthAuthorityID: appID, verificationPayload: certificate,
            hmacKey: (hmacKey ?? secret).base64EncodedString())
    }

    private func claims(_ request: ENPublishRequest, at date: Date = referenceDate) async throws(ENError)
        -> ENVerifiedClaims?
    {
        try await verifier(try! signingKey.publicKey).verify(request, at: date)
    }

    // MARK: A certificate made by an outside tool

    private struct Fixture: Decodable {
        var now: Double
        var publicKeyPEM: String
    }

    @Test func acceptsACertificateMadeByPythonsCryptography() async throws {
        let data = try Fixtures.data("keyserver/verification-certificate.json")
        let fixture = try JSONDecoder().decode(Fixture.self, from: data)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let request = try ENPublishRequest(json: try JSONSerialization.data(withJSONObject: object["request"] as Any))
        let verifier = verifier(try P256VerifyingKey(pemRepresentation: fixture.publicKeyPEM))
        let now = Date(timeIntervalSince1970: fixture.now)
        let claims = try await verifier.verify(request, at: now)
        #expect(claims == ENVerifiedClaims(reportType: .confirmedClinicalDiagnosis, symptomOnsetInterval: today - 288))
        // Its limits: 15 minutes, not before its iat; its HMAC covers the keys and the secret.
        await #expect(throws: ENError(.notAuthorized)) { try await verifier.verify(request, at: now + 901) }
        await #expect(throws: ENError(.notAuthorized)) { try await verifier.verify(request, at: now - 6) }
        var other = request
        other.temporaryExposureKeys[0].transmissionRisk = 1
        await #expect(throws: ENError(.notAuthorized)) { try await verifier.verify(other, at: now) }
        other = request
        other.hmacKey = Data(count: 32).base64EncodedString()
        await #expect(throws: ENError(.notAuthorized)) { try await verifier.verify(other, at: now) }

        // Through the publish API: the certificate's report type and onset are applied.
        let test = try PublishTest(verifier: verifier)
        let reply = await test.handler.publish(request)
        #expect(reply.status == 200)
        let stored = try await test.storedKeys().sorted { $0.rollingStartNumber > $1.rollingStartNumber }
        #expect(
            stored.map(\.diagnosisReportType) == [
                .confirmedClinicalDiagnosis, .confirmedClinicalDiagnosis, .confirmedClinicalDiagnosis,
            ])
        #expect(stored.map(\.transmissionRiskLevel) == [4, 2, 5])
        #expect(stored.map(\.daysSinceOnsetOfSymptoms) == [1, 0, -1])
    }

    // MARK: Certificates signed here

    @Test func acceptsAValidCertificate() async throws {
        let claims = try await claims(request(try certificate()))
        #expect(claims == ENVerifiedClaims(reportType: .confirmedTest, symptomOnsetInterval: today - 288))
        for (name, type) in [
            ("likely", ENDiagnosisReportType.confirmedClinicalDiagnosis), ("negative", .revoked),
            ("user-report", .selfReported),
        ] {
            let cert = try certificate { $0["reportType"] = name }
            #expect(try await self.claims(request(cert))?.reportType == type)
        }
    }

    @Test func checksTheTimesToTheSecondAndExpIsOptional() async throws {
        #expect(try await claims(request(try certificate { $0["exp"] = nil })) != nil)
        #expect(try await claims(request(try certificate { $0["exp"] = now })) != nil)
        #expect(
            try await claims(
                request(
                    try certificate {
                        $0["iat"] = now; $0["nbf"] = now
                    })) != nil)
        #expect(
            try await claims(
                request(
                    try certificate {
                        $0["iat"] = nil; $0["nbf"] = nil
                    })) != nil)
        for (field, edit) in [
            ("exp", { (c: inout [String: Any]) in c["exp"] = now - 1 }),
            ("iat", { (c: inout [String: Any]) in c["iat"] = now + 1 }),
            ("nbf", { (c: inout [String: Any]) in c["nbf"] = now + 1 }),
        ] {
            let cert = try certificate(edit: edit)
            let error = await #expect(throws: ENError(.notAuthorized)) { try await claims(request(cert)) }
            #expect(error?.context.field == field)
        }
    }

    @Test func refusesWrongIssuerAudienceAndKeys() async throws {
        let cases: [(String, String)] = [
            (try certificate { $0["iss"] = "someone-else" }, "iss"),
            (try certificate { $0["aud"] = "another-server" }, "aud"),
            (try certificate(header: ["alg": "ES256", "kid": "v2"]), "kid"),
            (try certificate(header: ["alg": "ES256"]), "kid"),
            (try certificate(header: ["alg": "ES256", "kid": 1]), "kid"),
            (try certificate(header: ["alg": "ES384", "kid": "v1"]), "alg"),
            (try certificate(header: ["alg": "none", "kid": "v1"]), "alg"),
            (try certificate(header: ["kid": "v1"]), "alg"),
            (try certificate { $0["reportType"] = "positive" }, "reportType"),
            (try certificate { $0["reportType"] = nil }, "reportType"),
        ]
        for (cert, field) in cases {
            let error = await #expect(throws: ENError(.notAuthorized)) { try await claims(request(cert)) }
            #expect(error?.context.field == field)
        }
        // A key outside its validity.
        let publicKey = try signingKey.publicKey
        let early = verifier(publicKey, validFrom: referenceDate)
        await #expect(throws: ENError(.notAuthorized)) {
            try await early.verify(request(try certificate()), at: referenceDate)
        }
        let late = verifier(publicKey, validUntil: referenceDate)
        await #expect(throws: ENError(.notAuthorized)) {
            try await late.verify(request(try certificate()), at: referenceDate)
        }
        #expect(try await late.verify(request(try certificate()), at: referenceDate - 1) != nil)
    }

    @Test func refusesForgedAndDERSignatures() async throws {
        let cases = [
            try certificate(der: true),
            try certificate(by: try P256SigningKey()),
            // The claims changed after signing.
            try {
                let parts = try certificate().split(separator: ".").map(String.init)
                let altered = try certificate { $0["reportType"] = "likely" }.split(separator: ".").map(String.init)
                return [parts[0], altered[1], parts[2]].joined(separator: ".")
            }(),
        ]
        for cert in cases {
            let error = await #expect(throws: ENError(.notAuthorized)) { try await claims(request(cert)) }
            #expect(error?.context.field == "signature")
        }
    }

    @Test func checksTheHMACOverTheKeysAsSent() async throws {
        // Without the risks: accepted only when every risk is 0.
        let zeroRisk = [sentKey(4, daysAgo: 1), sentKey(5, daysAgo: 2)]
        let short = try certificate(keys: zeroRisk) { $0["tekmac"] = tekmac(zeroRisk, withRisk: false) }
        #expect(try await claims(request(short, keys: zeroRisk)) != nil)
        #expect(try await claims(request(try certificate(keys: zeroRisk), keys: zeroRisk)) != nil)
        let withoutRisk = try certificate { $0["tekmac"] = tekmac(keys, withRisk: false) }
        await #expect(throws: ENError(.notAuthorized)) { try await claims(request(withoutRisk)) }
        // Another secret, other keys, keys in another order of the text.
        await #expect(throws: ENError(.notAuthorized)) {
            try await claims(request(try certificate(), hmacKey: Data(repeating: 1, count: 32)))
        }
        await #expect(throws: ENError(.notAuthorized)) {
            try await claims(request(try certificate(), keys: Array(keys.dropLast())))
        }
        // The keys in another order: the HMAC is over the sorted text, so the order sent does not matter, and an
        // HMAC over the unsorted text does not verify.
        let reversed = Array(keys.reversed())
        #expect(try await claims(request(try certificate(keys: reversed), keys: reversed)) != nil)
        let unsorted = reversed.map { "\($0.key).\($0.rollingStartNumber).\($0.rollingPeriod).\($0.transmissionRisk)" }
            .joined(separator: ",")
        let wrongOrder = try certificate {
            $0["tekmac"] = HMAC.authenticationCode(for: Data(unsorted.utf8), using: secret).base64EncodedString()
        }
        await #expect(throws: ENError(.notAuthorized)) { try await claims(request(wrongOrder, keys: reversed)) }
        // The HMAC and secret may use either base64 alphabet, padded or not.
        let url = try certificate { $0["tekmac"] = Self.base64URL(Data(base64Encoded: tekmac(keys))!) }
        #expect(try await claims(request(url)) != nil)
    }

    @Test(arguments: ["a.b", "a.b.c.d", "", "e30.e30", "+.e30.AA", "W10.e30.AA", "e30.W10.AA", "e30.e30.A"])
    func refusesMalformedTokens(_ token: String) async {
        await #expect(throws: ENError(.badFormat)) { try await claims(request(token)) }
    }

    @Test func refusesClaimsOfTheWrongType() async throws {
        for edit in [
            { (c: inout [String: Any]) in c["exp"] = "\(now + 900)" },
            { (c: inout [String: Any]) in c["exp"] = 1.5 },
            { (c: inout [String: Any]) in c["aud"] = [Self.audience] },
            { (c: inout [String: Any]) in c["symptomOnsetInterval"] = -1 },
        ] {
            let cert = try certificate(edit: edit)
            await #expect(throws: ENError(.badFormat)) { try await claims(request(cert)) }
        }
    }

    @Test func aRefusedCertificateStoresNothing() async throws {
        let test = try PublishTest(verifier: verifier(try signingKey.publicKey))
        let reply = await test.handler.publish(request(try certificate(der: true)))
        #expect(reply.status == 401)
        #expect(reply.response.code == .verificationCertificateInvalid)
        #expect(try await test.storedKeys().isEmpty)
        #expect(await test.handler.publish(request(try certificate())).status == 200)
        #expect(try await test.storedKeys().count == 3)
    }
}
