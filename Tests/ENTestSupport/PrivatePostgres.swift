internal import ENCore
public import Foundation

/// A PostgreSQL server of a test's own, in a temporary directory, listening on a Unix socket only: for tests that
/// stop it the hard way (`pg_ctl stop -m immediate`, as a crash or a power cut) and start it again, which the
/// shared server of ``PostgresTestDatabase`` must never see. Run as root, its programs run as the `postgres` user.
public final class PrivatePostgres: Sendable {
    /// The server's programs (`initdb`, `pg_ctl`), the newest installed.
    public let binaries: URL
    /// The directory holding the data directory and the socket.
    public let directory: URL
    /// The port in the socket's name.
    public let port: Int

    /// A URL for `ENKeyServerPostgresStore.clientConfiguration(url:)`: the superuser `enserver`, trusted on the socket.
    public var url: String { "postgres://enserver@localhost:\(port)/postgres?host=\(directory.path)" }

    /// Whether PostgreSQL's server programs are installed.
    public static var isAvailable: Bool { (try? newestBinaries()) != nil }

    /// Creates a cluster (not started).
    public init() throws {
        binaries = try Self.newestBinaries()
        directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
            "pg-\(UUID().uuidString.prefix(8))")
        port = Int.random(in: 20_000...60_000)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if getuid() == 0 { try run("/bin/chown", ["postgres:postgres", directory.path], asPostgres: false) }
        try run(
            binaries.appendingPathComponent("initdb").path,
            ["-D", directory.appendingPathComponent("data").path, "-U", "enserver", "--auth=trust", "-E", "UTF8"])
    }

    /// The running server (`postgres` under `runuser` when run as root), started by ``start()``.
    private let server = Locked<ChildProcess?>(nil)

    /// Starts the server and waits until it accepts connections (after crash recovery, when it was stopped hard).
    /// The server is this process's child (``ChildProcess``), not a daemon of `pg_ctl`'s.
    public func start() async throws {
        let postgres = binaries.appendingPathComponent("postgres").path
        let arguments = [
            "-D", directory.appendingPathComponent("data").path, "-p", "\(port)", "-k", directory.path, "-c",
            "listen_addresses=",
        ]
        let log = directory.appendingPathComponent("server-\(UUID().uuidString).log").path
        let process =
            getuid() == 0
            ? try ChildProcess(
                "/usr/sbin/runuser", ["-u", "postgres", "--", postgres] + arguments, standardError: .file(log))
            : try ChildProcess(postgres, arguments, standardError: .file(log))
        server.withLock { $0 = process }
        for _ in 0..<300 {
            if (try? run(
                binaries.appendingPathComponent("pg_isready").path, ["-q", "-h", directory.path, "-p", "\(port)"]))
                != nil
            {
                return
            }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw PostgresTestDatabaseError(
            message:
                "the private PostgreSQL did not start: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
    }

    /// Stops the server: `immediate` (SIGQUIT: no checkpoint; the next start recovers from the write-ahead log, as
    /// after a crash) or fast (SIGINT).
    public func stop(immediately: Bool) async {
        guard let process = signalServer(immediately: immediately) else { return }
        await process.waitForExit()
    }

    /// Stops the server if it runs (immediately) and removes its directory.
    public func destroy() {
        signalServer(immediately: true)?.waitForExit()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Sends the postmaster (whose process identifier is in `postmaster.pid`: under `runuser` it is not the child)
    /// SIGQUIT or SIGINT, and returns the child to wait for.
    private func signalServer(immediately: Bool) -> ChildProcess? {
        guard
            let process = server.withLock({ server in
                defer { server = nil }; return server
            })
        else { return nil }
        let pidFile = directory.appendingPathComponent("data").appendingPathComponent("postmaster.pid")
        if let text = try? String(contentsOf: pidFile, encoding: .utf8),
            let pid = text.split(separator: "\n").first.flatMap({ Int32($0) })
        {
            kill(pid, immediately ? SIGQUIT : SIGINT)
        } else {
            process.send(immediately ? SIGQUIT : SIGINT)
        }
        return process
    }

    private static func newestBinaries() throws -> URL {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        for version in versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) {
            let bin = root.appendingPathComponent(version).appendingPathComponent("bin")
            if FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("pg_ctl").path) { return bin }
        }
        throw PostgresTestDatabaseError(message: "PostgreSQL's server programs are not installed (Scripts/postgres.sh)")
    }

    private func run(_ program: String, _ arguments: [String], asPostgres: Bool = true) throws {
        let outcome =
            asPostgres && getuid() == 0
            ? try ChildProcess.run("/usr/sbin/runuser", ["-u", "postgres", "--", program] + arguments)
            : try ChildProcess.run(program, arguments)
        guard outcome.termination.succeeded else {
            throw PostgresTestDatabaseError(
                message: "\(program) \(arguments.joined(separator: " ")) failed (\(outcome.termination)): "
                    + String(decoding: outcome.standardError, as: UTF8.self))
        }
    }
}
