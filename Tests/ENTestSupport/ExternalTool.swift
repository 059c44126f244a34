public import Foundation

/// A command-line program the tests use as an outside check (`openssl`, `protoc`, `unzip`, `python3`), found on `PATH`.
///
/// Tests that need one declare `.enabled(if: ExternalTool.openssl.isAvailable)`, so that a missing tool shows
/// as a skipped test instead of a silent pass.
public struct ExternalTool: Sendable {
    /// What one run produced.
    public struct Result: Sendable {
        /// The exit status.
        public var status: Int32
        /// Standard output.
        public var stdout: Data
        /// Standard error.
        public var stderr: Data

        /// Standard output as text.
        public var output: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// A tool that is not on `PATH`.
    public struct NotInstalled: Error, CustomStringConvertible {
        /// The tool's name.
        public var name: String

        /// A reason naming the tool.
        public var description: String { "\(name) is not installed (not found on PATH)" }
    }

    /// The program's name.
    public let name: String
    /// Its full path, when it is on `PATH`.
    public let path: String?

    /// Looks `name` up on `PATH`.
    public init(_ name: String) {
        self.name = name
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        path = directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The program at `path`, when it is an executable file there.
    public init(name: String, at path: String) {
        self.name = name
        self.path = FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    /// This package's `entool`, built beside the test bundle (`$ENTOOL_PATH` names another).
    public static var entool: ExternalTool {
        ExternalTool(
            name: "entool",
            at: ProcessInfo.processInfo.environment["ENTOOL_PATH"]
                ?? Bundle.main.bundleURL.appendingPathComponent("entool").path)
    }

    /// This package's `enserver`, built beside the test bundle.
    public static var enserver: ExternalTool {
        ExternalTool(name: "enserver", at: Bundle.main.bundleURL.appendingPathComponent("enserver").path)
    }

    /// Whether the program is installed.
    public var isAvailable: Bool { path != nil }

    /// OpenSSL's command-line tool.
    public static let openssl = ExternalTool("openssl")
    /// The protocol buffer compiler.
    public static let protoc = ExternalTool("protoc")
    /// Info-ZIP's `unzip`.
    public static let unzip = ExternalTool("unzip")
    /// Python 3, for its standard library's readers (`zipfile`).
    public static let python3 = ExternalTool("python3")
    /// PostgreSQL's client, for the tests' schemas.
    public static let psql = ExternalTool("psql")

    /// Runs the program with `arguments`, feeding it `stdin`; throws ``NotInstalled`` when it is missing.
    public func run(_ arguments: [String], stdin: Data? = nil) throws -> Result {
        guard let path else { throw NotInstalled(name: name) }
        let outcome = try ChildProcess.run(path, arguments, standardInput: stdin ?? Data())
        return Result(status: outcome.status, stdout: outcome.standardOutput, stderr: outcome.standardError)
    }
}
