extension ENError: CustomStringConvertible {
    /// `ENError.<code>: <context>: <reason>`, for example
    /// `ENError.badFormat: keys.zip: export.bin: keys[3].rolling_period: must be 1...144, got 0`.
    public var description: String {
        let place = context.description
        let parts = ["ENError.\(code)", place.isEmpty ? nil : place, reason.isEmpty ? nil : reason]
        return parts.compactMap { $0 }.joined(separator: ": ")
    }
}

extension ENError.Context: CustomStringConvertible {
    /// The parts that are set: `file: section[index].field`, empty when none is.
    public var description: String {
        var record = section ?? ""
        if let index { record += "[\(index)]" }
        if let field { record += record.isEmpty ? field : ".\(field)" }
        return [file, record.isEmpty ? nil : record].compactMap { $0 }.joined(separator: ": ")
    }
}
