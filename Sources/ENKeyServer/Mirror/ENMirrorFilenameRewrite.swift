public import ENCore
public import Foundation

/// The name a mirror gives each file it copies, as Google's mirror's `FilenameRewrite` does
/// (`internal/mirror/model/mirror.go`, `RewriteFilename`): the whole name is replaced by the pattern, each
/// `[timestamp]` by the Unix time in seconds, each `[uuid]` by a new random UUID in upper case, each `[test]` by
/// `TEST`. A pattern without any of them is refused, as Google refuses it.
///
/// Google makes timestamps increase by sleeping until the next second; this rewrite instead takes the later of the
/// clock and one more than the last timestamp it gave, so names still increase in the order the files are mirrored
/// and never repeat, without waiting a second per file.
///
/// ```swift
/// var rewrite = try ENMirrorFilenameRewrite(pattern: "[timestamp]-[uuid].zip")
/// let name = rewrite.name(at: Date())  // e.g. "1605818705-6F1D….zip"
/// ```
public struct ENMirrorFilenameRewrite: Hashable, Sendable {
    /// Google's placeholder for the Unix time in seconds.
    public static let timestamp = "[timestamp]"
    /// Google's placeholder for a random UUID (upper case).
    public static let uuid = "[uuid]"
    /// Google's placeholder for `TEST` (its tests').
    public static let test = "[test]"

    /// The pattern, e.g. `[timestamp].zip`.
    public let pattern: String
    private var lastTimestamp: Int64 = 0

    /// Checks `pattern`: it must contain a placeholder, and what it makes must be one plain file name (letters,
    /// digits, `.`, `_`, `-`, not starting with `.`).
    ///
    /// - Throws: `badParameter` naming the pattern otherwise.
    public init(pattern: String) throws(ENError) {
        self.pattern = pattern
        guard [Self.timestamp, Self.uuid, Self.test].contains(where: pattern.contains) else {
            throw ENError(
                .badParameter,
                "the filename rewrite \"\(pattern)\" contains no replacement pattern ([timestamp], [uuid] or [test])")
        }
        var probe = self
        guard MirrorIndex.isPlainName(probe.name(at: Date(timeIntervalSince1970: 0))) else {
            throw ENError(
                .badParameter,
                "the filename rewrite \"\(pattern)\" does not make a plain file name (letters, digits, '.', '_', '-')")
        }
    }

    /// The next name, its timestamps taken from `date` (and increasing from one call to the next).
    public mutating func name(at date: Date) -> String {
        var name = pattern
        while let range = name.range(of: Self.timestamp) {
            let seconds = max(Int64(date.timeIntervalSince1970.rounded(.down)), lastTimestamp + 1)
            lastTimestamp = seconds
            name.replaceSubrange(range, with: String(seconds))
        }
        while let range = name.range(of: Self.uuid) {
            name.replaceSubrange(range, with: UUID().uuidString.uppercased())
        }
        while let range = name.range(of: Self.test) {
            name.replaceSubrange(range, with: "TEST")
        }
        return name
    }
}
