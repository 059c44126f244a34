public import Foundation

/// The test fixtures, one copy of each, in `Tests/ENTestSupport/Fixtures` (provenance in the repository's
/// `NOTICE`).
///
/// Paths are relative to the fixtures directory, for example `export/ens-example/public.pem`.
public enum Fixtures {
    /// A fixture that is not in the bundle.
    public struct Missing: Error, CustomStringConvertible {
        /// The path that was asked for.
        public var path: String

        /// A reason naming the missing path.
        public var description: String { "missing fixture \(path) (see Tests/ENTestSupport/Fixtures)" }
    }

    /// The fixtures directory inside this target's resource bundle.
    public static var directory: URL {
        Bundle.module.resourceURL!.appendingPathComponent("Fixtures", isDirectory: true)
    }

    /// The URL of the fixture at `path`; throws ``Missing`` when there is no such file.
    public static func url(_ path: String) throws -> URL {
        let url = directory.appendingPathComponent(path)
        guard FileManager.default.fileExists(atPath: url.path) else { throw Missing(path: path) }
        return url
    }

    /// The bytes of the fixture at `path`.
    public static func data(_ path: String) throws -> Data {
        try Data(contentsOf: url(path))
    }

    /// The UTF-8 text of the fixture at `path`.
    public static func text(_ path: String) throws -> String {
        try String(contentsOf: url(path), encoding: .utf8)
    }
}
