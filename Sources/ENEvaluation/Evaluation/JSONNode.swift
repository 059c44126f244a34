internal import ENCore
import Foundation

/// A parsed JSON value with the path that reached it, so every error names its place.
///
/// Built on `JSONSerialization` (no I/O: the caller passes bytes); numbers keep their `NSNumber` so booleans
/// are told apart from 0 and 1.
struct JSONNode {
    let value: Any
    let path: String
    let section: String

    /// Parses `data` into the root node; a value that is not a JSON object is bad input.
    static func root(_ data: Data, section: String) throws(ENError) -> JSONNode {
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw ENError.badFormat("not valid JSON", context: ENError.Context(section: section))
        }
        guard parsed is [String: Any] else {
            throw ENError.badFormat("must be a JSON object", context: ENError.Context(section: section))
        }
        return JSONNode(value: parsed, path: "", section: section)
    }

    func failure(_ reason: String, field: String? = nil) -> ENError {
        .badFormat(reason, context: ENError.Context(section: section, field: field ?? (path.isEmpty ? nil : path)))
    }

    func renamed(section: String) -> JSONNode { JSONNode(value: value, path: path, section: section) }

    private func childPath(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    var isNull: Bool { value is NSNull }

    func object() throws(ENError) -> [String: Any] {
        guard let object = value as? [String: Any] else { throw failure("must be an object") }
        return object
    }

    func keys() throws(ENError) -> [String] { try object().keys.sorted() }

    /// The member `key`, or nil when it is absent (a JSON null counts as absent).
    func optional(_ key: String) throws(ENError) -> JSONNode? {
        guard let member = try object()[key], !(member is NSNull) else { return nil }
        return JSONNode(value: member, path: childPath(key), section: section)
    }

    func required(_ key: String) throws(ENError) -> JSONNode {
        guard let node = try optional(key) else { throw failure("is required", field: childPath(key)) }
        return node
    }

    func array() throws(ENError) -> [JSONNode] {
        guard let array = value as? [Any] else { throw failure("must be an array") }
        return array.enumerated().map { JSONNode(value: $1, path: "\(path)[\($0)]", section: section) }
    }

    func string() throws(ENError) -> String {
        guard let string = value as? String else { throw failure("must be a string") }
        return string
    }

    func bool() throws(ENError) -> Bool {
        guard let number = value as? NSNumber, isBoolean(number) else {
            throw failure("must be true or false")
        }
        return number.boolValue
    }

    func number() throws(ENError) -> Double {
        guard let number = value as? NSNumber, !isBoolean(number), number.doubleValue.isFinite else {
            throw failure("must be a number")
        }
        return number.doubleValue
    }

    func number(in range: ClosedRange<Double>) throws(ENError) -> Double {
        let value = try number()
        guard range.contains(value) else {
            throw failure("must be in \(range.lowerBound)...\(range.upperBound), got \(value)")
        }
        return value
    }

    func integer(in range: ClosedRange<Int>) throws(ENError) -> Int {
        let value = try number()
        guard value.rounded() == value, value >= Double(range.lowerBound), value <= Double(range.upperBound) else {
            throw failure("must be an integer in \(range.lowerBound)...\(range.upperBound), got \(value)")
        }
        return Int(value)
    }

    /// Fails naming the first member that is not in `known`.
    func onlyKeys(_ known: Set<String>) throws(ENError) {
        for key in try keys() where !known.contains(key) {
            throw failure("unknown parameter", field: childPath(key))
        }
    }

    private func isBoolean(_ number: NSNumber) -> Bool {
        #if canImport(Darwin)
            return CFGetTypeID(number) == CFBooleanGetTypeID()
        #else
            return type(of: number) == type(of: NSNumber(value: true))
        #endif
    }
}
