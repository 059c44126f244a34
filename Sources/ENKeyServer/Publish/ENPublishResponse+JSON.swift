public import Foundation

extension ENPublishResponse {
    /// The response as Go's `json.Marshal` writes Google's `PublishResponse`: fields in Google's order
    /// (`revisionToken`, `insertedExposures`, `error`, `code`, `padding`, `warnings`), empty ones left out,
    /// strings escaped as Go escapes them (`<`, `>`, `&`, U+2028 and U+2029 as `\u` escapes).
    public func jsonData() -> Data {
        var fields: [String] = []
        if !revisionToken.isEmpty { fields.append("\"revisionToken\":\(Self.quoted(revisionToken))") }
        if insertedExposures != 0 { fields.append("\"insertedExposures\":\(insertedExposures)") }
        if !error.isEmpty { fields.append("\"error\":\(Self.quoted(error))") }
        if let code { fields.append("\"code\":\(Self.quoted(code.rawValue))") }
        if !padding.isEmpty { fields.append("\"padding\":\(Self.quoted(padding))") }
        if !warnings.isEmpty { fields.append("\"warnings\":[\(warnings.map(Self.quoted).joined(separator: ","))]") }
        return Data("{\(fields.joined(separator: ","))}".utf8)
    }

    /// Go's JSON string encoding (`encodeState.string` with HTML escaping on).
    static func quoted(_ text: String) -> String {
        // Printable ASCII with nothing to escape (the padding, base64, always): as it is. The printable bytes escaped
        // are `"`, `\`, `<`, `>` and `&`.
        if text.utf8.allSatisfy({
            $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C && $0 != 0x3C && $0 != 0x3E && $0 != 0x26
        }) {
            return "\"" + text + "\""
        }
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "<", ">", "&", "\u{2028}", "\u{2029}":
                out +=
                    "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default:
                if scalar.value < 0x20 {
                    out += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
