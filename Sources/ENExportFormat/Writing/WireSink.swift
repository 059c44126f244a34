/// Where protobuf encoding goes: ``WireBuffer`` (bytes) or ``WireSizeCounter`` (only the size).
///
/// Every message is encoded by one generic function over a sink (``WireMessage/write(to:)``), run on a
/// counter to size buffers and length prefixes and on a buffer to produce the bytes, so that sizes and bytes
/// cannot disagree.
package protocol WireSink {
    mutating func append(byte: UInt8)
    mutating func append(_ bytes: UnsafeRawBufferPointer)
}

/// A protobuf message that encodes itself (its fields, without a length prefix).
protocol WireMessage {
    func write(to sink: inout some WireSink)
}

extension WireMessage {
    /// The encoded size in bytes.
    var encodedSize: Int {
        var counter = WireSizeCounter()
        write(to: &counter)
        return counter.count
    }
}

extension WireSink {
    @inline(__always)
    package mutating func writeVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            append(byte: UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        append(byte: UInt8(value))
    }

    @inline(__always)
    package mutating func writeTag(_ field: UInt32, _ wireType: WireReader.WireType) {
        writeVarint(UInt64(field << 3 | UInt32(wireType.rawValue)))
    }

    /// An `int32` field: a negative value is sign-extended to 10 bytes, as protobuf specifies.
    @inline(__always)
    package mutating func writeInt32(_ field: UInt32, _ value: Int32) {
        writeTag(field, .varint)
        writeVarint(UInt64(bitPattern: Int64(value)))
    }

    /// A `sint32` field: ZigZag-encoded.
    @inline(__always)
    package mutating func writeSInt32(_ field: UInt32, _ value: Int32) {
        writeTag(field, .varint)
        writeVarint(UInt64(UInt32(bitPattern: (value << 1) ^ (value >> 31))))
    }

    package mutating func writeFixed64(_ field: UInt32, _ value: UInt64) {
        writeTag(field, .fixed64)
        withUnsafeBytes(of: value.littleEndian) { append($0) }
    }

    /// A `bytes` field.
    @inline(__always)
    package mutating func writeBytes(_ field: UInt32, _ bytes: UnsafeRawBufferPointer) {
        writeTag(field, .lengthDelimited)
        writeVarint(UInt64(bytes.count))
        append(bytes)
    }

    /// A `string` field.
    package mutating func writeString(_ field: UInt32, _ text: String) {
        var text = text
        text.withUTF8 { writeBytes(field, UnsafeRawBufferPointer($0)) }
    }

    /// An embedded message field: its size, then its fields.
    @inline(__always)
    mutating func writeMessage(_ field: UInt32, _ message: some WireMessage) {
        writeTag(field, .lengthDelimited)
        writeVarint(UInt64(message.encodedSize))
        message.write(to: &self)
    }
}

/// A sink that only counts bytes.
package struct WireSizeCounter: WireSink {
    package var count = 0

    package init() {}

    @inline(__always)
    package mutating func append(byte: UInt8) { count += 1 }

    @inline(__always)
    package mutating func append(_ bytes: UnsafeRawBufferPointer) { count += bytes.count }
}

/// A sink that writes into memory sized beforehand by a ``WireSizeCounter``; writing past its end traps.
package struct WireBuffer: WireSink {
    package let base: UnsafeMutableRawBufferPointer
    package private(set) var position: Int

    package init(_ base: UnsafeMutableRawBufferPointer, from position: Int = 0) {
        self.base = base
        self.position = position
    }

    @inline(__always)
    package mutating func append(byte: UInt8) {
        precondition(position < base.count, "WireBuffer: message larger than its computed size")
        base[position] = byte
        position += 1
    }

    @inline(__always)
    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress else { return }
        precondition(bytes.count <= base.count - position, "WireBuffer: message larger than its computed size")
        (base.baseAddress! + position).copyMemory(from: source, byteCount: bytes.count)
        position += bytes.count
    }
}
