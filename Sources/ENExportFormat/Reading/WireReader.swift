package import ENCore

/// A protobuf wire-format reader over a byte buffer: the one decoder of `export.bin` and `export.sig`.
///
/// It never reads past `end`, never trusts a length without checking it against the bytes left, and reports
/// every malformation as `badFormat` with the byte offset, and the field's name in the error's context when it
/// knows it. Which message, list and record the error is in, the caller adds with `ENError.adding(_:)` on the
/// way out, so that the hot path builds no context. One-byte varints and tags, which are almost every value in an
/// export file, take an inlined fast path.
package struct WireReader {
    package let base: UnsafeRawBufferPointer
    package var position: Int
    package let end: Int

    package init(_ base: UnsafeRawBufferPointer, from start: Int, to end: Int) {
        self.base = base
        self.position = start
        self.end = end
    }

    package var isAtEnd: Bool { position >= end }

    /// Protobuf wire types.
    package enum WireType: UInt8 {
        case varint = 0, fixed64 = 1, lengthDelimited = 2, startGroup = 3, endGroup = 4, fixed32 = 5
    }

    /// A malformation at the current position, in `field` when it is known.
    package func malformed(_ reason: String, field: String? = nil) -> ENError {
        .badFormat("\(reason) at byte \(position)", context: .init(field: field))
    }

    /// A varint of up to 64 bits.
    @inline(__always)
    package mutating func readVarint() throws(ENError) -> UInt64 {
        if position < end {
            let byte = base[position]
            if byte < 0x80 {
                position += 1
                return UInt64(byte)
            }
        }
        return try readLongVarint()
    }

    @inline(never)
    private mutating func readLongVarint() throws(ENError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < end else { throw malformed("truncated varint") }
            let byte = base[position]
            position += 1
            if shift == 63 && byte > 1 { throw malformed("varint longer than 64 bits") }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
    }

    /// A field tag as it is on the wire, `field << 3 | wireType`, checked: the field number is not 0 and the
    /// wire type exists. Switching on the raw tag matches field and wire type at once.
    @inline(__always)
    package mutating func readTag() throws(ENError) -> UInt32 {
        if position < end {
            let byte = base[position]
            // One byte: fields 1...15; wire types 6 and 7 do not exist, field 0 is invalid.
            if byte < 0x80, byte >= 0x08, byte & 7 < 6 {
                position += 1
                return UInt32(byte)
            }
        }
        return try readLongTag()
    }

    @inline(never)
    private mutating func readLongTag() throws(ENError) -> UInt32 {
        let raw = try readVarint()
        guard raw <= UInt64(UInt32.max) else { throw malformed("field tag out of range") }
        guard raw >> 3 != 0 else { throw malformed("field number 0") }
        guard raw & 7 < 6 else { throw malformed("invalid wire type \(raw & 7)") }
        return UInt32(raw)
    }

    /// The field number of a tag.
    package static func field(_ tag: UInt32) -> UInt32 { tag >> 3 }

    /// The wire type of a checked tag.
    package static func wireType(_ tag: UInt32) -> WireType { WireType(rawValue: UInt8(tag & 7))! }

    package mutating func readFixed64() throws(ENError) -> UInt64 {
        guard end - position >= 8 else { throw malformed("truncated fixed64") }
        let value = base.loadUnaligned(fromByteOffset: position, as: UInt64.self)
        position += 8
        return UInt64(littleEndian: value)
    }

    /// Reads a length prefix and returns the range of the payload, leaving the reader after it.
    @inline(__always)
    package mutating func readLengthDelimited() throws(ENError) -> Range<Int> {
        let length = try readVarint()
        guard length <= UInt64(end - position) else {
            throw malformed("length \(length) runs past the end of the data")
        }
        let start = position
        position += Int(length)
        return start..<position
    }

    /// Skips the value of a field this reader does not use (legacy and future fields are tolerated).
    package mutating func skip(tag: UInt32, depth: Int = 0) throws(ENError) {
        switch Self.wireType(tag) {
        case .varint: _ = try readVarint()
        case .fixed64:
            guard end - position >= 8 else { throw malformed("truncated fixed64") }
            position += 8
        case .fixed32:
            guard end - position >= 4 else { throw malformed("truncated fixed32") }
            position += 4
        case .lengthDelimited: _ = try readLengthDelimited()
        case .startGroup:
            guard depth < 16 else { throw malformed("groups nested too deeply") }
            while true {
                let inner = try readTag()
                if Self.wireType(inner) == .endGroup {
                    guard Self.field(inner) == Self.field(tag) else { throw malformed("mismatched end of group") }
                    return
                }
                try skip(tag: inner, depth: depth + 1)
            }
        case .endGroup: throw malformed("unexpected end of group")
        }
    }

    /// Refuses a known field that arrived with another wire type than the schema declares (swift-protobuf
    /// would file it among the unknown fields, and the field would silently take its default).
    package func expect(_ tag: UInt32, _ expected: WireType, _ name: String) throws(ENError) {
        guard tag & 7 == UInt32(expected.rawValue) else {
            throw malformed("wire type \(tag & 7), expected \(expected.rawValue)", field: name)
        }
    }

    /// An `int32` field: the low 32 bits of the varint, as protobuf specifies.
    @inline(__always)
    package mutating func readInt32() throws(ENError) -> Int32 {
        Int32(truncatingIfNeeded: try readVarint())
    }

    /// A UTF-8 `string` field.
    package mutating func readString(_ name: String) throws(ENError) -> String {
        let range = try readLengthDelimited()
        guard let text = String(validating: UnsafeRawBufferPointer(rebasing: base[range]), as: UTF8.self) else {
            throw malformed("not valid UTF-8", field: name)
        }
        return text
    }
}
