internal import Foundation

/// A JSON value written as Go's `encoding/json` writes it (`json.Encoder.Encode`): compact, object members in the
/// order given (Go writes struct fields in declaration order and map keys sorted), strings with `<`, `>`, `&`,
/// U+2028 and U+2029 escaped as `\u003c` and so on, and invalid UTF-8 already impossible in Swift strings.
enum GoJSONValue: Sendable, Hashable {
    case string(String)
    case integer(Int64)
    /// A float32, written as Go writes one (integral values without a fraction).
    case float(Float)
    case bool(Bool)
    case array([GoJSONValue])
    case object([Member])
    case null

    /// One member of an object.
    struct Member: Sendable, Hashable {
        var name: String
        var value: GoJSONValue

        init(_ name: String, _ value: GoJSONValue) {
            self.name = name
            self.value = value
        }
    }

    /// The encoding, with the newline `json.Encoder.Encode` ends with.
    var encodedLine: Data {
        var text = ""
        write(to: &text)
        text.append("\n")
        return Data(text.utf8)
    }

    func write(to text: inout String) {
        switch self {
        case .string(let value): Self.writeString(value, to: &text)
        case .integer(let value): text.append(String(value))
        case .float(let value):
            if value.isFinite, value == value.rounded(), abs(value) < 1e18 {
                text.append(String(Int64(value)))
            } else {
                text.append("\(value)")
            }
        case .bool(let value): text.append(value ? "true" : "false")
        case .null: text.append("null")
        case .array(let values):
            text.append("[")
            for (index, value) in values.enumerated() {
                if index > 0 { text.append(",") }
                value.write(to: &text)
            }
            text.append("]")
        case .object(let members):
            text.append("{")
            for (index, member) in members.enumerated() {
                if index > 0 { text.append(",") }
                Self.writeString(member.name, to: &text)
                text.append(":")
                member.value.write(to: &text)
            }
            text.append("}")
        }
    }

    /// `value` quoted as Go's `%q` quotes a printable ASCII string.
    static func quoted(_ value: String) -> String {
        var text = ""
        writeString(value, to: &text)
        return text
    }

    /// Go's `encodeState.string` with HTML escaping on.
    static func writeString(_ value: String, to text: inout String) {
        let hex = Array("0123456789abcdef")
        text.append("\"")
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text.append("\\\"")
            case "\\": text.append("\\\\")
            case "\n": text.append("\\n")
            case "\r": text.append("\\r")
            case "\t": text.append("\\t")
            case "<", ">", "&", "\u{2028}", "\u{2029}":
                let v = scalar.value
                text.append("\\u")
                for shift in [12, 8, 4, 0] { text.append(hex[Int((v >> UInt32(shift)) & 0xF)]) }
            default:
                if scalar.value < 0x20 {
                    text.append("\\u00")
                    text.append(hex[Int(scalar.value >> 4)])
                    text.append(hex[Int(scalar.value & 0xF)])
                } else {
                    text.unicodeScalars.append(scalar)
                }
            }
        }
        text.append("\"")
    }
}

/// A value that Go's server would encode with these members, in this order, empty ones already left out where
/// its struct tags say `omitempty`.
protocol GoJSONEncodable: Encodable {
    /// The members, in Go's order.
    var goJSONMembers: [GoJSONValue.Member] { get }
}

extension GoJSONEncodable {
    /// The exact bytes Google's server answers with (`json.NewEncoder(w).Encode(value)`), final newline included.
    var goJSONData: Data { GoJSONValue.object(goJSONMembers).encodedLine }

    /// Encodes the same members through any `Encoder` (in the order the encoder keeps).
    func encodeGoMembers(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: GoJSONKey.self)
        for member in goJSONMembers {
            try container.encode(GoJSONEncodedValue(member.value), forKey: GoJSONKey(member.name))
        }
    }
}

/// A coding key of any name.
struct GoJSONKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// A ``GoJSONValue`` through `Encodable`.
struct GoJSONEncodedValue: Encodable {
    var value: GoJSONValue
    init(_ value: GoJSONValue) { self.value = value }

    func encode(to encoder: any Encoder) throws {
        switch value {
        case .string(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        case .integer(let number):
            var container = encoder.singleValueContainer()
            try container.encode(number)
        case .float(let number):
            var container = encoder.singleValueContainer()
            try container.encode(number)
        case .bool(let flag):
            var container = encoder.singleValueContainer()
            try container.encode(flag)
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .array(let values):
            var container = encoder.unkeyedContainer()
            for value in values { try container.encode(GoJSONEncodedValue(value)) }
        case .object(let members):
            var container = encoder.container(keyedBy: GoJSONKey.self)
            for member in members {
                try container.encode(GoJSONEncodedValue(member.value), forKey: GoJSONKey(member.name))
            }
        }
    }
}
