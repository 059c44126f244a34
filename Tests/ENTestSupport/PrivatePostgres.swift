public import Foundation

/// A PostgreSQL server of a test's own, in a temporary directory, listening on a Unix socket only: for tests that
/// stop it the hard way (`pg_ctl stop -m immediate`, as a crash or a power cut) and start it again, which the
/// shared server of ``PostgresTestDatabase`` must never see. Run as root, its programs run as the `postgres` user.
public final class PrivatePostgres {
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
    private var server: Process?

    /// Starts the server and waits until it accepts connections (after crash recovery, when it was stopped hard).
    /// The server is this process's child, not a daemon of `pg_ctl`'s: Foundation's `Process` would wait on a
    /// daemon that inherited its descriptors.
    public func start() throws {
        let postgres = binaries.appendingPathComponent("postgres").path
        let arguments = [
            "-D", directory.appendingPathComponent("data").path, "-p", "\(port)", "-k", directory.path, "-c",
            "listen_addresses=",
        ]
        let process = Process()
        if getuid() == 0 {
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
            process.arguments = ["-u", "postgres", "--", postgres] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: postgres)
            process.arguments = arguments
        }
        let log = directory.appendingPathComponent("server-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        server = process
        for _ in 0..<300 {
            if (try? run(
                binaries.appendingPathComponent("pg_isready").path, ["-q", "-h", directory.path, "-p", "\(port)"]))
                != nil
            {
                return
            }
            guard process.isRunning else { break }
            usleep(100_000)
        }
        throw PostgresTestDatabaseError(
            message: "the private PostgreSQL did not start: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
    }

    /// Stops the server: `immediate` (SIGQUIT: no checkpoint; the next start recovers from the write-ahead log, as
    /// after a crash) or fast (SIGINT).
    public func stop(immediately: Bool) throws {
        guard let server else { return }
        let pidFile = directory.appendingPathComponent("data").appendingPathComponent("postmaster.pid")
        if let text = try? String(contentsOf: pidFile, encoding: .utf8),
            let pid = text.split(separator: "\n").first.flatMap({ Int32($0) })
        {
            kill(pid, immediately ? SIGQUIT : SIGINT)
        }
        server.waitUntilExit()
        self.server = nil
    }

    /// Stops the server if it runs and removes its directory.
    public func destroy() {
        try? stop(immediately: true)
        try? FileManager.default.removeItem(at: directory)
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
        let process = Process()
        if asPostgres && getuid() == 0 {
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
            process.arguments = ["-u", "postgres", "--", program] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = arguments
        }
        // Into a file, not a pipe: the server that `pg_ctl start` leaves running inherits the descriptor, and a pipe
        // would never reach its end.
        let errorsFile = directory.appendingPathComponent("run-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: errorsFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorsFile) }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: errorsFile)
        try process.run()
        process.waitUntilExit()
        let message = (try? Data(contentsOf: errorsFile)) ?? Data()
        guard process.terminationStatus == 0 else {
            throw PostgresTestDatabaseError(
                message:
                    "\(program) \(arguments.joined(separator: " ")) failed: \(String(decoding: message, as: UTF8.self))"
            )
        }
    }
}
