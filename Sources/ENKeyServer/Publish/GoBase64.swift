package import Foundation

/// Base64 read as Google's server reads keys, tokens and secrets (`pkg/base64util.DecodeString`): the standard
/// or the URL alphabet, padding optional, then Go's lenient `RawURLEncoding` (line breaks skipped, unused
/// trailing bits ignored). Package-visible for the fuzz targets.
package enum GoBase64 {
    /// The decoded bytes, or `nil` with the offset of the first bad character.
    package static func decode(_ text: String) -> Result<Data, Failure> {
        var characters = Array(text.utf8).filter { $0 != 0x0A && $0 != 0x0D }
        while characters.last == UInt8(ascii: "=") { characters.removeLast() }
        var output = Data()
        output.reserveCapacity(characters.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for (offset, character) in characters.enumerated() {
            let value: UInt32
            switch character {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(character - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(character - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(character - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "+"), UInt8(ascii: "-"): value = 62
            case UInt8(ascii: "/"), UInt8(ascii: "_"): value = 63
            default: return .failure(Failure(offset: offset))
            }
            accumulator = accumulator << 6 | value
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        // One character alone in the last group carries no whole byte: Go refuses it.
        guard characters.count % 4 != 1 else { return .failure(Failure(offset: characters.count - 1)) }
        return .success(output)
    }

    /// Where base64 text stopped being base64.
    package struct Failure: Error {
        /// The offset of the bad character (after line breaks and trailing `=` are removed).
        package let offset: Int
    }
}
