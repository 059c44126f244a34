public import ENCore
public import Foundation

/// `export.bin`: the 16-byte header, then a `TemporaryExposureKeyExport` message.
extension ENKeyExport {
    // TemporaryExposureKeyExport field numbers (7 and 8 are ENExportKeySection's raw values).
    static let startTimestampField: UInt32 = 1
    static let endTimestampField: UInt32 = 2
    static let regionField: UInt32 = 3
    static let batchNumberField: UInt32 = 4
    static let batchSizeField: UInt32 = 5
    static let signatureInfosField: UInt32 = 6

    /// Decodes an `export.bin`: the 16-byte header, then the whole `TemporaryExposureKeyExport` message, in one
    /// pass with the decoder ``ENExportKeyScanner`` uses.
    ///
    /// Unknown and deprecated fields are skipped. Every key gets its effective values and is checked:
    /// 16-byte key data, rolling period 1...144 (absent means 144), transmission risk 0...8.
    ///
    /// - Throws: `ENError.Code.badFormat` for a wrong or short header, a truncated or malformed
    ///   message, a field of the wrong type, a bad key (naming it and the field), or more keys than `limits`.
    public init(exportBinary: Data, limits: ENExportLimits = .default) throws(ENError) {
        try Self.checkSize(exportBinary, limits: limits)
        var keys: [ENTemporaryExposureKey] = []
        var revisedKeys: [ENTemporaryExposureKey] = []
        self = try exportBinary.withBytes { (buffer) throws(ENError) in
            var walk = TopLevelWalk(buffer, maximumKeyCount: limits.maximumKeyCount)
            while let message = try walk.nextKeyMessage() {
                let key = try KeyMessage.read(buffer, message.range, section: message.section, index: message.index)
                if message.section == .keys { keys.append(key) } else { revisedKeys.append(key) }
            }
            return walk.metadata
        }
        self.keys = keys
        self.revisedKeys = revisedKeys
    }

    /// Throws `badFormat` unless `data` starts with ``header`` and is within the size limit.
    static func checkSize(_ data: Data, limits: ENExportLimits) throws(ENError) {
        guard data.count <= limits.maximumExportBinarySize else {
            throw .badFormat(
                "\(data.count) bytes, over the limit of \(limits.maximumExportBinarySize)",
                context: .init(section: "export.bin"))
        }
        try checkHeader(data)
    }

    /// Throws `badFormat` unless `data` starts with ``header``.
    static func checkHeader(_ data: Data) throws(ENError) {
        guard data.count >= header.count else {
            throw .badFormat(
                "\(data.count) bytes, shorter than the 16-byte header",
                context: .init(section: "export.bin", field: "header"))
        }
        guard data.prefix(header.count).elementsEqual(header) else {
            let found = Data(data.prefix(header.count)).hexString
            throw .badFormat(
                "\(found), expected \(header.hexString) (\"EK Export v1    \")",
                context: .init(section: "export.bin", field: "header"))
        }
    }

    /// How many key messages of each section a ``TopLevelWalk`` has passed.
    struct KeyCounts {
        var keys = 0
        var revisedKeys = 0
    }

    /// One key message found by a ``TopLevelWalk``: where it is, its section and its index in that section.
    struct KeyMessageLocation {
        var section: ENExportKeySection
        var range: Range<Int>
        var index: Int
    }

    /// One walk over the top-level fields of `export.bin`: metadata fields are decoded into ``metadata`` as
    /// they pass, every field's framing is checked, and key messages are handed out one at a time (their
    /// contents are read by ``KeyMessage``).
    struct TopLevelWalk {
        private var reader: WireReader
        /// Every field but the keys, as read so far (batch number and size `nil` until they appear).
        private(set) var metadata = ENKeyExport(batchNumber: nil, batchSize: nil)
        /// Key messages handed out so far, per section (`keys`, `revised_keys`).
        private(set) var counts: KeyCounts
        /// The most keys (both sections) the walk accepts.
        private let maximumKeyCount: Int

        /// A walk from just after the header, or from where an earlier walk stopped (`position`, `counts`).
        init(
            _ buffer: UnsafeRawBufferPointer, maximumKeyCount: Int, from position: Int = ENKeyExport.header.count,
            counts: KeyCounts = KeyCounts()
        ) {
            reader = WireReader(buffer, from: position, to: buffer.count)
            self.maximumKeyCount = maximumKeyCount
            self.counts = counts
        }

        /// Where the walk is: a later walk can start there.
        var position: Int { reader.position }

        /// The next key message of either section, or `nil` at the end of the message.
        ///
        /// - Throws: `badFormat` with the byte for a malformed field, its context the section `export.bin` (or
        ///   `signature_infos` and the index) and the field; or when the keys pass the maximum count.
        mutating func nextKeyMessage() throws(ENError) -> KeyMessageLocation? {
            let location: KeyMessageLocation
            do {
                guard let next = try nextKeyField() else { return nil }
                location = next
            } catch {
                throw error.adding(.init(section: "export.bin"))
            }
            guard counts.keys + counts.revisedKeys <= maximumKeyCount else {
                throw .badFormat(
                    "more than \(maximumKeyCount) keys", context: .init(section: "export.bin", field: "keys"))
            }
            return location
        }

        private mutating func nextKeyField() throws(ENError) -> KeyMessageLocation? {
            while !reader.isAtEnd {
                // Almost every field: a key message (field 7 or 8) of less than 128 bytes, one-byte tag and length.
                let start = reader.position
                if reader.end - start >= 2 {
                    let tag = reader.base[start]
                    let length = Int(reader.base[start + 1])
                    if tag == 0x3A || tag == 0x42, length < 0x80, reader.end - start - 2 >= length {
                        reader.position = start + 2 + length
                        let range = (start + 2)..<reader.position
                        if tag == 0x3A {
                            counts.keys += 1
                            return KeyMessageLocation(section: .keys, range: range, index: counts.keys - 1)
                        }
                        counts.revisedKeys += 1
                        return KeyMessageLocation(section: .revisedKeys, range: range, index: counts.revisedKeys - 1)
                    }
                }
                let tag = try reader.readTag()
                guard let section = ENExportKeySection(rawValue: Int(WireReader.field(tag))) else {
                    try readMetadata(tag)
                    continue
                }
                try reader.expect(tag, .lengthDelimited, section.fieldName)
                let range = try reader.readLengthDelimited()
                switch section {
                case .keys:
                    counts.keys += 1
                    return KeyMessageLocation(section: section, range: range, index: counts.keys - 1)
                case .revisedKeys:
                    counts.revisedKeys += 1
                    return KeyMessageLocation(section: section, range: range, index: counts.revisedKeys - 1)
                }
            }
            return nil
        }

        private mutating func readMetadata(_ tag: UInt32) throws(ENError) {
            switch WireReader.field(tag) {
            case startTimestampField:
                try reader.expect(tag, .fixed64, "start_timestamp")
                metadata.startTimestamp = try reader.readFixed64()
            case endTimestampField:
                try reader.expect(tag, .fixed64, "end_timestamp")
                metadata.endTimestamp = try reader.readFixed64()
            case regionField:
                try reader.expect(tag, .lengthDelimited, "region")
                metadata.region = try reader.readString("region")
            case batchNumberField:
                try reader.expect(tag, .varint, "batch_num")
                metadata.batchNumber = Int(try reader.readInt32())
            case batchSizeField:
                try reader.expect(tag, .varint, "batch_size")
                metadata.batchSize = Int(try reader.readInt32())
            case signatureInfosField:
                try reader.expect(tag, .lengthDelimited, "signature_infos")
                var info = ENExportSignatureInfo.empty
                do throws(ENError) {
                    try info.merge(reader.base, try reader.readLengthDelimited())
                } catch {
                    throw error.adding(.init(section: "signature_infos", index: metadata.signatureInfos.count))
                }
                metadata.signatureInfos.append(info)
            default:
                try reader.skip(tag: tag)
            }
        }
    }

    /// The `export.bin` bytes: the 16-byte header and the serialized message.
    ///
    /// Fields are written in field-number order, as protobuf serializers do. Keys are written with every field
    /// explicit (rolling period included, so that readers that do not apply the proto2 default still see 144);
    /// an unknown days-since-onset, report type or variant is omitted.
    ///
    /// - Throws: `ENError.Code.badParameter` naming the first key that fails
    ///   `ENTemporaryExposureKey.validate()` or whose rolling start does not fit an `int32`.
    public func exportBinary() throws(ENError) -> Data {
        for (section, list) in [(ENExportKeySection.keys, keys), (.revisedKeys, revisedKeys)] {
            for (index, key) in list.enumerated() {
                try KeyMessage.validateForWriting(key, section: section, index: index)
            }
        }
        return Self.encode(metadata: self, keys: keys, revisedKeys: revisedKeys)
    }

    /// The `export.bin` of `metadata` (its own keys ignored) with `keys` and `revisedKeys`, which must be valid
    /// (``KeyMessage/validateForWriting(_:section:index:)``). The buffer is sized exactly before it is written.
    /// With `omittingDefaults`, keys leave out a rolling start of 0 and a rolling period of 144, as Google's
    /// server writes them.
    static func encode(
        metadata: ENKeyExport, keys: some Collection<ENTemporaryExposureKey>,
        revisedKeys: some Collection<ENTemporaryExposureKey>, omittingDefaults: Bool = false
    ) -> Data {
        let fields = MetadataFields(metadata)
        var size = header.count + fields.encodedSize
        for key in keys { size += keyFieldSize(key, omittingDefaults: omittingDefaults) }
        for key in revisedKeys { size += keyFieldSize(key, omittingDefaults: omittingDefaults) }
        var data = Data(count: size)
        data.withUnsafeMutableBytes { bytes in
            var buffer = WireBuffer(bytes)
            header.withUnsafeBytes { buffer.append($0) }
            fields.write(to: &buffer)
            for key in keys {
                buffer.writeMessage(
                    ENExportKeySection.keys.field, KeyMessage.Encoding(key, omittingDefaults: omittingDefaults))
            }
            for key in revisedKeys {
                buffer.writeMessage(
                    ENExportKeySection.revisedKeys.field, KeyMessage.Encoding(key, omittingDefaults: omittingDefaults))
            }
            precondition(buffer.position == size, "export.bin: \(buffer.position) bytes written, \(size) computed")
        }
        return data
    }

    /// The bytes one key takes in `export.bin`: the field tag, the length prefix and the message.
    static func keyFieldSize(_ key: ENTemporaryExposureKey, omittingDefaults: Bool = false) -> Int {
        var counter = WireSizeCounter()
        counter.writeMessage(
            ENExportKeySection.keys.field, KeyMessage.Encoding(key, omittingDefaults: omittingDefaults))
        return counter.count
    }

    /// The bytes one key takes in `export.bin` written in `layout`.
    static func keyFieldSize(_ key: ENTemporaryExposureKey, layout: ENExportLayout) -> Int {
        keyFieldSize(key, omittingDefaults: layout == .googleServer)
    }

    /// Every field of the message before the keys.
    struct MetadataFields: WireMessage {
        let metadata: ENKeyExport

        init(_ metadata: ENKeyExport) { self.metadata = metadata }

        func write(to sink: inout some WireSink) {
            if let value = metadata.startTimestamp { sink.writeFixed64(startTimestampField, value) }
            if let value = metadata.endTimestamp { sink.writeFixed64(endTimestampField, value) }
            if let value = metadata.region { sink.writeString(regionField, value) }
            if let value = metadata.batchNumber { sink.writeInt32(batchNumberField, Int32(clamping: value)) }
            if let value = metadata.batchSize { sink.writeInt32(batchSizeField, Int32(clamping: value)) }
            for info in metadata.signatureInfos { sink.writeMessage(signatureInfosField, info) }
        }
    }
}
