import ENCore
import ENCrypto
import ENKeyServer
import ENTestSupport
import Foundation
import Testing

/// `entool certificate`: the publish request it prints carries a certificate and HMAC key that the key server's
/// own certificate verifier (`enserver --verifier certificate`) accepts, with the claims asked for; another key,
/// changed keys or an expired certificate are refused; bad input exits 2 naming it.
@Suite("entool certificate")
struct CertificateCommandTests {
    static let issuer = "gov.example.verification"
    static let audience = "exposure-notifications-server"

    /// A directory with a signing key (PEM) and a publish request of three keys.
    struct Setup {
        let directory: TemporaryDirectory
        let key: P256SigningKey
        let keyPath: String
        let requestPath: String

        init(symptomOnsetInterval: UInt32? = 2_650_000) throws {
            directory = try TemporaryDirectory(prefix: "certificate")
            key = try P256SigningKey()
            keyPath = directory.path("ha.pem")
            try writeSecret(try key.pemRepresentation, toFile: keyPath)
            requestPath = directory.path("publish.json")
            let keys = (0..<3).map { TestKeys.key($0, start: 2_650_000 + UInt32($0) * 144, transmissionRiskLevel: 3) }
            try PublishRequestBody(
                keys: keys, healthAuthorityID: "com.example.app", symptomOnsetInterval: symptomOnsetInterval
            ).json.write(toFile: requestPath, atomically: true, encoding: .utf8)
        }

        func arguments(_ extra: [String] = []) -> [String] {
            [
                "certificate", requestPath, "--signing-key", keyPath, "--key-id", "v2", "--issuer",
                CertificateCommandTests.issuer, "--audience", CertificateCommandTests.audience,
            ] + extra
        }

        /// The key server's verifier, trusting `key` (this setup's unless given) as version v2.
        func verifier(trusting key: P256SigningKey? = nil) throws -> ENVerificationCertificateVerifier {
            ENVerificationCertificateVerifier(healthAuthorities: [
                .init(
                    issuer: CertificateCommandTests.issuer, audience: CertificateCommandTests.audience,
                    keys: [.init(version: "v2", publicKey: try (key ?? self.key).publicKey)])
            ])
        }
    }

    @Test("the printed request is accepted by the key server's verifier with the claims asked for")
    func accepted() async throws {
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        let result = try runEntool(setup.arguments(["--report-type", "likely"]))
        #expect(result.status == 0, "\(result.stderr)")
        let request = try ENPublishRequest(json: result.stdout)
        #expect(request.temporaryExposureKeys.count == 3 && request.healthAuthorityID == "com.example.app")
        #expect(Data(base64Encoded: request.hmacKey)?.count == 32)
        let claims = try await setup.verifier().verify(request, at: Date())
        #expect(claims == ENVerifiedClaims(reportType: .confirmedClinicalDiagnosis, symptomOnsetInterval: 2_650_000))

        // Another health authority's key, a changed key, an expired certificate: refused.
        await #expect(throws: ENError(.notAuthorized)) {
            try await setup.verifier(trusting: try P256SigningKey()).verify(request, at: Date())
        }
        var changed = request
        changed.temporaryExposureKeys[1].transmissionRisk = 5
        await #expect(throws: ENError(.notAuthorized)) { try await setup.verifier().verify(changed, at: Date()) }
        await #expect(throws: ENError(.notAuthorized)) {
            try await setup.verifier().verify(request, at: Date().addingTimeInterval(901))
        }
    }

    @Test("--now, --lifetime and --symptom-onset-interval set the claims; standard input is read with -")
    func claimsFromOptions() async throws {
        let setup = try Setup(symptomOnsetInterval: nil)
        defer { setup.directory.cleanUp() }
        var arguments = setup.arguments([
            "--now", "2026-01-01T00:00:00Z", "--lifetime", "60", "--symptom-onset-interval", "2800000",
        ])
        arguments[1] = "-"
        let result = try runEntool(arguments, stdin: try Data(contentsOf: URL(fileURLWithPath: setup.requestPath)))
        #expect(result.status == 0, "\(result.stderr)")
        let request = try ENPublishRequest(json: result.stdout)
        let issued = Date(timeIntervalSince1970: 1_767_225_600)
        let claims = try await setup.verifier().verify(request, at: issued.addingTimeInterval(30))
        #expect(claims == ENVerifiedClaims(reportType: .confirmedTest, symptomOnsetInterval: 2_800_000))
        await #expect(throws: ENError(.notAuthorized)) {
            try await setup.verifier().verify(request, at: issued.addingTimeInterval(61))
        }
    }

    @Test(
        "bad input exits 2 naming what was wrong",
        arguments: [
            (["--report-type", "maybe"], "--report-type"),
            (["--lifetime", "0"], "--lifetime"),
            (["--now", "yesterday"], "--now"),
            (["--signing-key", "/nonexistent/ha.pem"], "--signing-key"),
        ] as [([String], String)])
    func badOptions(extra: [String], mentioning: String) throws {
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        var arguments = setup.arguments()
        if let index = arguments.firstIndex(of: extra[0]) {
            arguments[index + 1] = extra[1]
        } else {
            arguments += extra
        }
        let result = try runEntool(arguments)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains(mentioning), "\(result.stderr)")
    }

    @Test("a request that is not Google's JSON, or has no keys, exits 2 naming the file")
    func badRequests() throws {
        let setup = try Setup()
        defer { setup.directory.cleanUp() }
        for text in [#"{"temporaryExposureKeys": 3}"#, #"{"healthAuthorityID":"a","temporaryExposureKeys":[]}"#, "{"] {
            try text.write(toFile: setup.requestPath, atomically: true, encoding: .utf8)
            let result = try runEntool(setup.arguments())
            #expect(result.status == 2, "\(text): \(result.stderr)")
            #expect(result.stderr.contains(setup.requestPath), "\(text): \(result.stderr)")
        }
    }
}
