public import Foundation

/// Whether the file at `path` (absent counts as empty) contains `bytes`: for tests that check that erased or
/// sealed data is not on disk.
public func fileContains(_ path: String, _ bytes: Data) throws -> Bool {
    guard FileManager.default.fileExists(atPath: path) else { return false }
    return try Data(contentsOf: URL(fileURLWithPath: path)).range(of: bytes) != nil
}
