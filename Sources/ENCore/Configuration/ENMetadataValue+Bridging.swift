internal import Foundation

/// Conversion between JSON values and the `Any` values of Apple's `[AnyHashable: Any]` metadata.
extension ENMetadataValue {
    /// The JSON value of `value`, or nil when `value` is not one: a string, a boolean, a number (a Swift integer
    /// or floating-point type, `NSNumber`, `Decimal`), `NSNull`, an optional holding nil, an ``ENMetadataValue``,
    /// or an array or dictionary of those (entries that are not JSON values are left out).
    public init?(bridging value: Any) {
        let dynamicType = type(of: value)
        if dynamicType is NSNumber.Type, let number = value as? NSNumber {
            self = Self.number(number)
        } else if dynamicType == Bool.self, let boolean = value as? Bool {
            self = .bool(boolean)
        } else if let integer = value as? any BinaryInteger {
            self = .number(Self.double(integer))
        } else if let real = value as? any BinaryFloatingPoint {
            self = .number(Self.double(real))
        } else if let decimal = value as? Decimal {
            self = .number(NSDecimalNumber(decimal: decimal).doubleValue)
        } else if let string = value as? any StringProtocol {
            self = .string(String(string))
        } else if let json = value as? ENMetadataValue {
            self = json
        } else if value is NSNull {
            self = .null
        } else if let array = value as? [Any] {
            self = .array(array.compactMap(ENMetadataValue.init(bridging:)))
        } else if let dictionary = value as? [AnyHashable: Any] {
            var object: [String: ENMetadataValue] = [:]
            for (key, entry) in dictionary {
                guard let converted = ENMetadataValue(bridging: entry) else { continue }
                object[Self.keyString(key)] = converted
            }
            self = .object(object)
        } else {
            // An optional arrives here wrapped in `Any`: nil is JSON null, a value converts as itself.
            let mirror = Mirror(reflecting: value)
            guard mirror.displayStyle == .optional else { return nil }
            guard let wrapped = mirror.children.first?.value else {
                self = .null
                return
            }
            self.init(bridging: wrapped)
        }
    }

    /// The value as Apple's metadata holds it: `NSNull`, `Bool`, `Int` for a whole number that fits (else
    /// `Double`), `String`, `[Any]` or `[String: Any]`.
    public var bridgedValue: Any {
        switch self {
        case .null: NSNull()
        case .bool(let value): value
        case .number(let value):
            if value.rounded() == value, let integer = Int(exactly: value) { integer } else { value }
        case .string(let value): value
        case .array(let values): values.map(\.bridgedValue)
        case .object(let values): values.mapValues(\.bridgedValue)
        }
    }

    /// A dictionary key as a JSON object key: the string itself, or the key's description.
    private static func keyString(_ key: AnyHashable) -> String {
        key.base as? String ?? String(describing: key.base)
    }

    /// An `NSNumber` as a boolean when it holds one (Objective-C type `c` or `B` with the value 0 or 1), else as a
    /// number.
    private static func number(_ number: NSNumber) -> ENMetadataValue {
        let type = String(cString: number.objCType)
        if type == "c" || type == "B", number.intValue == 0 || number.intValue == 1 {
            return .bool(number.boolValue)
        }
        return .number(number.doubleValue)
    }

    private static func double(_ integer: some BinaryInteger) -> Double { Double(integer) }

    private static func double(_ real: some BinaryFloatingPoint) -> Double { Double(real) }
}
