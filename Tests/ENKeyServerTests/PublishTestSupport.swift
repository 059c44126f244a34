import ENCore
import ENCrypto
import ENKeyServer
import ENKeyServerSQLite
import Foundation

/// The interval of the reference moment (2026-05-09 06:13:20 UTC).
let nowInterval = ENIntervalNumber(date: referenceDate)

/// The health authority ID of the test app.
let appID = "com.example.app"

/// A verifier that answers fixed claims, or refuses.
struct FixedVerifier: ENPublishCertificateVerifier {
    var claims: ENVerifiedClaims?
    var refuses = false

    func verify(_ request: ENPublishRequest, at date: Date) async throws(ENError) -> ENVerifiedClaims? {
        if refuses { throw ENError.badParameter("refused by the test") }
        return claims
    }
}

/// A publish handler on an in-memory store and a test clock.
struct PublishTest {
    let clock: TestClock
    let store: ENKeyServerSQLiteStore
    let handler: ENPublishHandler
    let tokenKeys: ENRevisionTokenKeys

    init(
        clock: TestClock = TestClock(), verifier: any ENPublishCertificateVerifier = ENAcceptAllCertificateVerifier(),
        bypassesCertificateVerification: Bool = false, bypassesRevisionToken: Bool = false,
        tokenKeys: ENRevisionTokenKeys? = nil, store: ENKeyServerSQLiteStore? = nil,
        configure: (inout ENPublishConfiguration) -> Void = { _ in }
    ) throws {
        self.clock = clock
        let store = try store ?? ENKeyServerSQLiteStore(clock: { clock.now })
        self.store = store
        let tokenKeys = try tokenKeys ?? ENRevisionTokenKeys.generate()
        self.tokenKeys = tokenKeys
        var configuration = ENPublishConfiguration(
            authorizedApps: [
                ENPublishAuthorizedApp(
                    healthAuthorityID: appID, verifier: verifier,
                    bypassesCertificateVerification: bypassesCertificateVerification,
                    bypassesRevisionToken: bypassesRevisionToken)
            ],
            revisionTokenKeys: tokenKeys, defaultRegion: "310")
        configure(&configuration)
        handler = ENPublishHandler(storage: store, configuration: configuration, clock: { clock.now })
    }

    /// Posts `body` as `application/json`.
    func post(_ body: String, contentType: String? = "application/json") async -> ENPublishHTTPResponse {
        await handler.handle(contentType: contentType, body: Data(body.utf8))
    }

    /// Publishes `keys` with the other fields given.
    func publish(
        _ keys: [ENPublishExposureKey], token: String = "", onset: Int32 = 0, id: String = appID
    ) async -> ENPublishHTTPResponse {
        await handler.publish(
            ENPublishRequest(
                temporaryExposureKeys: keys, healthAuthorityID: id, symptomOnsetInterval: onset,
                revisionToken: token))
    }

    /// Every stored key, in storage order.
    func storedKeys() async throws -> [ENTemporaryExposureKey] {
        try await store.diagnosisKeysAwaitingExport()
    }
}

/// Key data numbered `n`.
func keyData(_ n: Int) -> Data {
    var data = Data(repeating: 0xA5, count: 16)
    withUnsafeBytes(of: UInt64(n).bigEndian) { data.replaceSubrange(0..<8, with: $0) }
    return data
}

/// A request key numbered `n` starting `daysAgo` days before the reference day.
func sentKey(
    _ n: Int, daysAgo: Int = 1, period: Int32 = 144, transmissionRisk: Int = 0
) -> ENPublishExposureKey {
    ENPublishExposureKey(
        key: keyData(n).base64EncodedString(), rollingStartNumber: Int32(today) - Int32(daysAgo * 144),
        rollingPeriod: period, transmissionRisk: transmissionRisk)
}
