import ENCore
import Foundation

/// A source's `index.txt` as a mirror reads it: one `ROOT/NAME` a line, as Google's mirror scans it
/// (`internal/mirror/mirror.go`, `downloadIndex`: `bufio.Scanner` lines, so a trailing `\r` is dropped), but every
/// line checked before anything is copied: it must be the source's root, a `/`, and one plain file name. Google's
/// mirror takes whatever follows the last `/` (`computeActions`); this one refuses an index with a line that is not
/// the root's (another folder, `..`, an absolute path or URL), so a source cannot make the mirror write outside its
/// folder or fetch from elsewhere.
struct MirrorIndex {
    /// The file names (without the root), in the index's order, each once.
    var names: [String]

    /// Parses `data`, the index of a source whose names start with `root/` (or have no folder when `root` is empty).
    ///
    /// - Throws: `badFormat` naming the first line that is not `ROOT/NAME` (its 1-based number and text), `NAME`
    ///   being `index.txt` included.
    init(_ data: Data, root: String, source: String) throws(ENError) {
        guard String(data: data, encoding: .utf8) != nil else {
            throw ENError(.badFormat, "index.txt is not UTF-8 text", context: .init(file: source))
        }
        var names: [String] = []
        var seen: Set<String> = []
        let prefix = root.isEmpty ? "" : root + "/"
        // Split on the byte: as a Swift Character, "\r\n" is one grapheme and would not split on "\n".
        for (number, bytes) in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated()
        {
            var line = Substring(String(decoding: bytes, as: UTF8.self))
            if line.hasSuffix("\r") { line = line.dropLast() }
            if line.isEmpty { continue }
            guard line.hasPrefix(prefix), Self.isPlainName(line.dropFirst(prefix.count)),
                line.dropFirst(prefix.count) != "index.txt"
            else {
                throw ENError(
                    .badFormat,
                    "index.txt line \(number + 1) \"\(line.prefix(200))\" is not \(root.isEmpty ? "" : "\(root)/")NAME"
                        + " with NAME a plain file name",
                    context: .init(file: source, index: number + 1))
            }
            let name = String(line.dropFirst(prefix.count))
            if seen.insert(name).inserted { names.append(name) }
        }
        self.names = names
    }

    /// Whether `name` is one plain file name: 1 to 255 bytes of ASCII letters, digits, `.`, `_` and `-`, not starting
    /// with `.` (so not `.`, `..`, nor a hidden or temporary file of the mirror's own).
    static func isPlainName(_ name: some StringProtocol) -> Bool {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= 255, bytes[0] != UInt8(ascii: ".") else { return false }
        return bytes.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }

    /// Whether `root` is empty or plain names joined by `/` (no leading or trailing `/`, no `.` or `..`).
    static func isRoot(_ root: String) -> Bool {
        root.isEmpty || root.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { isPlainName($0) }
    }
}
