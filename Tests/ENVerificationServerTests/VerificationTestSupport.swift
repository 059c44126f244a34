import ENCore
import ENCrypto
import ENKeyServer
import ENVerificationServer
import Foundation

/// A clock the tests move by hand.
final class TestClock: Sendable {
    private let current: Locked<Date>

    init(_ start: Date) { current = Locked(start) }

    var now: Date { current.withLock { $0 } }

    func advance(by seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// A service on an in-memory store, its clock, and one admin and one device key.
struct VerificationFixture {
    /// 2020-08-01 12:00:00 UTC.
    static let start = Date(timeIntervalSince1970: 1_596_283_200)

    let clock: TestClock
    let service: ENVerificationService
    let certificateKey: P256SigningKey
    let adminKey: String
    let deviceKey: String

    init(
        configuration: ENVerificationConfiguration = ENVerificationConfiguration(),
        storage: (any ENVerificationStorage)? = nil
    ) async throws {
        clock = TestClock(Self.start)
        certificateKey = try P256SigningKey()
        let clock = self.clock
        service = try ENVerificationService(
            configuration: configuration, secrets: try ENVerificationSecrets(masterKey: Data(repeating: 7, count: 32)),
            tokenKey: try P256SigningKey(), certificateKey: certificateKey,
            storage: try storage ?? ENVerificationSQLiteStore(), clock: { clock.now })
        adminKey = try await service.createAPIKey(name: "health authority", type: .admin)
        deviceKey = try await service.createAPIKey(name: "app", type: .device)
    }

    /// Posts `json` to `endpoint` with `key` (the admin or device key by the route's type when `nil`).
    func post(
        _ endpoint: ENVerificationEndpoint, _ json: String, key: String? = nil,
        contentType: String = "application/json",
        chaff: Bool = false
    ) async -> (status: Int, json: [String: Any], text: String) {
        let key = key ?? (endpoint.apiKeyType == .admin ? adminKey : deviceKey)
        let answer = await service.respond(
            to: endpoint, apiKey: key, contentType: contentType, body: Data(json.utf8), chaff: chaff)
        let object = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any] ?? [:]
        return (answer.status, object, String(decoding: answer.body, as: UTF8.self))
    }

    /// Issues a code and returns the response's JSON.
    func issue(_ json: String = #"{"testType":"confirmed","symptomDate":"2020-07-30"}"#) async -> [String: Any] {
        await post(.issue, json).json
    }

    /// The key server's verifier for this fixture's certificates.
    var keyServerVerifier: ENVerificationCertificateVerifier {
        get throws {
            ENVerificationCertificateVerifier(healthAuthorities: [
                .init(
                    issuer: service.configuration.certificateIssuer,
                    audience: service.configuration.certificateAudience,
                    keys: [
                        .init(version: service.configuration.certificateKeyID, publicKey: try certificateKey.publicKey)
                    ])
            ])
        }
    }
}

/// Keys to publish and their HMAC as an app computes it (Google's `pkg/verification/utils.go`).
struct PublishedKeys {
    let keys: [ENPublishExposureKey]
    let secret = Data((0..<32).map { UInt8($0) })

    init() {
        keys = (1...3).map { index in
            ENPublishExposureKey(
                key: Data(repeating: UInt8(index), count: 16).base64EncodedString(),
                rollingStartNumber: Int32(2_660_000 + index * 144), rollingPeriod: 144, transmissionRisk: index)
        }
    }

    var hmac: String {
        let text = keys.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }
            .map { "\($0.key).\($0.rollingStartNumber).\($0.rollingPeriod).\($0.transmissionRisk)" }
            .joined(separator: ",")
        return HMAC.authenticationCode(for: Data(text.utf8), using: secret).base64EncodedString()
    }

    func request(certificate: String) -> ENPublishRequest {
        ENPublishRequest(
            temporaryExposureKeys: keys, healthAuthorityID: "test", verificationPayload: certificate,
            hmacKey: secret.base64EncodedString())
    }
}
