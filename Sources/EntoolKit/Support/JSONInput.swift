import ENCore
import Foundation

/// A strict JSON reader over a file, read in chunks: memory stays at one chunk whatever the file's size.
///
/// It reads RFC 8259 JSON token by token for a caller that knows the shape it expects (``ExportKeyReader``),
/// and reports every error as `ENError.Code.badFormat` with the line and the column (in bytes) in its reason:
/// `line 12, column 5: expected ',' or '}' ...`; the caller adds the file and the record to its context.
/// Nesting deeper than 64 levels is refused.
struct JSONInput: ~Copyable {
    /// The path, for messages.
    let path: String
    private let file: UnsafeMutablePointer<FILE>
    private let buffer: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    private var position = 0
    private var end = 0
    /// The file offset of `buffer[0]`.
    private var bufferOffset = 0
    private var line = 1
    private var lineStart = 0

    /// The deepest nesting of arrays and objects accepted.
    static let maximumDepth = 64

    /// Opens `path` for reading.
    ///
    /// - Throws: `ENError.Code.badParameter` when the file cannot be opened.
    init(path: String, chunkSize: Int = 1 << 20) throws(ENError) {
        guard let file = fopen(path, "rb") else {
            throw .badParameter("cannot read the keys: \(String(cString: strerror(errno)))")
        }
        self.path = path
        self.file = file
        capacity = chunkSize
        buffer = .allocate(capacity: chunkSize)
    }

    deinit {
        fclose(file)
        buffer.deallocate()
    }

    // MARK: Bytes

    /// The next byte without consuming it, or `nil` at the end of the file.
    @inline(__always)
    mutating func peek() throws(ENError) -> UInt8? {
        if position < end { return buffer[position] }
        return try refill() ? buffer[position] : nil
    }

    /// Consumes the byte `peek()` returned.
    @inline(__always)
    mutating func advance() { position += 1 }

    /// The next byte, consumed; at the end of the file an error saying what was expected.
    @inline(__always)
    mutating func next(expecting what: @autoclosure () -> String) throws(ENError) -> UInt8 {
        guard let byte = try peek() else { throw error("the file ends where \(what()) was expected") }
        position += 1
        return byte
    }

    private mutating func refill() throws(ENError) -> Bool {
        bufferOffset += end
        position = 0
        end = fread(buffer, 1, capacity, file)
        if end == 0 && ferror(file) != 0 {
            throw .badParameter("cannot read the keys: \(String(cString: strerror(errno)))")
        }
        return end > 0
    }

    /// The file offset of the next byte.
    var offset: Int { bufferOffset + position }

    /// An error at the current position (`line L, column C: reason`): `badFormat` unless told otherwise.
    func error(
        _ reason: String, code: ENError.Code = .badFormat, context: ENError.Context = ENError.Context()
    ) -> ENError {
        ENError(code, "line \(line), column \(offset - lineStart + 1): \(reason)", context: context)
    }

    /// Up to 40 bytes of the file from `offset`, as text, for a message (read again from the file, which the
    /// caller is about to abandon with an error).
    mutating func excerpt(from offset: Int) -> String {
        guard fseek(file, offset, SEEK_SET) == 0 else { return "" }
        var bytes = [UInt8](repeating: 0, count: 40)
        let count = fread(&bytes, 1, bytes.count, file)
        return String(decoding: bytes.prefix(count), as: UTF8.self)
    }

    // MARK: Tokens

    /// Skips spaces, tabs, carriage returns and line feeds (counting lines) and returns the next byte, not
    /// consumed; `nil` at the end of the file.
    @inline(__always)
    mutating func skipWhitespace() throws(ENError) -> UInt8? {
        while let byte = try peek() {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"): position += 1
            case UInt8(ascii: "\n"):
                position += 1
                line += 1
                lineStart = offset
            default: return byte
            }
        }
        return nil
    }

    /// Skips whitespace and consumes `byte`, or fails saying what was expected.
    @inline(__always)
    mutating func expect(_ byte: UInt8, _ what: @autoclosure () -> String) throws(ENError) {
        guard try skipWhitespace() == byte else { throw error("expected \(what())\(found())") }
        position += 1
    }

    /// `, found 'x'` (or `, found the end of the file`) for the next byte, for messages.
    mutating func found() -> String { ", found " + nextByteDescription() }

    /// `'x'`, `byte 0x01` or `the end of the file`: the next byte, for messages.
    mutating func nextByteDescription() -> String {
        guard let byte = try? peek() else { return "the end of the file" }
        return byte < 0x20 || byte >= 0x7F
            ? String(format: "byte 0x%02x", byte) : "'\(Character(Unicode.Scalar(byte)))'"
    }

    /// Consumes `literal` (the rest of `true`, `false` or `null` after its first byte).
    private mutating func literal(_ literal: StaticString) throws(ENError) {
        let start = offset
        for index in 0..<literal.utf8CodeUnitCount {
            guard try peek() == literal.utf8Start[index] else {
                throw error("invalid literal '\(excerpt(from: start - 1).prefix { $0.isLetter })'")
            }
            position += 1
        }
    }

    /// Consumes `null` if it comes next (after whitespace).
    mutating func skipNull() throws(ENError) -> Bool {
        guard try skipWhitespace() == UInt8(ascii: "n") else { return false }
        position += 1
        try literal("ull")
        return true
    }

    /// The kind of the next value (after whitespace), for messages: "a string", "an object", ... or the byte.
    mutating func nextValueKind() throws(ENError) -> String {
        guard let byte = try skipWhitespace() else { return "the end of the file" }
        return switch byte {
        case UInt8(ascii: "\""): "a string"
        case UInt8(ascii: "{"): "an object"
        case UInt8(ascii: "["): "an array"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): "a boolean"
        case UInt8(ascii: "n"): "null"
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): "a number"
        default: nextByteDescription()
        }
    }

    /// Reads a string's contents after its opening quote up to and including the closing quote, handing the
    /// decoded bytes (UTF-8) to `bytes` in runs: each run of plain characters within the buffer at once, each
    /// escape decoded on its own. Control characters and bad escapes are refused.
    @inline(__always)
    mutating func readString(_ bytes: (UnsafeRawBufferPointer) -> Void) throws(ENError) {
        while true {
            if position == end {
                guard try refill() else { throw error("the file ends where the end of a string was expected") }
            }
            let start = position
            while position < end {
                let byte = buffer[position]
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
                position += 1
            }
            if position > start { bytes(UnsafeRawBufferPointer(start: buffer + start, count: position - start)) }
            guard position < end else { continue }
            let byte = buffer[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""): return
            case UInt8(ascii: "\\"):
                try readEscape { unit in withUnsafeBytes(of: unit) { bytes($0) } }
            default:
                position -= 1
                throw error("a control character (0x\(String(byte, radix: 16))) in a string; escape it")
            }
        }
    }

    private mutating func readEscape(_ byte: (UInt8) -> Void) throws(ENError) {
        let escape = try next(expecting: "an escape")
        switch escape {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): byte(escape)
        case UInt8(ascii: "b"): byte(0x08)
        case UInt8(ascii: "f"): byte(0x0C)
        case UInt8(ascii: "n"): byte(0x0A)
        case UInt8(ascii: "r"): byte(0x0D)
        case UInt8(ascii: "t"): byte(0x09)
        case UInt8(ascii: "u"):
            var scalar = try readHexQuad()
            if (0xD800..<0xDC00).contains(scalar) {
                // A high surrogate must be followed by an escaped low surrogate.
                guard try next(expecting: "a low surrogate") == UInt8(ascii: "\\"),
                    try next(expecting: "a low surrogate") == UInt8(ascii: "u")
                else { throw error("a \\u escape of a high surrogate without its low surrogate") }
                let low = try readHexQuad()
                guard (0xDC00..<0xE000).contains(low) else { throw error("an invalid surrogate pair") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw error("a lone low surrogate in a \\u escape") }
            for unit in String(Character(unicode)).utf8 { byte(unit) }
        default:
            throw error("an invalid escape '\\\(Character(Unicode.Scalar(escape)))'")
        }
    }

    private mutating func readHexQuad() throws(ENError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            let digit = try next(expecting: "a hex digit")
            guard let nibble = Self.hexValue(digit) else { throw error("a \\u escape needs four hex digits") }
            value = value << 4 | UInt32(nibble)
        }
        return value
    }

    /// The value of a hex digit (either case), or nil.
    @inline(__always)
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte &- UInt8(ascii: "a") &+ 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte &- UInt8(ascii: "A") &+ 10
        default: nil
        }
    }

    /// A JSON number (after whitespace) that must be an integer in `range`: `5`, `-3`, and also `5.0` or `5e0`.
    /// `nil` when the number is not an integer in the range; the caller names the field in its error.
    mutating func readInteger(in range: ClosedRange<Int64>) throws(ENError) -> Int64? {
        _ = try skipWhitespace()
        var negative = false
        if try peek() == UInt8(ascii: "-") {
            negative = true
            position += 1
        }
        guard let first = try peek(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            throw error("expected a number")
        }
        var magnitude: UInt64 = 0
        var overflow = false
        var digits = 0
        while let byte = try peek(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
            guard digits == 0 || first != UInt8(ascii: "0") else { throw error("a number with a leading zero") }
            let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(byte &- UInt8(ascii: "0")))
            overflow = overflow || o1 || o2
            magnitude = sum
            digits += 1
            position += 1
        }
        if let byte = try peek(), byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            // An integer part past 64 bits stands in as 20 nines: out of any range asked for, like the value.
            let integerDigits = overflow ? "99999999999999999999" : "\(magnitude)"
            return try readFractionAndExponent(integerPart: (negative ? "-" : "") + integerDigits, in: range)
        }
        guard !overflow, magnitude <= UInt64(Int64.max) else { return nil }
        let value = negative ? -Int64(magnitude) : Int64(magnitude)
        return range.contains(value) ? value : nil
    }

    /// The rest of a number with a fraction or an exponent, whose value must still be an integer (`5.0`, `5e0`).
    private mutating func readFractionAndExponent(integerPart: String, in range: ClosedRange<Int64>)
        throws(ENError) -> Int64?
    {
        var text = integerPart
        func digits(_ input: inout JSONInput, into text: inout String) throws(ENError) -> Int {
            var count = 0
            while let byte = try input.peek(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                input.advance()
                if text.utf8.count < 64 { text.append(Character(Unicode.Scalar(byte))) }
                count += 1
            }
            return count
        }
        if try peek() == UInt8(ascii: ".") {
            position += 1
            text += "."
            guard try digits(&self, into: &text) > 0 else { throw error("a number with no digit after '.'") }
        }
        if let byte = try peek(), byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            position += 1
            text += "e"
            if let sign = try peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                position += 1
                text.append(Character(Unicode.Scalar(sign)))
            }
            guard try digits(&self, into: &text) > 0 else { throw error("a number with no digit in its exponent") }
        }
        guard text.utf8.count < 64, let value = Double(text), value == value.rounded(), abs(value) <= 9.0e15 else {
            return nil
        }
        let integer = Int64(value)
        return range.contains(integer) ? integer : nil
    }

    /// Skips any value (after whitespace), checking its syntax.
    mutating func skipValue(depth: Int = 0) throws(ENError) {
        guard depth < Self.maximumDepth else { throw error("arrays and objects nested more than 64 deep") }
        switch try skipWhitespace() {
        case UInt8(ascii: "\""):
            position += 1
            try readString { _ in }
        case UInt8(ascii: "{"):
            position += 1
            if try skipWhitespace() == UInt8(ascii: "}") {
                position += 1
                return
            }
            repeat {
                try expect(UInt8(ascii: "\""), "a member name in quotes")
                try readString { _ in }
                try expect(UInt8(ascii: ":"), "':' after a member name")
                try skipValue(depth: depth + 1)
            } while try endOfMember(closing: UInt8(ascii: "}"), "',' or '}' in an object")
        case UInt8(ascii: "["):
            position += 1
            if try skipWhitespace() == UInt8(ascii: "]") {
                position += 1
                return
            }
            repeat {
                try skipValue(depth: depth + 1)
            } while try endOfMember(closing: UInt8(ascii: "]"), "',' or ']' in an array")
        case UInt8(ascii: "t"):
            position += 1
            try literal("rue")
        case UInt8(ascii: "f"):
            position += 1
            try literal("alse")
        case UInt8(ascii: "n"):
            position += 1
            try literal("ull")
        case nil:
            throw error("the file ends where a value was expected")
        default:
            _ = try readInteger(in: Int64.min...Int64.max)
        }
    }

    /// After a member or element: `true` after a ',' (another follows), `false` after `closing`.
    @inline(__always)
    mutating func endOfMember(closing: UInt8, _ what: @autoclosure () -> String) throws(ENError) -> Bool {
        switch try skipWhitespace() {
        case UInt8(ascii: ","):
            position += 1
            return true
        case closing:
            position += 1
            return false
        default:
            throw error("expected \(what())\(found())")
        }
    }

    /// Fails unless only whitespace is left.
    mutating func expectEnd() throws(ENError) {
        guard try skipWhitespace() == nil else { throw error("unexpected data after the JSON value\(found())") }
    }
}
