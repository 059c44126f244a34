import ENCore
import Foundation

/// The `TemporaryExposureKey` message of `export.proto`: the one decoder and the one encoder of a key.
enum KeyMessage {
    // Field numbers.
    static let keyDataField: UInt32 = 1
    static let transmissionRiskLevelField: UInt32 = 2
    static let rollingStartIntervalNumberField: UInt32 = 3
    static let rollingPeriodField: UInt32 = 4
    static let reportTypeField: UInt32 = 5
    static let daysSinceOnsetOfSymptomsField: UInt32 = 6
    static let variantOfConcernField: UInt32 = 8

    /// The schema's name and wire type of a key field, for refusing a known field sent with another wire type.
    static func schema(of field: UInt32) -> (name: String, wireType: WireReader.WireType)? {
        switch field {
        case keyDataField: ("key_data", .lengthDelimited)
        case transmissionRiskLevelField: ("transmission_risk_level", .varint)
        case rollingStartIntervalNumberField: ("rolling_start_interval_number", .varint)
        case rollingPeriodField: ("rolling_period", .varint)
        case reportTypeField: ("report_type", .varint)
        case daysSinceOnsetOfSymptomsField: ("days_since_onset_of_symptoms", .varint)
        case variantOfConcernField: ("variant_of_concern", .varint)
        default: nil
        }
    }

    /// Decodes the key message at `range`; an error's context names the key (section `keys`, its index) and
    /// the field.
    @inline(__always)
    static func read(
        _ buffer: UnsafeRawBufferPointer, _ range: Range<Int>, section: ENExportKeySection, index: Int
    ) throws(ENError) -> ENTemporaryExposureKey {
        do {
            return try read(buffer, range)
        } catch {
            throw error.adding(.init(section: section.fieldName, index: index))
        }
    }

    /// Decodes a key message and checks its values:
    ///
    /// - key_data must be present and 16 bytes;
    /// - an absent rolling_start_interval_number is 0 (servers omit zero), a negative one is refused;
    /// - an absent rolling_period is 144; one outside 1...144 is refused;
    /// - an absent transmission_risk_level is 0; one outside 0...8 is refused;
    /// - a report type or variant outside its enum reads as unknown, and does not replace an earlier recognised
    ///   value of the same field (proto2 keeps unrecognised enum values aside);
    /// - days since onset outside -14...14 (country-specific encodings reach 4000) read as unknown;
    /// - unknown fields are skipped; a known field with another wire type than the schema's is refused.
    ///
    /// The checks leave nothing for `ENTemporaryExposureKey.validate()` to find (a start of at most `Int32.max`
    /// plus 144 cannot overflow), so it is not called.
    @inline(__always)
    static func read(_ buffer: UnsafeRawBufferPointer, _ range: Range<Int>) throws(ENError)
        -> ENTemporaryExposureKey
    {
        if let key = readCanonical(buffer, range) { return key }
        return try readFields(buffer, range)
    }

    /// The canonical encoding in one pass with nothing to throw: the fields in schema order, each at most once,
    /// 16 bytes of key data first, one-byte tags and values (the rolling start: a varint of up to 5 bytes), every
    /// value one that ``readFields(_:_:)`` accepts unchanged (every key that `ENExportWriter` and the known
    /// servers write). Anything else returns `nil` and the general loop decides, with its errors and lenient
    /// rules; for every message this accepts, both give the same key (the tests compare them with swift-protobuf
    /// on random encodings).
    @inline(__always)
    private static func readCanonical(_ buffer: UnsafeRawBufferPointer, _ range: Range<Int>)
        -> ENTemporaryExposureKey?
    {
        let end = range.upperBound
        var position = range.lowerBound
        // key_data (field 1, length-delimited), 16 bytes.
        guard end - position >= 18, buffer[position] == 0x0A, buffer[position + 1] == 16 else { return nil }
        let keyBytes = UnsafeRawBufferPointer(rebasing: buffer[(position + 2)..<(position + 18)])
        position += 18
        /// A varint of at most 5 bytes whose value is at most `Int32.max`, or nil.
        func varint() -> UInt32? {
            var value: UInt32 = 0
            var shift: UInt32 = 0
            while position < end, shift < 35 {
                let byte = buffer[position]
                position += 1
                value |= UInt32(truncatingIfNeeded: byte & 0x7F) << shift
                if byte & 0x80 == 0 { return shift < 28 || byte < 0x08 ? value : nil }
                shift += 7
            }
            return nil
        }
        var risk: UInt8 = 0
        if position < end, buffer[position] == 0x10 {
            guard end - position >= 2, buffer[position + 1] <= 8 else { return nil }
            risk = buffer[position + 1]
            position += 2
        }
        var start: UInt32 = 0
        if position < end, buffer[position] == 0x18 {
            position += 1
            guard let value = varint() else { return nil }
            start = value
        }
        var period = ENTemporaryExposureKey.defaultRollingPeriod
        if position < end, buffer[position] == 0x20 {
            position += 1
            guard let value = varint(), value >= 1, value <= ENTemporaryExposureKey.defaultRollingPeriod else {
                return nil
            }
            period = value
        }
        var reportType = ENDiagnosisReportType.unknown
        if position < end, buffer[position] == 0x28 {
            guard end - position >= 2, let known = ENDiagnosisReportType(rawValue: UInt32(buffer[position + 1]))
            else { return nil }
            reportType = known
            position += 2
        }
        var days = ENDaysSinceOnsetOfSymptomsUnknown
        if position < end, buffer[position] == 0x30 {
            guard end - position >= 2, buffer[position + 1] < 0x80 else { return nil }
            let raw = Int(buffer[position + 1])
            let value = (raw >> 1) ^ -(raw & 1)
            days =
                ENTemporaryExposureKey.daysSinceOnsetRange.contains(value) ? value : ENDaysSinceOnsetOfSymptomsUnknown
            position += 2
        }
        var variant = ENVariantOfConcernType.unknown
        if position < end, buffer[position] == 0x40 {
            guard end - position >= 2, let known = ENVariantOfConcernType(rawValue: UInt32(buffer[position + 1]))
            else { return nil }
            variant = known
            position += 2
        }
        guard position == end else { return nil }
        return ENTemporaryExposureKey(
            keyDataBytes: keyBytes, rollingStartNumber: ENIntervalNumber(start), rollingPeriod: period,
            transmissionRiskLevel: ENRiskLevel(risk), diagnosisReportType: reportType,
            daysSinceOnsetOfSymptoms: days, variantOfConcern: variant)
    }

    /// Any encoding, field by field, with the checks listed at ``read(_:_:section:index:)``.
    @inline(never)
    private static func readFields(_ buffer: UnsafeRawBufferPointer, _ range: Range<Int>) throws(ENError)
        -> ENTemporaryExposureKey
    {
        var reader = WireReader(buffer, from: range.lowerBound, to: range.upperBound)
        var keyBytes: Range<Int>?
        var risk: Int32 = 0
        var start: Int32 = 0
        var period = Int32(ENTemporaryExposureKey.defaultRollingPeriod)
        var reportType = ENDiagnosisReportType.unknown
        var days = ENDaysSinceOnsetOfSymptomsUnknown
        var variant = ENVariantOfConcernType.unknown
        while !reader.isAtEnd {
            let tag = try reader.readTag()
            switch tag {
            case keyDataField << 3 | 2: keyBytes = try reader.readLengthDelimited()
            case transmissionRiskLevelField << 3: risk = try reader.readInt32()
            case rollingStartIntervalNumberField << 3: start = try reader.readInt32()
            case rollingPeriodField << 3: period = try reader.readInt32()
            case reportTypeField << 3:
                let value = try reader.readInt32()
                if value >= 0, let known = ENDiagnosisReportType(rawValue: UInt32(value)) { reportType = known }
            case daysSinceOnsetOfSymptomsField << 3:
                let raw = UInt32(truncatingIfNeeded: try reader.readVarint())
                let value = Int(Int32(bitPattern: raw >> 1) ^ -Int32(bitPattern: raw & 1))
                days =
                    ENTemporaryExposureKey.daysSinceOnsetRange.contains(value)
                    ? value : ENDaysSinceOnsetOfSymptomsUnknown
            case variantOfConcernField << 3:
                let value = try reader.readInt32()
                if value >= 0, let known = ENVariantOfConcernType(rawValue: UInt32(value)) { variant = known }
            default:
                if let (name, wireType) = schema(of: WireReader.field(tag)) { try reader.expect(tag, wireType, name) }
                try reader.skip(tag: tag)
            }
        }
        guard let keyBytes else { throw .badFormat("missing", context: .init(field: "key_data")) }
        guard keyBytes.count == ENTemporaryExposureKey.keyLength else {
            throw .badFormat(
                "\(keyBytes.count) bytes, expected \(ENTemporaryExposureKey.keyLength)",
                context: .init(field: "key_data"))
        }
        guard start >= 0 else {
            throw .badFormat("\(start) is negative", context: .init(field: "rolling_start_interval_number"))
        }
        guard period >= 1, period <= Int32(ENTemporaryExposureKey.defaultRollingPeriod) else {
            throw .badFormat("\(period) is outside 1...144", context: .init(field: "rolling_period"))
        }
        guard risk >= 0, risk <= Int32(ENTemporaryExposureKey.transmissionRiskLevelRange.upperBound) else {
            throw .badFormat("\(risk) is outside 0...8", context: .init(field: "transmission_risk_level"))
        }
        return ENTemporaryExposureKey(
            keyDataBytes: UnsafeRawBufferPointer(rebasing: buffer[keyBytes]),
            rollingStartNumber: ENIntervalNumber(start), rollingPeriod: UInt32(period),
            transmissionRiskLevel: ENRiskLevel(risk), diagnosisReportType: reportType,
            daysSinceOnsetOfSymptoms: days, variantOfConcern: variant)
    }

    /// Checks a key before it is written: `ENTemporaryExposureKey.validate()`, and a rolling start that fits
    /// the file's `int32` field. Refusals are `badParameter` with the key's section and index in their context
    /// (and the field, as `validate()` names it).
    static func validateForWriting(
        _ key: ENTemporaryExposureKey, section: ENExportKeySection, index: Int
    ) throws(ENError) {
        do throws(ENError) {
            try key.validate()
            guard key.rollingStartNumber <= UInt32(Int32.max) else {
                throw .badParameter(
                    "\(key.rollingStartNumber) does not fit an int32", context: .init(field: "rollingStartNumber"))
            }
        } catch {
            throw error.adding(.init(section: section.fieldName, index: index))
        }
    }

    /// A validated key as a message: every field explicit, the rolling period included (readers that do not
    /// apply the proto2 default would otherwise see 0); an unknown days since onset, report type or variant is
    /// left out. With `omittingDefaults`, a rolling start of 0 and a rolling period of 144 are left out too, as
    /// Google's server writes keys (exportfile.go `makeTEK`).
    struct Encoding: WireMessage {
        let key: ENTemporaryExposureKey
        let omittingDefaults: Bool

        init(_ key: ENTemporaryExposureKey, omittingDefaults: Bool = false) {
            self.key = key
            self.omittingDefaults = omittingDefaults
        }

        @inline(__always)
        func write(to sink: inout some WireSink) {
            if let (low, high) = key.keyDataWords {
                withUnsafeBytes(of: (low.littleEndian, high.littleEndian)) {
                    sink.writeBytes(KeyMessage.keyDataField, $0)
                }
            } else {
                key.keyData.withUnsafeBytes { sink.writeBytes(KeyMessage.keyDataField, $0) }
            }
            sink.writeInt32(KeyMessage.transmissionRiskLevelField, Int32(key.transmissionRiskLevel))
            if !omittingDefaults || key.rollingStartNumber != 0 {
                sink.writeInt32(
                    KeyMessage.rollingStartIntervalNumberField, Int32(bitPattern: key.rollingStartNumber))
            }
            if !omittingDefaults || key.rollingPeriod != ENTemporaryExposureKey.defaultRollingPeriod {
                sink.writeInt32(KeyMessage.rollingPeriodField, Int32(truncatingIfNeeded: key.rollingPeriod))
            }
            if key.diagnosisReportType != .unknown {
                sink.writeInt32(KeyMessage.reportTypeField, Int32(truncatingIfNeeded: key.diagnosisReportType.rawValue))
            }
            if key.hasKnownDaysSinceOnsetOfSymptoms {
                sink.writeSInt32(
                    KeyMessage.daysSinceOnsetOfSymptomsField, Int32(truncatingIfNeeded: key.daysSinceOnsetOfSymptoms))
            }
            if key.variantOfConcern != .unknown {
                sink.writeInt32(
                    KeyMessage.variantOfConcernField, Int32(truncatingIfNeeded: key.variantOfConcern.rawValue))
            }
        }
    }
}
