import ENCore

/// A minimal protobuf wire-format reader over a byte buffer, for the streaming hot path.
///
/// It never reads past `end`, never trusts a length without checking it against the bytes left, and
/// reports every malformation as `badFormat` with the offset. `context` names the message being read.
struct WireReader {
    let base: UnsafeRawBufferPointer
    var position: Int
    let end: Int

    init(_ base: UnsafeRawBufferPointer, from start: Int, to end: Int) {
        self.base = base
        self.position = start
        self.end = end
    }

    var isAtEnd: Bool { position >= end }

    /// Protobuf wire types.
    enum WireType: UInt8 {
        case varint = 0, fixed64 = 1, lengthDelimited = 2, startGroup = 3, endGroup = 4, fixed32 = 5
    }

    func error(_ context: String, _ reason: String) -> ENError {
        .badFormat("\(context): \(reason) at byte \(position)")
    }

    mutating func readVarint(_ context: String) throws(ENError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < end else { throw error(context, "truncated varint") }
            let byte = base[position]
            position += 1
            if shift == 63 && byte > 1 { throw error(context, "varint longer than 64 bits") }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
    }

    /// Reads a field tag: (field number, wire type).
    mutating func readTag(_ context: String) throws(ENError) -> (field: UInt32, wireType: WireType) {
        let raw = try readVarint(context)
        guard raw <= UInt64(UInt32.max) else { throw error(context, "field tag out of range") }
        let field = UInt32(raw >> 3)
        guard field != 0 else { throw error(context, "field number 0") }
        guard let wireType = WireType(rawValue: UInt8(raw & 7)) else {
            throw error(context, "invalid wire type \(raw & 7)")
        }
        return (field, wireType)
    }

    mutating func readFixed64(_ context: String) throws(ENError) -> UInt64 {
        guard end - position >= 8 else { throw error(context, "truncated fixed64") }
        let value = base.loadUnaligned(fromByteOffset: position, as: UInt64.self)
        position += 8
        return UInt64(littleEndian: value)
    }

    /// Reads a length prefix and returns the range of the payload, leaving the reader after it.
    mutating func readLengthDelimited(_ context: String) throws(ENError) -> Range<Int> {
        let length = try readVarint(context)
        guard length <= UInt64(end - position) else {
            throw error(context, "length \(length) runs past the end of the data")
        }
        let start = position
        position += Int(length)
        return start..<position
    }

    /// Skips a field of an unknown number (legacy and future fields are tolerated).
    mutating func skip(_ wireType: WireType, field: UInt32, _ context: String, depth: Int = 0) throws(ENError) {
        switch wireType {
        case .varint: _ = try readVarint(context)
        case .fixed64:
            guard end - position >= 8 else { throw error(context, "truncated fixed64") }
            position += 8
        case .fixed32:
            guard end - position >= 4 else { throw error(context, "truncated fixed32") }
            position += 4
        case .lengthDelimited: _ = try readLengthDelimited(context)
        case .startGroup:
            guard depth < 16 else { throw error(context, "groups nested too deeply") }
            while true {
                let tag = try readTag(context)
                if tag.wireType == .endGroup {
                    guard tag.field == field else { throw error(context, "mismatched end of group") }
                    return
                }
                try skip(tag.wireType, field: tag.field, context, depth: depth + 1)
            }
        case .endGroup: throw error(context, "unexpected end of group")
        }
    }

    /// Fails unless the wire type is the one the schema declares for `name`.
    func expect(_ wireType: WireType, _ expected: WireType, _ name: String, _ context: String) throws(ENError) {
        guard wireType == expected else {
            throw error(context, "field \(name) has wire type \(wireType.rawValue), expected \(expected.rawValue)")
        }
    }

    /// An `int32` field: the low 32 bits of the varint, as protobuf specifies.
    mutating func readInt32(_ context: String) throws(ENError) -> Int32 {
        Int32(truncatingIfNeeded: try readVarint(context))
    }

    /// A `sint32` field: ZigZag-decoded.
    mutating func readSInt32(_ context: String) throws(ENError) -> Int32 {
        let raw = UInt32(truncatingIfNeeded: try readVarint(context))
        return Int32(bitPattern: raw >> 1) ^ -Int32(bitPattern: raw & 1)
    }

    /// A UTF-8 `string` field.
    mutating func readString(_ context: String, _ name: String) throws(ENError) -> String {
        let range = try readLengthDelimited(context)
        let bytes = UnsafeRawBufferPointer(rebasing: base[range])
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw error(context, "field \(name) is not valid UTF-8")
        }
        return text
    }
}
