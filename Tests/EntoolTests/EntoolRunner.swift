import ENTestSupport
import Foundation
import Testing

/// The result of one `entool` run.
struct EntoolResult {
    var status: Int32
    var stdout: Data
    var stderr: String

    /// Standard output as text.
    var output: String { String(decoding: stdout, as: UTF8.self) }

    /// Standard output decoded as JSON.
    func json() throws -> Any { try JSONSerialization.jsonObject(with: stdout) }
}

/// Where the built `entool` is: `$ENTOOL_PATH`, or beside the test bundle in the build's products directory.
func entoolURL() throws -> URL {
    if let path = ProcessInfo.processInfo.environment["ENTOOL_PATH"] { return URL(fileURLWithPath: path) }
    #if os(macOS)
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("entool")
        }
    #endif
    let url = Bundle.main.bundleURL.appendingPathComponent("entool")
    try #require(FileManager.default.isExecutableFile(atPath: url.path), "entool not found at \(url.path)")
    return url
}

/// Runs `entool` with `arguments` (and optional standard input) and collects its output.
func runEntool(_ arguments: [String], stdin: Data? = nil, currentDirectory: URL? = nil) throws -> EntoolResult {
    let outcome = try ChildProcess.run(
        try entoolURL().path, arguments, standardInput: stdin, currentDirectory: currentDirectory?.path)
    return EntoolResult(
        status: outcome.status, stdout: outcome.standardOutput,
        stderr: String(decoding: outcome.standardError, as: UTF8.self))
}
