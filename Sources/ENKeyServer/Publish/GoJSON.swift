/// JSON read as Go's `encoding/json` `Decoder` reads a request body: the first value of the body, strictly by
/// RFC 8259, with Go's answers for an empty body, a value cut short, and what follows the value.
///
/// Parsing is iterative (an explicit stack, at most ``maximumDepth`` deep as Go's scanner allows), so no input
/// can exhaust the call stack; the input is at most the publish body limit. Package-visible for the fuzz targets.
package enum GoJSON {
    /// A parsed value. Numbers keep their literal text: Go converts it per destination type.
    package indirect enum Value: Equatable {
        case object([(key: String, value: Value)])
        case array([Value])
        case string(String)
        case number(String)
        case bool(Bool)
        case null
        /// An object or array nested deeper than ``GoJSON/treeDepth``, scanned but not kept (its kind).
        case opaque(String)

        /// Equal kinds with equal contents (object entries in order).
        package static func == (lhs: Value, rhs: Value) -> Bool {
            switch (lhs, rhs) {
            case (.object(let a), .object(let b)):
                a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
            case (.array(let a), .array(let b)): a == b
            case (.string(let a), .string(let b)): a == b
            case (.number(let a), .number(let b)): a == b
            case (.bool(let a), .bool(let b)): a == b
            case (.null, .null): true
            case (.opaque(let a), .opaque(let b)): a == b
            default: false
            }
        }

        /// Go's name of the JSON kind, as its `UnmarshalTypeError` gives it.
        var kind: String {
            switch self {
            case .object: "object"
            case .array: "array"
            case .string: "string"
            case .number(let literal): "number \(literal)"
            case .bool: "bool"
            case .null: "null"
            case .opaque(let kind): kind
            }
        }
    }

    /// What reading the first value of a body gave.
    package enum Outcome: Equatable {
        /// A complete value, and the offset just after it.
        case value(Value, end: Int)
        /// Nothing but whitespace (Go: `io.EOF`).
        case empty
        /// The input ended inside a value (Go: `io.ErrUnexpectedEOF`, or the reader's own error).
        case incomplete
        /// Not JSON at `offset` (Go: `*json.SyntaxError`).
        case syntaxError(offset: Int, reason: String)
    }

    /// Go's `maxNestingDepth`.
    static let maximumDepth = 10_000

    /// How deep values are kept in the tree; deeper containers become ``Value/opaque(_:)``.
    package static let treeDepth = 16

    /// Reads the first JSON value of `bytes`.
    package static func firstValue(in bytes: [UInt8]) -> Outcome {
        var parser = Parser(bytes: bytes)
        return parser.parse()
    }

    /// Go's `Decoder.More()` after the first value: whether a non-space byte other than `]` or `}` follows
    /// `offset`.
    static func hasMore(_ bytes: [UInt8], after offset: Int) -> Bool {
        var index = offset
        while index < bytes.count, isSpace(bytes[index]) { index += 1 }
        return index < bytes.count && bytes[index] != UInt8(ascii: "]") && bytes[index] != UInt8(ascii: "}")
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private enum Container {
        case object([(key: String, value: Value)], pendingKey: String?)
        case array([Value])
    }

    private enum Expectation {
        case value, valueOrArrayEnd, keyOrObjectEnd, key, colon, commaOrEnd
    }

    private enum ScalarResult {
        case value(Value)
        case incomplete
        case error(String)
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func skipSpace() {
            while index < bytes.count, GoJSON.isSpace(bytes[index]) { index += 1 }
        }

        mutating func parse() -> Outcome {
            skipSpace()
            guard index < bytes.count else { return .empty }
            // Containers deeper than `treeDepth` are scanned but not kept (`skipped`, true for an object): no
            // field of a publish request or certificate is that deep, so such a value is a type error or an
            // ignored field either way, and the tree never gets deep enough for its release to recurse far.
            var stack: [Container] = []
            var skipped: [Bool] = []
            var expectation = Expectation.value
            func topIsObject() -> Bool {
                if let last = skipped.last { return last }
                if case .object = stack.last { return true }
                return false
            }
            while true {
                skipSpace()
                guard index < bytes.count else { return .incomplete }
                let byte = bytes[index]
                var completed: Value?
                switch expectation {
                case .value, .valueOrArrayEnd:
                    if byte == UInt8(ascii: "]"), expectation == .valueOrArrayEnd {
                        index += 1
                        if skipped.popLast() != nil {
                            completed = .opaque("array")
                        } else if case .array(let items) = stack.removeLast() {
                            completed = .array(items)
                        }
                    } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                        guard stack.count + skipped.count < GoJSON.maximumDepth else {
                            return .syntaxError(offset: index, reason: "exceeded max depth")
                        }
                        index += 1
                        let isObject = byte == UInt8(ascii: "{")
                        if stack.count >= GoJSON.treeDepth {
                            skipped.append(isObject)
                        } else {
                            stack.append(isObject ? .object([], pendingKey: nil) : .array([]))
                        }
                        expectation = isObject ? .keyOrObjectEnd : .valueOrArrayEnd
                        continue
                    } else {
                        let start = index
                        switch scalar(atTopLevel: stack.isEmpty) {
                        case .value(let value): completed = value
                        case .incomplete: return .incomplete
                        case .error(let reason): return .syntaxError(offset: max(start, index), reason: reason)
                        }
                    }
                case .keyOrObjectEnd, .key:
                    if byte == UInt8(ascii: "}"), expectation == .keyOrObjectEnd {
                        index += 1
                        if skipped.popLast() != nil {
                            completed = .opaque("object")
                        } else if case .object(let entries, _) = stack.removeLast() {
                            completed = .object(entries)
                        }
                    } else if byte == UInt8(ascii: "\"") {
                        switch string() {
                        case .value(.string(let key)):
                            if skipped.isEmpty, case .object(let entries, _) = stack.removeLast() {
                                stack.append(.object(entries, pendingKey: key))
                            }
                            expectation = .colon
                            continue
                        case .incomplete: return .incomplete
                        case .error(let reason): return .syntaxError(offset: index, reason: reason)
                        default: preconditionFailure()
                        }
                    } else {
                        return .syntaxError(
                            offset: index,
                            reason:
                                "invalid character \(Self.describe(byte)) looking for beginning of object key string")
                    }
                case .colon:
                    guard byte == UInt8(ascii: ":") else {
                        return .syntaxError(
                            offset: index, reason: "invalid character \(Self.describe(byte)) after object key")
                    }
                    index += 1
                    expectation = .value
                    continue
                case .commaOrEnd:
                    let isObject = topIsObject()
                    if byte == UInt8(ascii: ",") {
                        index += 1
                        expectation = isObject ? .key : .value
                        continue
                    }
                    guard byte == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else {
                        let place = isObject ? "object key:value pair" : "array element"
                        return .syntaxError(
                            offset: index, reason: "invalid character \(Self.describe(byte)) after \(place)")
                    }
                    index += 1
                    if skipped.popLast() != nil {
                        completed = .opaque(isObject ? "object" : "array")
                    } else {
                        switch stack.removeLast() {
                        case .object(let entries, _): completed = .object(entries)
                        case .array(let items): completed = .array(items)
                        }
                    }
                }
                guard let value = completed else { continue }
                expectation = .commaOrEnd
                guard skipped.isEmpty else { continue }
                guard let top = stack.popLast() else { return .value(value, end: index) }
                switch top {
                case .object(var entries, let key):
                    entries.append((key: key ?? "", value: value))
                    stack.append(.object(entries, pendingKey: nil))
                case .array(var items):
                    items.append(value)
                    stack.append(.array(items))
                }
            }
        }

        static func describe(_ byte: UInt8) -> String {
            byte >= 0x20 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : "0x\(String(byte, radix: 16))"
        }

        /// A string, number or literal at `index`.
        mutating func scalar(atTopLevel: Bool) -> ScalarResult {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number(atTopLevel: atTopLevel)
            case UInt8(ascii: "t"): return literal("true", .bool(true))
            case UInt8(ascii: "f"): return literal("false", .bool(false))
            case UInt8(ascii: "n"): return literal("null", .null)
            default: return .error("invalid character \(Self.describe(byte)) looking for beginning of value")
            }
        }

        mutating func literal(_ text: StaticString, _ value: Value) -> ScalarResult {
            let expected = UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
            for expectedByte in expected {
                guard index < bytes.count else { return .incomplete }
                guard bytes[index] == expectedByte else {
                    return .error("invalid character \(Self.describe(bytes[index])) in literal \(text)")
                }
                index += 1
            }
            return .value(value)
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`. At the end of the input a number is complete
        /// only at the top level (Go's decoder then steps a space), since inside a container more must follow.
        mutating func number(atTopLevel: Bool) -> ScalarResult {
            let start = index
            func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
            var atEnd: Bool { index >= bytes.count }
            if bytes[index] == UInt8(ascii: "-") {
                index += 1
                guard !atEnd else { return .incomplete }
                guard isDigit(bytes[index]) else {
                    return .error("invalid character \(Self.describe(bytes[index])) in numeric literal")
                }
            }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
            } else {
                while !atEnd, isDigit(bytes[index]) { index += 1 }
            }
            if !atEnd, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard !atEnd else { return .incomplete }
                guard isDigit(bytes[index]) else {
                    return .error(
                        "invalid character \(Self.describe(bytes[index])) after decimal point in numeric literal")
                }
                while !atEnd, isDigit(bytes[index]) { index += 1 }
            }
            if !atEnd, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if !atEnd, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard !atEnd else { return .incomplete }
                guard isDigit(bytes[index]) else {
                    return .error("invalid character \(Self.describe(bytes[index])) in exponent of numeric literal")
                }
                while !atEnd, isDigit(bytes[index]) { index += 1 }
            }
            if atEnd && !atTopLevel { return .incomplete }
            return .value(.number(String(decoding: bytes[start..<index], as: UTF8.self)))
        }

        /// A string at `index` (its opening quote), unescaped; invalid UTF-8 becomes U+FFFD as Go does.
        mutating func string() -> ScalarResult {
            index += 1
            var out: [UInt8] = []
            while true {
                guard index < bytes.count else { return .incomplete }
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    return .value(.string(String(decoding: out, as: UTF8.self)))
                case UInt8(ascii: "\\"):
                    index += 1
                    guard index < bytes.count else { return .incomplete }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        switch hex4() {
                        case .none: return .incomplete
                        case .some(.none): return .error("invalid character in \\u hexadecimal character escape")
                        case .some(.some(let unit)):
                            var scalar = Unicode.Scalar(unit)
                            if (0xD800..<0xDC00).contains(unit), index + 1 < bytes.count,
                                bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                            {
                                // A surrogate pair; Go reads the second escape only if it completes the pair.
                                let save = index
                                index += 2
                                if case .some(.some(let low)) = hex4(), (0xDC00..<0xE000).contains(low) {
                                    scalar = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
                                } else {
                                    index = save
                                }
                            }
                            out.append(contentsOf: Array(String(scalar ?? "\u{FFFD}").utf8))
                        }
                    default:
                        return .error("invalid character \(Self.describe(escape)) in string escape code")
                    }
                default:
                    guard byte >= 0x20 else {
                        return .error("invalid character \(Self.describe(byte)) in string literal")
                    }
                    out.append(byte)
                    index += 1
                }
            }
        }

        /// Four hex digits: `nil` at the end of the input, `.some(nil)` for a non-hex digit.
        mutating func hex4() -> UInt32?? {
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard index < bytes.count else { return .none }
                let byte = bytes[index]
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
                default: return .some(.none)
                }
                value = value << 4 | digit
                index += 1
            }
            return .some(value)
        }
    }
}
