import ENCore
import ENCrypto
import Foundation
import Testing

@Suite("Key schedule against the official v1.2 test vectors")
struct KeyScheduleTests {
    let vectors: TestVectors

    init() throws { vectors = try TestVectors.load() }

    @Test("the vector file is complete: 144 consecutive intervals from the key's start")
    func vectorFileShape() {
        #expect(vectors.advertisements.count == 144)
        #expect(vectors.advertisements.map(\.interval) == Array(2_642_976..<2_643_120))
        #expect(
            ENIntervalNumber(date: Date(timeIntervalSince1970: TimeInterval(vectors.keyGenerationSeconds)))
                == ENIntervalNumber(vectors.rollingStartIntervalNumber))
    }

    @Test("RPIK and AEMK")
    func derivedKeys() throws {
        #expect(try RollingProximityIdentifierKey(temporaryExposureKey: vectors.key).keyBytes.hexString == vectors.rpik)
        #expect(
            try AssociatedEncryptedMetadataKey(temporaryExposureKey: vectors.key).keyBytes.hexString == vectors.aemk)
    }

    @Test("the fast HKDF agrees with OpenSSL's generic HKDF (a second, independent route)")
    func genericHKDFAgrees() throws {
        let tek = vectors.key.keyData
        let generic = try HKDF.deriveKey(inputKeyMaterial: tek, info: Data("EN-RPIK".utf8), outputByteCount: 16)
        #expect(generic.hexString == vectors.rpik)
        let zeroSalt = try HKDF.deriveKey(
            inputKeyMaterial: tek, salt: Data(count: 32), info: Data("EN-AEMK".utf8), outputByteCount: 16)
        #expect(zeroSalt.hexString == vectors.aemk)
        // Random keys: the six-compression path equals the generic one.
        for _ in 0..<200 {
            let random = try SecureRandom.bytes(count: 16)
            let fast = try RollingProximityIdentifierKey(keyData: random).keyBytes
            let slow = try HKDF.deriveKey(inputKeyMaterial: random, info: Data("EN-RPIK".utf8), outputByteCount: 16)
            #expect(fast == slow)
            let fastAEMK = try AssociatedEncryptedMetadataKey(keyData: random).keyBytes
            let slowAEMK = try HKDF.deriveKey(inputKeyMaterial: random, info: Data("EN-AEMK".utf8), outputByteCount: 16)
            #expect(fastAEMK == slowAEMK)
        }
    }

    @Test("all 144 RPIs, in one batch and one at a time")
    func identifiers() throws {
        let rpik = try RollingProximityIdentifierKey(temporaryExposureKey: vectors.key)
        let batch = try rpik.identifiers(startingAt: vectors.key.rollingStartNumber, count: 144)
        #expect(batch.map(\.description) == vectors.advertisements.map(\.rpi))
        for advertisement in vectors.advertisements.prefix(3) + vectors.advertisements.suffix(3) {
            #expect(try rpik.identifier(for: ENIntervalNumber(advertisement.interval)).description == advertisement.rpi)
        }
    }

    @Test("runs longer than a day (several OpenSSL calls) equal one identifier at a time")
    func multiDayRun() throws {
        let rpik = try RollingProximityIdentifierKey(temporaryExposureKey: vectors.key)
        let start = vectors.key.rollingStartNumber
        let run = try rpik.identifiers(startingAt: start, count: 300)
        #expect(run.count == 300)
        #expect(run.prefix(144).map(\.description) == vectors.advertisements.map(\.rpi))
        for offset in [0, 143, 144, 145, 287, 288, 299] {
            #expect(run[offset] == (try rpik.identifier(for: start.adding(offset))), "offset \(offset)")
        }
        // A run that starts mid-day gives the same identifiers as the day run.
        #expect(try rpik.identifiers(startingAt: start.adding(70), count: 200) == Array(run[70..<270]))
    }

    @Test("all 144 AEMs encrypt from the metadata and decrypt back to it")
    func metadata() throws {
        let aemk = try AssociatedEncryptedMetadataKey(temporaryExposureKey: vectors.key)
        let metadata = try BluetoothMetadata(bytes: Data(hexString: vectors.metadata)!)
        #expect(metadata.majorVersion == 1)
        #expect(metadata.minorVersion == 0)
        #expect(metadata.txPower == 8)
        #expect(metadata.isSupportedVersion)
        #expect(Data(metadata.bytes).hexString == vectors.metadata)
        for advertisement in vectors.advertisements {
            let rpi = try RollingProximityIdentifier(hexString: advertisement.rpi)
            let aem = try aemk.encrypt(metadata, for: rpi)
            #expect(aem.description == advertisement.aem)
            #expect(try aemk.decrypt(AssociatedEncryptedMetadata(hexString: advertisement.aem), for: rpi) == metadata)
        }
    }

    @Test("the ENS example keys give the published RPIKs and RPIs (rolling periods 1 and 114)")
    func ensExampleKeys() throws {
        let key0 = ENTemporaryExposureKey(
            keyData: Data(hexString: "172fc480e598490c34177604339b1543")!, rollingStartNumber: 2_649_980,
            rollingPeriod: 1)
        let key1 = ENTemporaryExposureKey(
            keyData: Data(hexString: "2b63053ac483238de176169e861f3dcd")!, rollingStartNumber: 2_649_866,
            rollingPeriod: 114)
        #expect(
            try RollingProximityIdentifierKey(temporaryExposureKey: key0).keyBytes.hexString
                == "069133794970fe9d2c8778bb4256173a")
        #expect(
            try RollingProximityIdentifierKey(temporaryExposureKey: key1).keyBytes.hexString
                == "d7a73c519682cab51fec1c1b39cb418d")
        let ids0 = try RollingProximityIdentifierKey(temporaryExposureKey: key0)
            .identifiers(startingAt: key0.rollingStartNumber, count: Int(key0.rollingPeriod))
        #expect(ids0.map(\.description) == ["9d8833fab07f3897eff530e1e550a44b"])
        let ids1 = try RollingProximityIdentifierKey(temporaryExposureKey: key1)
            .identifiers(startingAt: key1.rollingStartNumber, count: Int(key1.rollingPeriod))
        #expect(ids1.count == 114)
        #expect(ids1.first?.description == "e701abe1763d2f30f0487c3daf0af30a")
        #expect(ids1.last?.description == "bd5652d5094ce44cd10c9d6b8b70b5e8")
    }

    @Test("bad input is refused with badParameter")
    func badInput() throws {
        for count in [15, 17] {
            #expect(throws: ENError.self) { try RollingProximityIdentifierKey(keyData: Data(count: count)) }
            #expect(throws: ENError.self) { try AssociatedEncryptedMetadataKey(keyData: Data(count: count)) }
        }
        var short = vectors.key
        short.keyData = Data(count: 15)
        #expect {
            try RollingProximityIdentifierKey(temporaryExposureKey: short)
        } throws: { ($0 as? ENError)?.code == .badParameter && "\($0)".contains("15") }
        #expect(throws: ENError.self) { try RollingProximityIdentifierKey(derivedKeyBytes: Data(count: 17)) }
        #expect(throws: ENError.self) { try BluetoothMetadata(bytes: [0x40, 0x08]) }
        let rpik = try RollingProximityIdentifierKey(temporaryExposureKey: vectors.key)
        #expect(throws: ENError.self) { try rpik.identifiers(startingAt: 0, count: -1) }
        #expect(throws: ENError.self) { try rpik.identifiers(startingAt: ENIntervalNumber(UInt32.max), count: 2) }
        #expect(try rpik.identifiers(startingAt: 0, count: 0).isEmpty)
        #expect(throws: ENError.self) { try ENTemporaryExposureKey.generate(rollingStartNumber: 0, rollingPeriod: 0) }
    }

    @Test("generated keys are 16 random bytes and distinct")
    func generation() throws {
        let keys = try (0..<100).map { _ in try ENTemporaryExposureKey.generate(rollingStartNumber: 2_642_976) }
        #expect(Set(keys.map(\.keyData)).count == 100)
        #expect(keys.allSatisfy { $0.keyData.count == 16 && $0.rollingPeriod == 144 })
    }

    @Test("metadata bytes round-trip, including negative power and reserved bits")
    func metadataRoundTrip() throws {
        let m = BluetoothMetadata(txPower: -20)
        #expect(m.bytes == [0x40, 0xEC, 0, 0])
        #expect(try BluetoothMetadata(bytes: m.bytes) == m)
        let odd = try BluetoothMetadata(bytes: [0xAF, 0x7F, 0x12, 0x34])
        #expect(odd.majorVersion == 2)
        #expect(!odd.isSupportedVersion)
        #expect(odd.txPower == 127)
        #expect(odd.bytes == [0xAF, 0x7F, 0x12, 0x34])
    }
}
