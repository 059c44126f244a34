import ENCore
import ENCrypto
import ENTestSupport
import Foundation
import Testing

/// HMAC-SHA256 against RFC 4231's test vectors and the openssl CLI.
@Suite("HMAC-SHA256")
struct HMACTests {
    @Test(
        "RFC 4231 test cases 1, 2, 6 and 7",
        arguments: [
            (
                "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "4869205468657265",
                "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
            ),
            (
                "4a656665", "7768617420646f2079612077616e7420666f72206e6f7468696e673f",
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
            ),
            (
                String(repeating: "aa", count: 131),
                "54657374205573696e67204c6172676572205468616e20426c6f636b2d53697a65204b6579202d2048617368204b6579204669727374",
                "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
            ),
            (
                String(repeating: "aa", count: 131),
                "5468697320697320612074657374207573696e672061206c6172676572207468616e20626c6f636b2d73697a65206b657920616e642061206c6172676572207468616e20626c6f636b2d73697a6520646174612e20546865206b6579206e6565647320746f20626520686173686564206265666f7265206265696e6720757365642062792074686520484d414320616c676f726974686d2e",
                "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
            ),
        ])
    func rfc4231(_ key: String, _ message: String, _ expected: String) throws {
        let key = try #require(Data(hexString: key))
        let message = try #require(Data(hexString: message))
        let mac = HMAC.authenticationCode(for: message, using: key)
        #expect(mac.hexString == expected)
        #expect(HMAC.isValidAuthenticationCode(mac, for: message, using: key))
        var altered = mac
        altered[0] ^= 1
        #expect(!HMAC.isValidAuthenticationCode(altered, for: message, using: key))
        #expect(!HMAC.isValidAuthenticationCode(mac.prefix(31), for: message, using: key))
    }

    @Test("agrees with `openssl mac` for empty and long inputs", .enabled(if: ExternalTool.openssl.isAvailable))
    func agreesWithOpenSSL() throws {
        for (key, message) in [(Data(), Data()), (Data("k".utf8), Data(repeating: 0x41, count: 10_000))] {
            let result = try ExternalTool.openssl.run(
                [
                    "mac", "-digest", "SHA256", "-macopt", "hexkey:\(key.hexString.isEmpty ? "00" : key.hexString)",
                    "HMAC",
                ],
                stdin: message)
            #expect(result.status == 0)
            // An empty hex key is not accepted by openssl; a single zero byte is the same HMAC key (zero-padded).
            #expect(
                result.output.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
                    == HMAC.authenticationCode(for: message, using: key).hexString)
        }
    }
}
