package import ENCore
internal import ENCrypto
internal import ENExportFormat
package import Foundation

/// Google's revision token (`internal/revision/revision.go`, `internal/pb/revision.proto`): the proto3
/// `RevisionToken { string kid = 1; bytes data = 2; }` where `data` is `nonce || AES-GCM` of the proto3
/// `RevisionTokenData { repeated RevisableKey revisableKeys = 1; }`, padded with zero keys. Package-visible for the
/// fuzz targets.
package enum RevisionToken {
    /// One key a token allows to revise (`RevisableKey`).
    package struct Key: Hashable {
        /// The key's bytes, `temporaryExposureKey`.
        package var keyData: Data
        /// Its first interval, `intervalNumber`.
        package var intervalNumber: Int32
        /// Its number of intervals, `intervalCount`.
        package var intervalCount: Int32

        /// Creates an entry.
        package init(keyData: Data, intervalNumber: Int32, intervalCount: Int32) {
            self.keyData = keyData
            self.intervalNumber = intervalNumber
            self.intervalCount = intervalCount
        }
    }

    /// The padding entry: 16 zero bytes, interval 0, count 0 (dropped when a token is opened).
    static let zeroKey = Key(keyData: Data(count: 16), intervalNumber: 0, intervalCount: 0)

    /// A sealed token listing `keys`, padded to `keySet.minimumEntries`, with the current key.
    package static func seal(_ keys: [Key], with keySet: ENRevisionTokenKeys) throws(ENError) -> Data {
        guard let key = keySet.keys[keySet.currentKeyID] else {
            throw .badParameter("the current revision-token key ID \(keySet.currentKeyID) has no key")
        }
        var entries = keys
        while entries.count < keySet.minimumEntries { entries.append(zeroKey) }
        let sealed = try AESGCM.seal(
            encoded(TokenData(keys: entries)), using: key, authenticating: keySet.additionalData)
        return encoded(Envelope(kid: String(keySet.currentKeyID), data: sealed))
    }

    /// The keys a token lists, without its padding.
    ///
    /// - Throws: `ENError.Code.badFormat` when the token is not a protobuf envelope, its key ID is not a
    ///   number or not among the keys, or its data does not open (another key, altered, other additional data).
    package static func open(_ token: Data, with keySet: ENRevisionTokenKeys) throws(ENError) -> [Key] {
        let envelope = try decodeEnvelope(token)
        guard let kid = Int64(envelope.kid) else { throw .badFormat("invalid key id \"\(envelope.kid)\"") }
        guard let key = keySet.keys[kid] else { throw .badFormat("token has invalid key id: \(kid)") }
        guard envelope.data.count >= AESGCM.nonceByteCount else { throw .badFormat("malformed ciphertext") }
        let plaintext = try AESGCM.open(envelope.data, using: key, authenticating: keySet.additionalData)
        return try decodeKeys(plaintext).filter { $0.intervalNumber != 0 || $0.intervalCount != 0 }
    }

    // MARK: Protobuf

    private struct Envelope: TokenMessage {
        var kid: String
        var data: Data

        func write(to sink: inout some WireSink) {
            if !kid.isEmpty { sink.writeString(1, kid) }
            if !data.isEmpty { data.withUnsafeBytes { sink.writeBytes(2, $0) } }
        }
    }

    private struct TokenData: TokenMessage {
        var keys: [Key]

        func write(to sink: inout some WireSink) {
            for key in keys {
                let message = KeyMessage(key: key)
                sink.writeTag(1, .lengthDelimited)
                sink.writeVarint(UInt64(message.encodedSize))
                message.write(to: &sink)
            }
        }
    }

    private struct KeyMessage: TokenMessage {
        var key: Key

        func write(to sink: inout some WireSink) {
            if !key.keyData.isEmpty { key.keyData.withUnsafeBytes { sink.writeBytes(1, $0) } }
            if key.intervalNumber != 0 { sink.writeInt32(2, key.intervalNumber) }
            if key.intervalCount != 0 { sink.writeInt32(3, key.intervalCount) }
        }
    }

    /// A message of the token, written by one function to a size counter and to bytes (as ENExportFormat's
    /// messages are).
    protocol TokenMessage {
        func write(to sink: inout some WireSink)
    }

    private static func encoded(_ message: some TokenMessage) -> Data {
        var data = Data(count: message.encodedSize)
        data.withUnsafeMutableBytes { raw in
            var buffer = WireBuffer(raw)
            message.write(to: &buffer)
        }
        return data
    }

    private static func decodeEnvelope(_ token: Data) throws(ENError) -> Envelope {
        try withReader(token) { reader throws(ENError) in
            var envelope = Envelope(kid: "", data: Data())
            while !reader.isAtEnd {
                let tag = try reader.readTag()
                switch WireReader.field(tag) {
                case 1:
                    try reader.expect(tag, .lengthDelimited, "kid")
                    envelope.kid = try reader.readString("kid")
                case 2:
                    try reader.expect(tag, .lengthDelimited, "data")
                    envelope.data = Data(reader.base[try reader.readLengthDelimited()])
                default: try reader.skip(tag: tag)
                }
            }
            return envelope
        }
    }

    private static func decodeKeys(_ plaintext: Data) throws(ENError) -> [Key] {
        try withReader(plaintext) { reader throws(ENError) in
            var keys: [Key] = []
            while !reader.isAtEnd {
                let tag = try reader.readTag()
                guard WireReader.field(tag) == 1 else {
                    try reader.skip(tag: tag)
                    continue
                }
                try reader.expect(tag, .lengthDelimited, "revisableKeys")
                let range = try reader.readLengthDelimited()
                var inner = WireReader(reader.base, from: range.lowerBound, to: range.upperBound)
                var key = Key(keyData: Data(), intervalNumber: 0, intervalCount: 0)
                while !inner.isAtEnd {
                    let innerTag = try inner.readTag()
                    switch WireReader.field(innerTag) {
                    case 1:
                        try inner.expect(innerTag, .lengthDelimited, "temporaryExposureKey")
                        key.keyData = Data(inner.base[try inner.readLengthDelimited()])
                    case 2:
                        try inner.expect(innerTag, .varint, "intervalNumber")
                        key.intervalNumber = try inner.readInt32()
                    case 3:
                        try inner.expect(innerTag, .varint, "intervalCount")
                        key.intervalCount = try inner.readInt32()
                    default: try inner.skip(tag: innerTag)
                    }
                }
                keys.append(key)
            }
            return keys
        }
    }

    private static func withReader<T>(
        _ data: Data, _ body: (inout WireReader) throws(ENError) -> T
    ) throws(ENError) -> T {
        let bytes = [UInt8](data)
        let result = bytes.withUnsafeBytes { raw -> Result<T, ENError> in
            var reader = WireReader(raw, from: 0, to: raw.count)
            do throws(ENError) { return .success(try body(&reader)) } catch { return .failure(error) }
        }
        return try result.get()
    }
}

extension RevisionToken.TokenMessage {
    var encodedSize: Int {
        var counter = WireSizeCounter()
        write(to: &counter)
        return counter.count
    }
}
