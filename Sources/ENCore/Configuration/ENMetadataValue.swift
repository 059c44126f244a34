/// A JSON value: what ``ENExposureConfiguration/metadataValues`` holds, and ``ENExposureConfiguration/metadata`` shows as
/// Apple's `[AnyHashable: Any]`.
///
/// Apple's framework ignores metadata; apps use it to carry their own settings along with a configuration.
/// The type round-trips any JSON value through `Codable`.
public enum ENMetadataValue: Hashable, Sendable {
    /// JSON `null`.
    case null
    /// A boolean.
    case bool(Bool)
    /// A number.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([ENMetadataValue])
    /// An object.
    case object([String: ENMetadataValue])
}

extension ENMetadataValue: Codable {
    /// Decodes any JSON value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([ENMetadataValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: ENMetadataValue].self))
        }
    }

    /// Encodes the value as JSON.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}
