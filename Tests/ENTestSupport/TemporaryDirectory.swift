public import Foundation

/// A fresh, uniquely named directory under the system's temporary directory, for one test.
///
/// Remove it with ``cleanUp()`` (usually in a `defer`), or use ``withTemporaryDirectory(_:)``.
public struct TemporaryDirectory: Sendable {
    /// The directory.
    public let url: URL

    /// Creates the directory, named `<prefix>-<UUID>`.
    public init(prefix: String = "ENTests") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The file system path of `name` inside the directory.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Removes the directory and everything in it.
    public func cleanUp() { try? FileManager.default.removeItem(at: url) }
}

/// Runs `body` with a fresh temporary directory and removes the directory afterwards, also when `body` throws.
public func withTemporaryDirectory<T>(_ body: (TemporaryDirectory) throws -> T) throws -> T {
    let directory = try TemporaryDirectory()
    defer { directory.cleanUp() }
    return try body(directory)
}

/// A fresh temporary directory whose removal is up to the caller
/// (`defer { try? FileManager.default.removeItem(at: url) }`).
public func makeTemporaryDirectory() throws -> URL {
    try TemporaryDirectory().url
}
