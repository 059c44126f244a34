import ENCore
import ENCrypto
import ENExportFormat
import ENKeyServer
import Foundation

/// A fixed reference moment: 2026-05-09 06:13:20 UTC (interval 2_963_845).
let referenceDate = Date(timeIntervalSinceReferenceDate: 800_000_000)

/// The reference moment's rolling start (the start of its UTC day, in intervals).
let today = ENIntervalNumber(date: referenceDate).rollingStart

/// A valid diagnosis key numbered `n`: its first 8 bytes are `n`, the risk level and onset vary with `n`.
func makeKey(
    _ n: Int, start: ENIntervalNumber, reportType: ENDiagnosisReportType = .confirmedTest
) -> ENTemporaryExposureKey {
    var keyData = Data(repeating: 0x5A, count: 16)
    withUnsafeBytes(of: UInt64(n).littleEndian) { keyData.replaceSubrange(0..<8, with: $0) }
    return ENTemporaryExposureKey(
        keyData: keyData, rollingStartNumber: start, transmissionRiskLevel: UInt8(n % 8),
        diagnosisReportType: reportType,
        daysSinceOnsetOfSymptoms: n % 3 == 0 ? ENDaysSinceOnsetOfSymptomsUnknown : n % 14 - 7)
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
/// unless `configure` sets it.
struct TestServer {
    let clock: TestClock
    let signingKey: P256SigningKey
    let server: ENKeyServer

    init(
        clock: TestClock = TestClock(), maximumKeysPerFile: Int = 750_000, store: ENKeyServerStore? = nil,
        signingKey: P256SigningKey? = nil, signers: [ENExportSigner]? = nil,
        configure: (inout ENKeyServerConfiguration) -> Void = { _ in }
    ) throws {
        self.clock = clock
        let signingKey = try signingKey ?? P256SigningKey()
        self.signingKey = signingKey
        var configuration = ENKeyServerConfiguration(
            region: "310", signers: signers ?? [ENExportSigner(signingKey: signingKey, keyID: "310", keyVersion: "v1")],
            maximumKeysPerFile: maximumKeysPerFile, padding: nil)
        configure(&configuration)
        server = ENKeyServer(
            store: try store ?? ENKeyServerStore(clock: { clock.now }), configuration: configuration,
            clock: { clock.now })
    }

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

/// Runs `body` in a synchronous context, where the synchronous forms of the server's operations are chosen.
func synchronously<T>(_ body: () throws -> T) rethrows -> T { try body() }
