import Foundation

/// The PostgreSQL server the key server's tests run on: the one `Scripts/postgres.sh` starts (Scripts/setup.sh
/// runs it), or another named by `ENKEYSERVER_TEST_POSTGRES_URL`. `ENKEYSERVER_TEST_POSTGRES=skip` leaves the
/// PostgreSQL cases out (for a machine without one); otherwise a server that cannot be reached fails them.
///
/// Each test gets a schema of its own (``withSchema(_:)``), made and dropped with `psql`, so that tests running in
/// parallel never see each other's tables.
public enum PostgresTestDatabase {
    /// The variable naming another server.
    public static let urlVariable = "ENKEYSERVER_TEST_POSTGRES_URL"
    /// The server `Scripts/postgres.sh` starts, on loopback.
    public static let defaultURL = "postgres://enserver:enserver@127.0.0.1:5432/enserver_test"

    /// The server's URL.
    public static var url: String { ProcessInfo.processInfo.environment[urlVariable] ?? defaultURL }

    /// Whether the PostgreSQL cases run.
    public static var isEnabled: Bool { ProcessInfo.processInfo.environment["ENKEYSERVER_TEST_POSTGRES"] != "skip" }

    /// Runs `body` with the URL of a new, empty schema (`search_path=NAME` added to ``url``), dropped afterwards
    /// whatever `body` does.
    public static func withSchema<T>(_ body: (String) async throws -> T) async throws -> T {
        let schema = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try psql("CREATE SCHEMA \(schema)")
        defer { _ = try? psql("DROP SCHEMA \(schema) CASCADE") }
        let separator = url.contains("?") ? "&" : "?"
        return try await body("\(url)\(separator)search_path=\(schema)")
    }

    /// Runs one SQL command with `psql` on ``url`` (without its parameters, which psql does not all know).
    @discardableResult
    public static func psql(_ command: String) throws -> String {
        let base = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
        let result = try ExternalTool.psql.run(["-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", base, "-c", command])
        guard result.status == 0 else {
            throw PostgresTestDatabaseError(
                message:
                    "psql \(command) failed (\(result.status)): \(String(decoding: result.stderr, as: UTF8.self)). Is PostgreSQL up? "
                    + "Run Scripts/postgres.sh, or set ENKEYSERVER_TEST_POSTGRES=skip.")
        }
        return result.output
    }
}

/// A failure to reach or use the tests' PostgreSQL server.
public struct PostgresTestDatabaseError: Error, CustomStringConvertible {
    /// What failed, and what to do.
    public var message: String
    /// The message.
    public var description: String { message }
}
