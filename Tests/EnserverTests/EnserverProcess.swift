import ENCrypto
import ENTestSupport
import Foundation
import Testing

/// The `enserver` executable started by a test with `serve --port 0 --admin-port 0`: its output goes to a file the
/// test reads for the "listening on" lines (the public and the admin port), and it is killed at the end.
struct EnserverProcess: Sendable {
    let process: ChildProcess
    let output: URL
    /// The public listener's port.
    let port: Int
    /// The admin listener's port, when the server printed one.
    let adminPort: Int?

    /// The log the server wrote so far.
    var log: String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }

    /// Starts `enserver serve ARGUMENTS --port 0` (and `--admin-port 0` unless given: tests run in parallel) (with
    /// files in `directory`) and waits for its listening lines.
    static func start(
        _ arguments: [String], in directory: TemporaryDirectory, scheme: String = "http", admin: Bool = true
    ) async throws
        -> EnserverProcess
    {
        let output = directory.url.appendingPathComponent("enserver-\(UUID().uuidString).log")
        let process = try ChildProcess(
            try #require(ExternalTool.enserver.path),
            ["serve"] + arguments + ["--port", "0"]
                + (arguments.contains("--admin-port") ? [] : ["--admin-port", "0"]),
            standardOutput: .file(output.path), standardError: .standardOutput)
        var port: Int?
        var adminPort: Int?
        for _ in 0..<600 where port == nil || (admin && adminPort == nil) {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            port = port ?? Self.port(in: text, after: "enserver listening on \(scheme)://")
            adminPort = adminPort ?? Self.port(in: text, after: "enserver admin listening on \(scheme)://")
            if !process.isRunning { break }
            if port == nil || (admin && adminPort == nil) { try await Task.sleep(for: .milliseconds(100)) }
        }
        guard let port else {
            process.send(SIGKILL)
            _ = await process.waitForExit()
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            throw EnserverDidNotStart(log: text)
        }
        return EnserverProcess(process: process, output: output, port: port, adminPort: adminPort)
    }

    /// The port after `prefix` and a host (`prefix HOST:PORT`), in `text`.
    static func port(in text: String, after prefix: String) -> Int? {
        guard let range = text.range(of: prefix) else { return nil }
        let rest = text[range.upperBound...].prefix(while: { $0 != "\n" })
        guard let colon = rest.lastIndex(of: ":") else { return nil }
        return Int(rest[rest.index(after: colon)...].prefix(while: \.isNumber))
    }

    /// Kills the server.
    func stop() async {
        process.send(SIGKILL)
        _ = await process.waitForExit()
    }

    /// The options of a server on a fresh store in `directory`, its export files signed by a new key.
    static func baseOptions(_ directory: TemporaryDirectory) throws -> [String] {
        let pem = directory.path("signing.pem")
        try writeSecret(try P256SigningKey().pemRepresentation, toFile: pem)
        return [
            "--database", directory.path("keys.sqlite"), "--region", "US", "--signing-key", pem, "--key-id", "310",
            "--health-authority-id", "com.example.app", "--export-interval", "0", "--ephemeral-revision-tokens",
        ]
    }
}

/// `enserver` exited before it printed its listening line.
struct EnserverDidNotStart: Error, CustomStringConvertible {
    var log: String
    var description: String { "enserver did not start:\n\(log)" }
}
