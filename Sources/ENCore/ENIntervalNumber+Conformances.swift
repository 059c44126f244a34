extension ENIntervalNumber: ExpressibleByIntegerLiteral {
    /// Creates an interval number from an integer literal.
    public init(integerLiteral value: UInt32) { self.rawValue = value }
}

extension ENIntervalNumber: Strideable {
    /// The signed number of intervals from `self` to `other`.
    public func distance(to other: ENIntervalNumber) -> Int { intervals(to: other) }
    /// The interval `n` intervals later, clamped to the `UInt32` range.
    public func advanced(by n: Int) -> ENIntervalNumber { adding(n) }
}

extension ENIntervalNumber: Codable {
    /// Decodes a bare number.
    public init(from decoder: any Decoder) throws {
        self.rawValue = try decoder.singleValueContainer().decode(UInt32.self)
    }
    /// Encodes a bare number.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

extension ENIntervalNumber: CustomStringConvertible {
    /// The raw value in decimal.
    public var description: String { String(rawValue) }
}
