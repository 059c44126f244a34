package import Foundation

/// Hexadecimal text for tests, diagnostics and the command line (the public types print themselves in hex through
/// `description`; this package-level helper is not part of the library's API).
extension Data {
    /// Lower-case hexadecimal, two digits a byte.
    package var hexString: String {
        var chars = [UInt8]()
        chars.reserveCapacity(count * 2)
        let digits = Array("0123456789abcdef".utf8)
        for byte in self {
            chars.append(digits[Int(byte >> 4)])
            chars.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: chars, as: UTF8.self)
    }

    /// Decodes hexadecimal text (either case, no separators). Returns nil for an odd length or a non-hex character.
    package init?(hexString: some StringProtocol) {
        let utf8 = Array(hexString.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var bytes = [UInt8]()
        bytes.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = Self.nibble(utf8[index]), let low = Self.nibble(utf8[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        self.init(bytes)
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
