import ENCore
import ENCrypto
import ENExportFormat
import ENKeyServer
import ENKeyServerSQLite
import ENTestSupport
import Foundation

/// A fixed reference moment: 2026-05-09 06:13:20 UTC (interval 2_963_845).
let referenceDate = Date(timeIntervalSinceReferenceDate: 800_000_000)

/// The reference moment's rolling start (the start of its UTC day, in intervals).
let today = ENIntervalNumber(date: referenceDate).rollingStart

/// A valid diagnosis key numbered `n`: its first 8 bytes are `n`, the risk level (1 to 8, never 0, which the
/// publish rules back-fill from the report type) and the days since onset (known, as the rules make them) vary
/// with `n`.
func makeKey(
    _ n: Int, start: ENIntervalNumber, reportType: ENDiagnosisReportType = .confirmedTest
) -> ENTemporaryExposureKey {
    TestKeys.key(
        n, start: start, transmissionRiskLevel: UInt8(n % 8 + 1), reportType: reportType, daysSinceOnset: n % 14 - 7)
}

/// A clock the test moves by hand.
final class TestClock: Sendable {
    private let current: Locked<Date>

    init(_ date: Date = referenceDate) { current = Locked(date) }

    var now: Date { current.withLock { $0 } }

    func advance(by seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }

    func set(_ date: Date) { current.withLock { $0 = date } }
}

/// An in-memory key server on `clock`, signing with a fresh key as key id "310", version "v1", without padding
/// unless `configure` sets it. Its publish rules are Google's except where `rules` says otherwise; by default
/// still-valid keys are released at once (Google's `DEBUG_RELEASE_SAME_DAY_KEYS`), so that a key of today is
/// exported by the next publish, keys are exportable from their arrival second (`TRUNCATE_WINDOW` 1 s), and a
/// post takes any number of keys with one start (the tests of those limits are the publish API's).
struct TestServer {
    let clock: TestClock
    let signingKey: P256SigningKey
    let store: ENKeyServerSQLiteStore
    let server: ENDiagnosisKeyServer

    init(
        clock: TestClock = TestClock(), maximumKeysPerFile: Int = 750_000, store: ENKeyServerSQLiteStore? = nil,
        signingKey: P256SigningKey? = nil, signers: [ENExportSigner]? = nil,
        rules: ENPublishConfiguration = TestServer.rules,
        configure: (inout ENKeyServerConfiguration) -> Void = { _ in }
    ) throws {
        self.clock = clock
        let signingKey = try signingKey ?? P256SigningKey()
        self.signingKey = signingKey
        var configuration = ENKeyServerConfiguration(
            region: "310", signers: signers ?? [ENExportSigner(signingKey: signingKey, keyID: "310", keyVersion: "v1")],
            maximumKeysPerFile: maximumKeysPerFile, padding: nil)
        configure(&configuration)
        let store = try store ?? ENKeyServerSQLiteStore(clock: { clock.now })
        self.store = store
        server = ENDiagnosisKeyServer(storage: store, configuration: configuration, rules: rules, clock: { clock.now })
    }

    /// The tests' publish rules.
    static let rules = ENPublishConfiguration(
        maximumKeys: .max, maximumKeysPerStartInterval: .max, truncateWindow: 1, releasesStillValidKeys: true)

    /// A verifier trusting this server's key, as an app configured for region 310 would.
    var verifier: ENExportVerifier {
        ENExportVerifier(trustedKeys: [
            ENExportVerificationKey(keyID: "310", keyVersion: "v1", publicKey: try! signingKey.publicKey)
        ])
    }
}

/// The keys and revised keys of a published file, read back with ENExportFormat's reader.
func contents(of file: ENKeyServerFile) throws -> (keys: [ENTemporaryExposureKey], revised: [ENTemporaryExposureKey]) {
    let scanner = try ENExportArchive(data: file.data).keyScanner()
    return (try scanner.allKeys(in: .keys), try scanner.allKeys(in: .revisedKeys))
}

/// Keys in a fixed order (by key data, then rolling start), to compare what the writer shuffled.
func sorted(_ keys: [ENTemporaryExposureKey]) -> [ENTemporaryExposureKey] {
    keys.sorted { a, b in
        a.keyData.lexicographicallyPrecedes(b.keyData)
            || (a.keyData == b.keyData && a.rollingStartNumber < b.rollingStartNumber)
    }
}
