import ENCore
import ENCrypto
import ENStore
import ENTestSupport
import Foundation
import Testing

/// A clock the test moves by hand.
final class TestClock: Sendable {
    private let current: Locked<Date>

    init(_ date: Date) { current = Locked(date) }

    var now: Date { current.withLock { $0 } }

    func advance(by seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }

    func configuration(cipher: (any ENAuthenticatedCipher)? = nil) -> ENStoreConfiguration {
        ENStoreConfiguration(now: { self.now }, cipher: cipher)
    }
}

/// The real AES-GCM cipher from ENCrypto (`AESGCM.Key` conforms to `ENAuthenticatedCipher`), keyed by
/// the SHA-256 of `seed` so that tests can name "the same key" and "another key" with short literals.
func aesCipher(_ seed: [UInt8]) -> AESGCM.Key {
    try! AESGCM.Key(data: SHA256.hash(Data(seed)))
}

/// A fixed reference moment for tests: 2026-05-09 06:13:20 UTC (interval 2_963_845).
let referenceDate = Date(timeIntervalSinceReferenceDate: 800_000_000)

func makeSighting(_ n: Int, at date: Date, rssi: Int8 = -60) -> ENSighting {
    var bytes = [UInt8](repeating: 0, count: 16)
    withUnsafeBytes(of: UInt64(n).littleEndian) { for i in 0..<8 { bytes[i] = $0[i] } }
    bytes[15] = 0xEE
    return ENSighting(
        rpi: try! RollingProximityIdentifier(bytes: bytes), aem: AssociatedEncryptedMetadata(rawValue: UInt32(n)),
        timestamp: date, rssi: rssi, calibrationConfidence: n % 2 == 0 ? .high : .medium)
}

func makeKey(_ n: Int, start: ENIntervalNumber, report: ENDiagnosisReportType = .confirmedTest)
    -> ENTemporaryExposureKey
{
    var keyData = Data(repeating: 0x5A, count: 16)
    withUnsafeBytes(of: UInt64(n).littleEndian) { keyData.replaceSubrange(0..<8, with: $0) }
    return ENTemporaryExposureKey(
        keyData: keyData, rollingStartNumber: start, transmissionRiskLevel: UInt8(n % 8), diagnosisReportType: report,
        daysSinceOnsetOfSymptoms: n % 3 == 0 ? ENDaysSinceOnsetOfSymptomsUnknown : n % 14 - 7)
}

/// Copies a fixture to `directory` and returns the copy's path.
func copyFixture(_ name: String, to directory: TemporaryDirectory) throws -> String {
    let path = directory.path(name)
    try FileManager.default.copyItem(at: try Fixtures.url("store/\(name)"), to: URL(fileURLWithPath: path))
    return path
}

/// A V2-like detection result for tests.
struct SampleSummary: Codable, Hashable, Sendable {
    var matchedKeyCount: Int
    var maximumScore: Double
}

/// Expects `body` to throw an ``ENError`` with `code`, and returns it.
@discardableResult
func expectCode(
    _ code: ENError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) -> ENError? {
    let error = #expect(throws: ENError.self, sourceLocation: sourceLocation) { try body() }
    #expect(error?.code == code, "\(String(describing: error))", sourceLocation: sourceLocation)
    return error
}

/// Expects `body` to throw an ``ENError`` with `code`.
func expectCodeAsync(
    _ code: ENError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
) async {
    let error = await #expect(throws: ENError.self, sourceLocation: sourceLocation) { try await body() }
    #expect(error?.code == code, "\(String(describing: error))", sourceLocation: sourceLocation)
}
