import ENCore
import ENStore
import Foundation
import Synchronization
import Testing

/// A clock the test moves by hand.
final class TestClock: Sendable {
    private let current: Mutex<Date>

    init(_ date: Date) { current = Mutex(date) }

    var now: Date { current.withLock { $0 } }

    func advance(by seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }

    func configuration(cipher: (any ENStoreCipher)? = nil) -> ENStoreConfiguration {
        ENStoreConfiguration(now: { self.now }, cipher: cipher)
    }
}

/// TEST-ONLY authenticated cipher (no OpenSSL here: ENStore must not link ENCrypto). A keyed xorshift
/// keystream with a keyed 128-bit FNV tag: it hides the plaintext bytes and rejects a wrong key or any
/// altered byte, which is all the store's tests need. It is NOT secure; production uses AES-GCM.
struct ToyCipher: ENStoreCipher {
    let key: [UInt8]

    init(key: [UInt8]) { self.key = key }

    func seal(_ plaintext: Data, authenticating associatedData: Data) throws(ENError) -> Data {
        var generator = SystemRandomNumberGenerator()
        let nonce = (0..<12).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let ciphertext = xor([UInt8](plaintext), nonce: nonce)
        return Data(nonce + ciphertext + tag(nonce: nonce, ciphertext: ciphertext, aad: [UInt8](associatedData)))
    }

    func open(_ sealed: Data, authenticating associatedData: Data) throws(ENError) -> Data {
        let bytes = [UInt8](sealed)
        guard bytes.count >= 28 else { throw ENError(.badFormat, "sealed value too short") }
        let nonce = Array(bytes[0..<12])
        let ciphertext = Array(bytes[12..<(bytes.count - 16)])
        guard
            Array(bytes[(bytes.count - 16)...])
                == tag(nonce: nonce, ciphertext: ciphertext, aad: [UInt8](associatedData))
        else { throw ENError(.badFormat, "authentication failed") }
        return Data(xor(ciphertext, nonce: nonce))
    }

    private func xor(_ input: [UInt8], nonce: [UInt8]) -> [UInt8] {
        var state = fnv(key + nonce, seed: 0x9E37_79B9_7F4A_7C15) | 1
        return input.map { byte in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return byte ^ UInt8(truncatingIfNeeded: state)
        }
    }

    private func tag(nonce: [UInt8], ciphertext: [UInt8], aad: [UInt8]) -> [UInt8] {
        let message = key + nonce + [UInt8(aad.count & 0xff)] + aad + ciphertext + key
        return [fnv(message, seed: 0xCBF2_9CE4_8422_2325), fnv(message, seed: 0x1234_5678_9ABC_DEF1)].flatMap { word in
            (0..<8).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) }
        }
    }

    private func fnv(_ bytes: [UInt8], seed: UInt64) -> UInt64 {
        var hash = seed
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }
}

/// A fresh directory under the temporary directory, removed by `cleanUp()`.
struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("ENStoreTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func cleanUp() { try? FileManager.default.removeItem(at: url) }
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

func fixtureURL(_ name: String) throws -> URL {
    let parts = name.split(separator: ".")
    guard
        let url = Bundle.module.url(
            forResource: String(parts[0]), withExtension: String(parts[1]), subdirectory: "Fixtures")
    else { throw ENError(.badParameter, "missing fixture \(name)") }
    return url
}

/// Copies a fixture to `directory` and returns the copy's path.
func copyFixture(_ name: String, to directory: TemporaryDirectory) throws -> String {
    let path = directory.path(name)
    try FileManager.default.copyItem(at: try fixtureURL(name), to: URL(fileURLWithPath: path))
    return path
}

/// A V2-like detection result for tests.
struct SampleSummary: Codable, Hashable, Sendable {
    var matchedKeyCount: Int
    var maximumScore: Double
}

/// Expects `body` to throw an ``ENError`` with `code`.
func expectCode(
    _ code: ENError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) {
    let error = #expect(throws: ENError.self, sourceLocation: sourceLocation) { try body() }
    #expect(error?.code == code, "\(String(describing: error))", sourceLocation: sourceLocation)
}

/// Expects `body` to throw an ``ENError`` with `code`.
func expectCodeAsync(
    _ code: ENError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
) async {
    let error = await #expect(throws: ENError.self, sourceLocation: sourceLocation) { try await body() }
    #expect(error?.code == code, "\(String(describing: error))", sourceLocation: sourceLocation)
}
