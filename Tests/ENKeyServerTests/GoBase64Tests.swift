import Foundation
import Testing

@testable import ENKeyServer

/// Base64 as Google's `base64util.DecodeString` reads it (Go's lenient `RawURLEncoding` after converting the
/// standard alphabet and dropping padding), checked against Foundation's encoder.
@Suite("Go base64")
struct GoBase64Tests {
    private func decode(_ text: String) -> Data? {
        if case .success(let data) = GoBase64.decode(text) { return data }
        return nil
    }

    @Test func readsBothAlphabetsPaddedOrNot() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<40 {
            let data = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let standard = data.base64EncodedString()
            let url = standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            #expect(decode(standard) == data)
            #expect(decode(url) == data)
            #expect(decode(url.replacingOccurrences(of: "=", with: "")) == data)
            #expect(decode(standard + "==") == data)  // Google trims every trailing "="
        }
    }

    @Test func skipsLineBreaksAndIgnoresUnusedTrailingBits() {
        #expect(decode("AAEC\r\nAwQF\nBgc=") == Data([0, 1, 2, 3, 4, 5, 6, 7]))
        // "AB" and "AP" differ only in bits past the byte: Go's non-strict decoder takes both.
        #expect(decode("AB") == Data([0]))
        #expect(decode("AP") == Data([0]))
    }

    @Test(arguments: ["A", "AAAAA", "AA=A", "AA AA", "AA.A", "é", "AAA*"])
    func refusesWhatGoRefuses(_ text: String) {
        #expect(decode(text) == nil)
    }
}
