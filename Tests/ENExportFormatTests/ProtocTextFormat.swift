import ENTestSupport
import Foundation

/// A message as `protoc --decode` prints it (text format), parsed just enough to compare with.
struct ProtocMessage {
    enum Value {
        case scalar(String)
        case bytes(Data)
        case message(ProtocMessage)
    }

    var fields: [(name: String, value: Value)] = []

    func all(_ name: String) -> [Value] { fields.filter { $0.name == name }.map(\.value) }
    func messages(_ name: String) -> [ProtocMessage] {
        all(name).compactMap { if case .message(let m) = $0 { m } else { nil } }
    }
    func scalar(_ name: String) -> String? {
        for case .scalar(let s) in all(name) { return s }
        return nil
    }
    func bytes(_ name: String) -> Data? {
        for case .bytes(let d) in all(name) { return d }
        return nil
    }
    func string(_ name: String) -> String? { bytes(name).map { String(decoding: $0, as: UTF8.self) } }

    /// Parses protoc's text output: `name: value` lines and `name {` ... `}` blocks.
    static func parse(_ text: String) throws -> ProtocMessage {
        var stack = [ProtocMessage()]
        var names: [String] = []
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line == "}" {
                let done = stack.removeLast()
                stack[stack.count - 1].fields.append((names.removeLast(), .message(done)))
            } else if line.hasSuffix(" {") {
                names.append(String(line.dropLast(2)))
                stack.append(ProtocMessage())
            } else if let colon = line.firstIndex(of: ":") {
                let name = String(line[..<colon])
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                if value.hasPrefix("\"") {
                    stack[stack.count - 1].fields.append((name, .bytes(try unescape(value.dropFirst().dropLast()))))
                } else {
                    stack[stack.count - 1].fields.append((name, .scalar(value)))
                }
            } else {
                throw ParseError(line: line)
            }
        }
        guard stack.count == 1 else { throw ParseError(line: "unbalanced braces") }
        return stack[0]
    }

    struct ParseError: Error { var line: String }

    /// Undoes protoc's C escaping: `\n \r \t \" \' \\` and three-digit octal.
    private static func unescape(_ text: Substring) throws -> Data {
        var out = Data()
        let bytes = Array(text.utf8)
        var i = 0
        while i < bytes.count {
            let c = bytes[i]
            guard c == UInt8(ascii: "\\") else {
                out.append(c)
                i += 1
                continue
            }
            guard i + 1 < bytes.count else { throw ParseError(line: String(text)) }
            let e = bytes[i + 1]
            switch e {
            case UInt8(ascii: "n"): out.append(0x0A); i += 2
            case UInt8(ascii: "r"): out.append(0x0D); i += 2
            case UInt8(ascii: "t"): out.append(0x09); i += 2
            case UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "\\"): out.append(e); i += 2
            case UInt8(ascii: "0")...UInt8(ascii: "7"):
                var value = 0
                var j = i + 1
                while j < bytes.count, j < i + 4, (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(bytes[j]) {
                    value = value * 8 + Int(bytes[j] - UInt8(ascii: "0"))
                    j += 1
                }
                out.append(UInt8(value))
                i = j
            default: throw ParseError(line: String(text))
            }
        }
        return out
    }
}

/// Decodes `message` (the bytes) with `protoc --decode=<type>` against the package's `export.proto`;
/// throws when protoc is not installed (tests that call this declare `.enabled(if: ExternalTool.protoc.isAvailable)`).
func protocDecode(_ bytes: Data, type: String) throws -> ProtocMessage {
    let result = try ExternalTool.protoc.run(["--decode=\(type)", "-I", protoDirectory, "export.proto"], stdin: bytes)
    guard result.status == 0 else {
        throw ProtocMessage.ParseError(line: "protoc failed: " + String(decoding: result.stderr, as: UTF8.self))
    }
    return try ProtocMessage.parse(String(decoding: result.stdout, as: UTF8.self))
}
