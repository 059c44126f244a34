public import ENCore
public import Foundation

/// `export.sig`: a `TEKSignatureList` (field 1: repeated `TEKSignature`).
extension ENExportSignature: WireMessage {
    // TEKSignatureList field numbers.
    static let signaturesField: UInt32 = 1
    // TEKSignature field numbers.
    static let infoField: UInt32 = 1
    static let batchNumberField: UInt32 = 2
    static let batchSizeField: UInt32 = 3
    static let signatureField: UInt32 = 4

    /// Decodes an `export.sig`: a `TEKSignatureList` message.
    ///
    /// Unknown fields are skipped; absent fields are `nil` (the signature bytes, empty).
    ///
    /// - Throws: `ENError.Code.badFormat` with the byte when `export.sig` is not a valid `TEKSignatureList`
    ///   (truncated, malformed, a field of the wrong wire type, a string that is not UTF-8). Its context is the
    ///   section `signatures` with the signature's index, or `export.sig` outside any signature, and the field.
    public static func decodeList(_ signatureFile: Data) throws(ENError) -> [ENExportSignature] {
        try signatureFile.withBytes { (buffer) throws(ENError) in
            var reader = WireReader(buffer, from: 0, to: buffer.count)
            var signatures: [ENExportSignature] = []
            do throws(ENError) {
                while !reader.isAtEnd {
                    let tag = try reader.readTag()
                    guard WireReader.field(tag) == signaturesField else {
                        try reader.skip(tag: tag)
                        continue
                    }
                    try reader.expect(tag, .lengthDelimited, "signatures")
                    let range = try reader.readLengthDelimited()
                    do throws(ENError) {
                        signatures.append(try ENExportSignature(buffer, range))
                    } catch {
                        throw error.adding(.init(section: "signatures", index: signatures.count))
                    }
                }
            } catch {
                throw error.adding(.init(section: "export.sig"))
            }
            return signatures
        }
    }

    /// Reads one `TEKSignature` message.
    private init(_ buffer: UnsafeRawBufferPointer, _ range: Range<Int>) throws(ENError) {
        self.init(signatureInfo: nil, batchNumber: nil, batchSize: nil, signature: Data())
        var reader = WireReader(buffer, from: range.lowerBound, to: range.upperBound)
        while !reader.isAtEnd {
            let tag = try reader.readTag()
            switch WireReader.field(tag) {
            case Self.infoField:
                try reader.expect(tag, .lengthDelimited, "signature_info")
                var info = signatureInfo ?? .empty
                do throws(ENError) {
                    try info.merge(buffer, try reader.readLengthDelimited())
                } catch {
                    throw error.adding(.init(field: "signature_info"))
                }
                signatureInfo = info
            case Self.batchNumberField:
                try reader.expect(tag, .varint, "batch_num")
                batchNumber = Int(try reader.readInt32())
            case Self.batchSizeField:
                try reader.expect(tag, .varint, "batch_size")
                batchSize = Int(try reader.readInt32())
            case Self.signatureField:
                try reader.expect(tag, .lengthDelimited, "signature")
                signature = Data(UnsafeRawBufferPointer(rebasing: buffer[try reader.readLengthDelimited()]))
            default:
                try reader.skip(tag: tag)
            }
        }
    }

    /// Encodes signatures as an `export.sig` (`TEKSignatureList`), in the given order.
    public static func encodeList(_ signatures: [ENExportSignature]) throws(ENError) -> Data {
        let list = SignatureList(signatures: signatures)
        var data = Data(count: list.encodedSize)
        data.withUnsafeMutableBytes { bytes in
            var buffer = WireBuffer(bytes)
            list.write(to: &buffer)
        }
        return data
    }

    func write(to sink: inout some WireSink) {
        if let signatureInfo { sink.writeMessage(Self.infoField, signatureInfo) }
        if let batchNumber { sink.writeInt32(Self.batchNumberField, Int32(clamping: batchNumber)) }
        if let batchSize { sink.writeInt32(Self.batchSizeField, Int32(clamping: batchSize)) }
        signature.withUnsafeBytes { sink.writeBytes(Self.signatureField, $0) }
    }

    /// The `TEKSignatureList` message.
    private struct SignatureList: WireMessage {
        var signatures: [ENExportSignature]

        func write(to sink: inout some WireSink) {
            for signature in signatures { sink.writeMessage(ENExportSignature.signaturesField, signature) }
        }
    }
}
