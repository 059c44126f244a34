package import ENCore
package import Foundation

/// A key server's `index.txt` (Google's server writes one, `ROOT/NAME.zip` a line): the entries of one, each a
/// relative path of ASCII letters, digits, `-`, `_`, `.` and `/`, without empty, `.` or `..` components, ending in
/// `.zip`, its file name listed once; blank lines and the white space around an entry are ignored. A phone's
/// downloader and a key server's import read indexes through it, so an index cannot name a file outside its root.
package enum ExportIndex {
    /// The entries of an index's bytes, in order.
    ///
    /// - Throws: `badFormat` naming `source` and the line (from 0) for text that is not UTF-8, an entry that is not
    ///   such a path, or a file name listed twice.
    package static func entries(in data: Data, source: String) throws(ENError) -> [String] {
        guard let text = String(data: data, encoding: .utf8) else {
            throw ENError(.badFormat, "the index is not UTF-8 text", context: .init(file: source))
        }
        var entries: [String] = []
        var names = Set<String>()
        for (line, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let entry = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if entry.isEmpty { continue }
            let allowed = entry.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == 0x2D
                    || byte == 0x5F || byte == 0x2E || byte == 0x2F
            }
            let components = entry.split(separator: "/", omittingEmptySubsequences: false)
            guard allowed, !entry.hasPrefix("/"), entry.lowercased().hasSuffix(".zip"),
                !components.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." })
            else {
                throw ENError(
                    .badFormat, "an index entry must be a relative path to a .zip file: \(entry.prefix(100))",
                    context: .init(file: source, index: line))
            }
            guard names.insert(String(components.last!)).inserted else {
                throw ENError(
                    .badFormat, "the index lists the file name \(components.last!) twice",
                    context: .init(file: source, index: line))
            }
            entries.append(entry)
        }
        return entries
    }
}
