import ENCore
import ENCrypto
import ENExportFormat
import ENKeyServer
import ENTestSupport
import EnserverKit
import Foundation
import Testing

/// 2026-05-09 01:00 UTC: an hour into a 4-hour export batch.
let startDate = Date(timeIntervalSince1970: 1_778_288_400)

/// A clock the test moves by hand.
final class ManualClock: Sendable {
    private let current: Locked<Date>
    init(_ date: Date = startDate) { current = Locked(date) }
    var now: Date { current.withLock { $0 } }
    func advance(hours: Double) { current.withLock { $0 = $0.addingTimeInterval(hours * 3600) } }
}

/// A key server with Google's export settings (4-hour batches under `exposureKeyExport-US`), its publish API
/// accepting every request of `com.example.app`, and its HTTP routes, on an in-memory store and a manual clock.
struct ServerUnderTest {
    let clock: ManualClock
    let signingKey: P256SigningKey
    let server: ENKeyServer
    let http: KeyServerHTTP

    init(clock: ManualClock = ManualClock()) throws {
        self.clock = clock
        let store = try ENKeyServerStore(clock: { clock.now })
        signingKey = try P256SigningKey()
        server = ENKeyServer(
            store: store,
            configuration: ENKeyServerConfiguration(
                region: "US", signers: [ENExportSigner(signingKey: signingKey, keyID: "310", keyVersion: "v1")],
                exportPeriod: 4 * 3600, exportRoot: "exposureKeyExport-US"),
            clock: { clock.now })
        let publish = ENPublishHandler(
            storage: store,
            configuration: ENPublishConfiguration(
                authorizedApps: [
                    ENPublishAuthorizedApp(
                        healthAuthorityID: "com.example.app", verifier: ENAcceptAllCertificateVerifier())
                ],
                revisionTokenKeys: try ENRevisionTokenKeys.generate()),
            clock: { clock.now })
        http = KeyServerHTTP(server: server, publish: publish)
    }
}

/// A publish request body with `count` keys (numbered from `first`) of the day before the clock's day.
func publishBody(count: Int, first: Int = 1, at date: Date = startDate) -> String {
    let yesterday = (Int(ENIntervalNumber(date: date)) / 144 - 1) * 144
    let keys = (first..<(first + count)).map { n -> String in
        var data = Data(repeating: 0x5A, count: 16)
        withUnsafeBytes(of: UInt64(n).bigEndian) { data.replaceSubrange(0..<8, with: $0) }
        return """
            {"key": "\(data.base64EncodedString())", "rollingStartNumber": \(yesterday), "rollingPeriod": 144, \
            "transmissionRisk": 3}
            """
    }
    return """
        {"temporaryExposureKeys": [\(keys.joined(separator: ", "))], "healthAuthorityID": "com.example.app"}
        """
}

/// A JSON object from a response body.
func jsonObject(_ text: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
}
