import ENCore

/// The `SignatureInfo` message, in `export.bin` (field 6) and in each `TEKSignature` of `export.sig`.
extension ENExportSignatureInfo: WireMessage {
    // Field numbers; 1 and 2 (app_bundle_id, android_package) are deprecated and skipped when reading.
    static let versionField: UInt32 = 3
    static let idField: UInt32 = 4
    static let algorithmField: UInt32 = 5

    /// No field present.
    static let empty = ENExportSignatureInfo(
        verificationKeyID: nil, verificationKeyVersion: nil, signatureAlgorithm: nil)

    /// Reads the message at `range` over what is already set (proto2 merges a message field that repeats).
    ///
    /// - Throws: `badFormat` with the byte (and the field in its context) for a malformed message, a field of
    ///   the wrong wire type or a string that is not UTF-8; the caller adds which `SignatureInfo` it is.
    mutating func merge(_ buffer: UnsafeRawBufferPointer, _ range: Range<Int>) throws(ENError) {
        var reader = WireReader(buffer, from: range.lowerBound, to: range.upperBound)
        while !reader.isAtEnd {
            let tag = try reader.readTag()
            switch WireReader.field(tag) {
            case Self.versionField:
                try reader.expect(tag, .lengthDelimited, "verification_key_version")
                verificationKeyVersion = try reader.readString("verification_key_version")
            case Self.idField:
                try reader.expect(tag, .lengthDelimited, "verification_key_id")
                verificationKeyID = try reader.readString("verification_key_id")
            case Self.algorithmField:
                try reader.expect(tag, .lengthDelimited, "signature_algorithm")
                signatureAlgorithm = try reader.readString("signature_algorithm")
            default:
                try reader.skip(tag: tag)
            }
        }
    }

    func write(to sink: inout some WireSink) {
        if let verificationKeyVersion { sink.writeString(Self.versionField, verificationKeyVersion) }
        if let verificationKeyID { sink.writeString(Self.idField, verificationKeyID) }
        if let signatureAlgorithm { sink.writeString(Self.algorithmField, signatureAlgorithm) }
    }
}
