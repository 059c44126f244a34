import ENCore
import Foundation
import Testing

@Suite("Identifier value types")
struct IdentifierValueTests {
    @Test("an RPI round-trips through bytes and hex, little-endian words")
    func rpiRoundTrip() throws {
        let hex = "8be6cd371c5c891604bfbe49df845096"
        let rpi = try RollingProximityIdentifier(hexString: hex)
        #expect(rpi.description == hex)
        #expect(rpi.data == Data(hexString: hex))
        #expect(rpi.lowWord == 0x1689_5c1c_37cd_e68b)
        #expect(try RollingProximityIdentifier(bytes: rpi.bytes) == rpi)
    }

    @Test("wrong lengths and non-hex text are bad parameters")
    func rpiBadInput() {
        #expect(throws: ENError.self) { try RollingProximityIdentifier(bytes: [UInt8](repeating: 0, count: 15)) }
        #expect(throws: ENError.self) { try RollingProximityIdentifier(hexString: "zz") }
        #expect(throws: ENError.self) { try AssociatedEncryptedMetadata(bytes: [1, 2, 3]) }
        #expect(Data(hexString: "abc") == nil)
        #expect(Data(hexString: "0g") == nil)
        #expect(Data(hexString: "00FFab")?.hexString == "00ffab")
    }

    @Test("attenuation is TX power minus RSSI, clamped at 0, 255 when unknown")
    func attenuation() throws {
        let sighting = ENSighting(
            rpi: RollingProximityIdentifier(lowWord: 1, highWord: 2), aem: AssociatedEncryptedMetadata(rawValue: 0),
            timestamp: Date(timeIntervalSince1970: 0), rssi: -60)
        #expect(ENMatchedSighting(sighting: sighting, derivedInterval: 0, txPower: 8).attenuation == 68)
        #expect(ENMatchedSighting(sighting: sighting, derivedInterval: 0, txPower: -70).attenuation == 0)
        #expect(ENMatchedSighting(sighting: sighting, derivedInterval: 0, txPower: nil).attenuation == 255)
        var loud = sighting
        loud.rssi = -128
        #expect(ENMatchedSighting(sighting: loud, derivedInterval: 0, txPower: 127).attenuation == 255)
    }
}
