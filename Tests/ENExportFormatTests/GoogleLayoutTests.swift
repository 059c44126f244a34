import ENCore
import ENCrypto
import ENExportFormat
import ENTestSupport
import Foundation
import Testing

@Suite("Writing in Google's layout, with padding")
struct GoogleLayoutTests {
    func writer(maximumKeysPerFile: Int = 500_000, padding: ENExportPadding? = nil) throws -> ENExportWriter {
        var writer = ENExportWriter(
            region: "310", startTimestamp: 10, endTimestamp: 20,
            signers: [ENExportSigner(signingKey: try P256SigningKey(), keyID: "310", keyVersion: "v1")])
        writer.layout = .googleServer
        writer.maximumKeysPerFile = maximumKeysPerFile
        writer.padding = padding
        return writer
    }

    func byBytes(_ keys: [ENTemporaryExposureKey]) -> [ENTemporaryExposureKey] {
        keys.sorted { $0.keyData.lexicographicallyPrecedes($1.keyData) }
    }

    @Test("new keys then revised keys, sorted by key bytes, split at the limit, ends bumped by the file number")
    func sortsAndSplits() throws {
        var rng = SeededRandomNumberGenerator.forTest(defaultSeed: 21)
        let keys = (0..<1000).map { _ in TestKeys.random(using: &rng) }
        let revised = (0..<200).map { _ in TestKeys.random(using: &rng) }
        let archives = try writer(maximumKeysPerFile: 450).archives(keys: keys, revisedKeys: revised, using: &rng)
        let exports = try archives.map { try $0.keyExport() }
        #expect(exports.map(\.keys.count) == [450, 450, 100])
        #expect(exports.map(\.revisedKeys.count) == [0, 0, 200])
        #expect(exports.map(\.endTimestamp) == [21, 22, 23])
        #expect(exports.flatMap(\.keys) == byBytes(keys))
        #expect(exports[2].revisedKeys == byBytes(revised))
        #expect(exports.allSatisfy { $0.batchNumber == 1 && $0.batchSize == 1 && $0.startTimestamp == 10 })
        // One file: its end is the batch's end, unbumped.
        let single = try writer().archives(keys: keys, using: &rng)
        #expect(try single.map { try $0.keyExport().endTimestamp } == [20])
        // The same keys give the same export.bin: nothing random without padding.
        #expect(try writer().archives(keys: keys.reversed())[0].exportBinary == single[0].exportBinary)
    }

    @Test("a rolling start of 0 and a rolling period of 144 are left out, the risk level 0 is written")
    func leavesOutDefaults() throws {
        let key = ENTemporaryExposureKey(keyData: Data(repeating: 0x11, count: 16), rollingStartNumber: 0)
        let binary = try writer().archives(keys: [key])[0].exportBinary
        // Field 7, 20 bytes: key_data (16 bytes) and transmission_risk_level 0, nothing else.
        let message: [UInt8] = [0x3A, 20, 0x0A, 16] + [UInt8](repeating: 0x11, count: 16) + [0x10, 0x00]
        #expect(binary.suffix(message.count).elementsEqual(message))
        #expect(try ENExportArchive(exportBinary: binary, signatureFile: nil).keyExport().keys == [key])
    }

    @Test("a small batch is padded in whole rounds copying each real key's metadata", arguments: [1, 3, 7, 999])
    func pads(count: Int) throws {
        var rng = SeededRandomNumberGenerator.forTest(defaultSeed: UInt64(count))
        let keys = (0..<count).map { _ in TestKeys.random(using: &rng) }
        let output = try writer(padding: .googleServer).write(keys: keys, using: &rng)
        let written = try output.archives[0].keyExport().keys
        // target = 1000 + r, r in 0...100; count * ceil(target / count) keys.
        let rounds = written.count / count
        #expect(written.count == count * rounds)
        #expect(written.count >= 1000 && written.count - count < 1100)
        #expect(written == byBytes(written))
        #expect(Set(written) == Set(keys + output.paddingKeys))
        #expect(output.paddingKeys.count == written.count - count)
        func metadata(_ key: ENTemporaryExposureKey) -> [Int] {
            [
                Int(key.rollingStartNumber), Int(key.rollingPeriod), Int(key.transmissionRiskLevel),
                Int(key.diagnosisReportType.rawValue), key.daysSinceOnsetOfSymptoms, Int(key.variantOfConcern.rawValue),
            ]
        }
        for key in keys {
            let twins = keys.filter { metadata($0) == metadata(key) }.count
            #expect(written.filter { metadata($0) == metadata(key) }.count == twins * rounds)
        }
    }

    @Test("padding stops at the file limit, skips revised-only files and large batches, refuses negative values")
    func paddingLimits() throws {
        var rng = SeededRandomNumberGenerator.forTest(defaultSeed: 5)
        let keys = (0..<3).map { _ in TestKeys.random(using: &rng) }
        let limited = try writer(maximumKeysPerFile: 500, padding: .googleServer).write(keys: keys, using: &rng)
        #expect(try limited.archives[0].keyExport().keys.count == 500)
        let revisedOnly = try writer(padding: .googleServer).write(keys: [], revisedKeys: keys, using: &rng)
        #expect(revisedOnly.paddingKeys.isEmpty)
        let large = (0..<1000).map { _ in TestKeys.random(using: &rng) }
        #expect(try writer(padding: .googleServer).write(keys: large, using: &rng).paddingKeys.isEmpty)
        let none = try writer(padding: ENExportPadding(minimumKeys: 0, range: 0)).write(keys: keys, using: &rng)
        #expect(none.paddingKeys.isEmpty)
        for bad in [ENExportPadding(minimumKeys: -1, range: 0), ENExportPadding(minimumKeys: 10, range: -1)] {
            let error = #expect(throws: ENError.self) { try writer(padding: bad).write(keys: keys) }
            #expect(error?.code == .badParameter)
        }
        // The byte limit stops padding too.
        var small = try writer(padding: .googleServer)
        small.maximumExportBinarySize = 4_000
        let bySize = try small.write(keys: keys, using: &rng)
        #expect(bySize.archives.count == 1)
        #expect(bySize.archives[0].exportBinary.count <= 4_000)
        #expect(!bySize.paddingKeys.isEmpty)
    }
}
