import ENCore
import Foundation

/// The keys `entool export --keys KEYS.json` reads: new keys and revised keys, in the file's order.
struct ExportKeyLists {
    var keys: [ENTemporaryExposureKey] = []
    var revisedKeys: [ENTemporaryExposureKey] = []
}

/// Reads KEYS.json for `entool export`, streaming: a JSON array of DESIGN's KEY objects, or an object whose
/// `keys` (and optional `revisedKeys`) member holds them, such as `entool inspect --json`'s whole output.
///
/// A KEY is `{"keyData": HEX, "rollingStartIntervalNumber": N, "rollingPeriod": N, "transmissionRiskLevel": N,
/// "reportType": N, "daysSinceOnsetOfSymptoms": N, "variantOfConcern": N}`: `keyData` (32 hex digits, either
/// case) and `rollingStartIntervalNumber` are required; the others may be absent or `null` (rolling period 144,
/// risk 0, unknown report type, days and variant). Other members are skipped, as JSON decoders do; a member
/// given twice is refused.
///
/// The file is read in chunks and parsed byte by byte into keys, so memory holds the keys and one chunk, not
/// the text. An error's context names the file, the list and the key's index in it (`keys[3]`) and the
/// member (`field`); its reason has the line and column: `badFormat` for syntax, a wrong type, or a missing or
/// repeated member; `badParameter` for a value out of range.
enum ExportKeyReader {
    /// Reads the keys of the file at `path`.
    static func read(path: String) throws(ENError) -> ExportKeyLists {
        do {
            return try readLists(path: path)
        } catch {
            throw error.adding(.init(file: path))
        }
    }

    private static func readLists(path: String) throws(ENError) -> ExportKeyLists {
        var input = try JSONInput(path: path)
        var lists = ExportKeyLists()
        switch try input.skipWhitespace() {
        case UInt8(ascii: "["):
            lists.keys = try readKeys(&input, list: "keys")
        case UInt8(ascii: "{"):
            input.advance()
            var seen = (keys: false, revisedKeys: false)
            if try input.skipWhitespace() != UInt8(ascii: "}") {
                repeat {
                    switch try readMemberName(&input, in: "the top-level object") {
                    case MemberName.keys:
                        guard !seen.keys else { throw input.error("the top-level object has \"keys\" twice") }
                        seen.keys = true
                        lists.keys = try readKeys(&input, list: "keys")
                    case MemberName.revisedKeys:
                        guard !seen.revisedKeys else {
                            throw input.error("the top-level object has \"revisedKeys\" twice")
                        }
                        seen.revisedKeys = true
                        if try !input.skipNull() { lists.revisedKeys = try readKeys(&input, list: "revisedKeys") }
                    default:
                        try input.skipValue(depth: 1)
                    }
                } while try input.endOfMember(closing: UInt8(ascii: "}"), "',' or '}' in the top-level object")
            } else {
                input.advance()
            }
            guard seen.keys else { throw input.error("the top-level object has no \"keys\" member") }
        default:
            throw input.error(
                "expected a JSON array of keys, or an object with \"keys\" (entool inspect --json's output)"
                    + input.found())
        }
        try input.expectEnd()
        return lists
    }

    /// An array of KEY objects; `list` is the section of errors' context, each key's position its index.
    private static func readKeys(_ input: inout JSONInput, list: String) throws(ENError) -> [ENTemporaryExposureKey] {
        guard try input.skipWhitespace() == UInt8(ascii: "[") else {
            throw input.error(
                "must be an array of keys, got \(try input.nextValueKind())", context: .init(section: list))
        }
        input.advance()
        var keys: [ENTemporaryExposureKey] = []
        if try input.skipWhitespace() == UInt8(ascii: "]") {
            input.advance()
            return keys
        }
        var more = true
        while more {
            let index = keys.count
            do throws(ENError) {
                keys.append(try readKey(&input))
                more = try input.endOfMember(closing: UInt8(ascii: "]"), "',' or ']' after a key")
            } catch {
                throw error.adding(.init(section: list, index: index))
            }
        }
        return keys
    }

    /// The members of a KEY object, as they are read.
    private struct KeyMembers {
        var keyData: (low: UInt64, high: UInt64)?
        var rollingStartIntervalNumber: Int64?
        var rollingPeriod: Int64?
        var transmissionRiskLevel: Int64?
        var reportType: Int64?
        var daysSinceOnsetOfSymptoms: Int64?
        var variantOfConcern: Int64?
        /// Which members were given, one bit each, to refuse repeats.
        var given: UInt32 = 0
    }

    /// One KEY object; the caller adds which key it is to an error's context.
    private static func readKey(_ input: inout JSONInput) throws(ENError) -> ENTemporaryExposureKey {
        guard try input.skipWhitespace() == UInt8(ascii: "{") else {
            throw input.error("must be an object, got \(try input.nextValueKind())")
        }
        input.advance()
        var members = KeyMembers()
        if try input.skipWhitespace() == UInt8(ascii: "}") {
            input.advance()
        } else {
            repeat {
                try readKeyMember(&input, into: &members)
            } while try input.endOfMember(closing: UInt8(ascii: "}"), "',' or '}' in a key")
        }
        guard let keyData = members.keyData else {
            throw input.error("the key has no keyData", context: .init(field: "keyData"))
        }
        guard let start = members.rollingStartIntervalNumber else {
            throw input.error(
                "the key has no rollingStartIntervalNumber", context: .init(field: "rollingStartIntervalNumber"))
        }
        // Every value was range-checked as it was read, so the key is valid (ENTemporaryExposureKey.validate()).
        return withUnsafeBytes(of: (keyData.low.littleEndian, keyData.high.littleEndian)) { bytes in
            ENTemporaryExposureKey(
                keyDataBytes: bytes, rollingStartNumber: ENIntervalNumber(start),
                rollingPeriod: UInt32(members.rollingPeriod ?? Int64(ENTemporaryExposureKey.defaultRollingPeriod)),
                transmissionRiskLevel: ENRiskLevel(members.transmissionRiskLevel ?? 0),
                diagnosisReportType: ENDiagnosisReportType(rawValue: UInt32(members.reportType ?? 0))!,
                daysSinceOnsetOfSymptoms: members.daysSinceOnsetOfSymptoms.map { Int($0) }
                    ?? ENDaysSinceOnsetOfSymptomsUnknown,
                variantOfConcern: ENVariantOfConcernType(rawValue: UInt32(members.variantOfConcern ?? 0))!)
        }
    }

    private static func readKeyMember(_ input: inout JSONInput, into members: inout KeyMembers) throws(ENError) {
        let member = try readMemberName(&input, in: "a key")
        /// Records that member number `bit` was given, refusing a repeat.
        func once(_ bit: Int, _ text: String) throws(ENError) {
            guard members.given & (1 << bit) == 0 else {
                throw input.error("given twice", context: .init(field: text))
            }
            members.given |= 1 << bit
        }
        switch member {
        case MemberName.keyData:
            try once(0, "keyData")
            members.keyData = try readKeyData(&input)
        case MemberName.rollingStartIntervalNumber:
            try once(1, "rollingStartIntervalNumber")
            members.rollingStartIntervalNumber = try readInteger(
                &input, "rollingStartIntervalNumber", 0...Int64(Int32.max),
                "an interval number 0...2147483647 (export files carry an int32)", nullable: false)
        case MemberName.rollingPeriod:
            try once(2, "rollingPeriod")
            members.rollingPeriod = try readInteger(&input, "rollingPeriod", 1...144, "1...144 intervals")
        case MemberName.transmissionRiskLevel:
            try once(3, "transmissionRiskLevel")
            members.transmissionRiskLevel = try readInteger(&input, "transmissionRiskLevel", 0...8, "0...8")
        case MemberName.reportType:
            try once(4, "reportType")
            members.reportType = try readInteger(&input, "reportType", 0...5, "0...5")
        case MemberName.daysSinceOnsetOfSymptoms:
            try once(5, "daysSinceOnsetOfSymptoms")
            members.daysSinceOnsetOfSymptoms = try readInteger(
                &input, "daysSinceOnsetOfSymptoms", -14...14, "-14...14")
        case MemberName.variantOfConcern:
            try once(6, "variantOfConcern")
            members.variantOfConcern = try readInteger(&input, "variantOfConcern", 0...4, "0...4")
        default:
            try input.skipValue(depth: 3)
        }
    }

    /// `keyData`: 32 hex digits, read straight into the key's two words.
    private static func readKeyData(_ input: inout JSONInput) throws(ENError) -> (low: UInt64, high: UInt64) {
        guard try input.skipWhitespace() == UInt8(ascii: "\"") else {
            throw input.error(
                "must be a string of 32 hex digits, got \(try input.nextValueKind())", context: .init(field: "keyData"))
        }
        let start = input.offset + 1
        input.advance()
        var words: (low: UInt64, high: UInt64) = (0, 0)
        var count = 0
        var valid = true
        try input.readString { run in
            // The common case: all 32 digits in one run, decoded without a branch per digit.
            if count == 0, run.count == 32, let decoded = decodeHex32(run) {
                words = decoded
                count = 32
                return
            }
            for byte in run {
                if count < 32, let nibble = JSONInput.hexValue(byte) {
                    // Digit i is byte i / 2 of the key (high nibble first); byte j sits at bit 8 * j of its word.
                    let shift = UInt64((count & 15) >> 1) * 8 + (count & 1 == 0 ? 4 : 0)
                    if count < 16 {
                        words.low |= UInt64(nibble) << shift
                    } else {
                        words.high |= UInt64(nibble) << shift
                    }
                } else {
                    valid = false
                }
                count += 1
            }
        }
        guard valid, count == 32 else {
            let text = input.excerpt(from: start).prefix { $0 != "\"" }
            throw input.error(
                "must be 16 bytes as 32 hex digits, got '\(text)\(count > 40 ? "..." : "")'", code: .badParameter,
                context: .init(field: "keyData"))
        }
        return words
    }

    /// 32 hex digits (either case) as the key's two words (byte j at bit 8 * j, high nibble first), or nil when
    /// one is not a hex digit.
    @inline(__always)
    private static func decodeHex32(_ digits: UnsafeRawBufferPointer) -> (low: UInt64, high: UInt64)? {
        var invalid = false
        var words: (low: UInt64, high: UInt64) = (0, 0)
        for index in 0..<16 {
            let high = digits[2 * index]
            let low = digits[2 * index + 1]
            invalid = invalid || !isHexDigit(high) || !isHexDigit(low)
            let byte = UInt64(nibble(high) << 4 | nibble(low)) << (UInt64(index & 7) * 8)
            if index < 8 { words.low |= byte } else { words.high |= byte }
        }
        return invalid ? nil : words
    }

    /// Whether `byte` is `0-9`, `a-f` or `A-F`.
    @inline(__always)
    private static func isHexDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10 || (byte | 0x20) &- UInt8(ascii: "a") < 6
    }

    /// The value of a hex digit already checked by ``isHexDigit(_:)``: the low four bits, plus 9 for letters.
    @inline(__always)
    private static func nibble(_ byte: UInt8) -> UInt8 {
        (byte & 0x0F) &+ 9 &* (byte >> 6)
    }

    /// An integer member in `range` (`null` reads as absent when `nullable`).
    private static func readInteger(
        _ input: inout JSONInput, _ member: String, _ range: ClosedRange<Int64>,
        _ rangeText: String, nullable: Bool = true
    ) throws(ENError) -> Int64? {
        switch try input.skipWhitespace() ?? 0 {
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let start = input.offset
            guard let value = try input.readInteger(in: range) else {
                let text = input.excerpt(from: start).prefix { "+-.0123456789eE".contains($0) }
                throw input.error(
                    "must be \(rangeText), got \(text)", code: .badParameter, context: .init(field: member))
            }
            return value
        case UInt8(ascii: "n") where nullable:
            _ = try input.skipNull()
            return nil
        default:
            throw input.error(
                "must be \(rangeText), got \(try input.nextValueKind())", context: .init(field: member))
        }
    }

    /// Reads `"name":` and returns the name packed for comparison with ``MemberName``'s constants.
    private static func readMemberName(
        _ input: inout JSONInput, in object: @autoclosure () -> String
    ) throws(ENError) -> MemberName {
        try input.expect(UInt8(ascii: "\""), "a member name in quotes in \(object())")
        var name = MemberName()
        try input.readString { name.append($0) }
        try input.expect(UInt8(ascii: ":"), "':' after a member name in \(object())")
        return name
    }

    /// A member name of up to 32 bytes packed into four words (a longer one is none of ours), compared whole.
    private struct MemberName: Equatable {
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        var count = 0

        @inline(__always)
        mutating func append(_ run: UnsafeRawBufferPointer) {
            let stored = min(run.count, 32 - min(count, 32))
            if stored > 0 {
                let at = count
                withUnsafeMutableBytes(of: &words) {
                    $0.baseAddress!.advanced(by: at).copyMemory(from: run.baseAddress!, byteCount: stored)
                }
            }
            count += run.count
        }

        init() {}

        init(_ text: StaticString) {
            append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }

        static func == (a: MemberName, b: MemberName) -> Bool {
            a.count == b.count && a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2
                && a.words.3 == b.words.3
        }

        static let keys = MemberName("keys")
        static let revisedKeys = MemberName("revisedKeys")
        static let keyData = MemberName("keyData")
        static let rollingStartIntervalNumber = MemberName("rollingStartIntervalNumber")
        static let rollingPeriod = MemberName("rollingPeriod")
        static let transmissionRiskLevel = MemberName("transmissionRiskLevel")
        static let reportType = MemberName("reportType")
        static let daysSinceOnsetOfSymptoms = MemberName("daysSinceOnsetOfSymptoms")
        static let variantOfConcern = MemberName("variantOfConcern")

    }
}
