import ENCore
import ENTestSupport
import ENVerificationServer
import Foundation
import Testing

/// `enverify serve` as a deployment runs it: two instances on one database, and an instance killed with SIGKILL in
/// the middle of its traffic. On either storage, a code or a token is never accepted twice.
@Suite("enverify instances: two on one database, kill -9")
struct EnverifyInstancesTests {
    /// The storages these tests run on: SQLite, and PostgreSQL when built with it and not skipped.
    static var kinds: [String] {
        #if PostgreSQL
            PostgresTestDatabase.isEnabled ? ["sqlite", "postgres"] : ["sqlite"]
        #else
            ["sqlite"]
        #endif
    }

    /// Where a test's instances keep their state: the storage options and the environment (the PostgreSQL password
    /// in `ENVERIFY_POSTGRES_PASSWORD`, never in the URL on the command line).
    struct Database {
        var options: [String]
        var environment: [String: String]
    }

    /// Runs `body` with a new, empty database of `kind` for `setup`.
    static func withDatabase<T>(
        _ kind: String, _ setup: EnverifySetup, _ body: (Database) async throws -> T
    ) async throws -> T {
        var environment = ProcessInfo.processInfo.environment
        for name in ["ENVERIFY_SECRET", "ENVERIFY_SECRET_FILE", "ENVERIFY_POSTGRES_PASSWORD"] {
            environment[name] = nil
        }
        guard kind == "postgres" else {
            return try await body(Database(options: setup.storageOptions, environment: environment))
        }
        return try await PostgresTestDatabase.withSchema { url in
            var components = try #require(URLComponents(string: url))
            environment["ENVERIFY_POSTGRES_PASSWORD"] = components.password
            components.password = nil
            let bare = try #require(components.string)
            return try await body(
                Database(options: ["--postgres", bare, "--secret-file", setup.secretPath], environment: environment))
        }
    }

    /// `apikey create` on `database`: the key printed.
    static func createKey(_ database: Database, type: String, name: String) throws -> String {
        let outcome = try LiveEnverifyTests.run(
            ["apikey", "create"] + database.options + ["--type", type, "--name", name],
            environment: database.environment)
        try #require(outcome.status == 0, "\(String(decoding: outcome.standardError, as: UTF8.self))")
        return String(decoding: outcome.standardOutput, as: UTF8.self).trimmingCharacters(in: .newlines)
    }

    /// A running `enverify serve` and its two listeners.
    struct Instance {
        let process: ChildProcess
        let device: ENVerificationHTTPTransport
        let admin: ENVerificationHTTPTransport

        func stop() {
            if process.isRunning {
                process.send(SIGKILL)
                _ = process.waitForExit()
            }
        }
    }

    /// Starts `enverify serve` on `database` on ports the system chooses.
    static func start(_ setup: EnverifySetup, _ database: Database, name: String) async throws -> Instance {
        let arguments =
            ["serve"] + database.options + Array(setup.serveOptions.dropFirst(1 + setup.storageOptions.count))
            + ["--port", "0", "--admin-port", "0"]
        let output = setup.directory.path("\(name).out")
        let process = try ChildProcess(
            LiveEnverifyTests.executable, arguments, standardOutput: .file(output),
            standardError: .file(setup.directory.path("\(name).err")), environment: database.environment)
        let urls: [URL]
        do {
            urls = try await LiveEnverifyTests.listeningURLs(output, process)
        } catch {
            process.send(SIGKILL)
            _ = await process.waitForExit()
            let log = (try? String(contentsOfFile: setup.directory.path("\(name).err"), encoding: .utf8)) ?? ""
            throw ENError(.dataInaccessible, "enverify serve \(name) did not start: \(log)")
        }
        return Instance(
            process: process, device: ENVerificationHTTPTransport(baseURL: urls[0]),
            admin: ENVerificationHTTPTransport(baseURL: urls[1]))
    }

    /// Issues a confirmed code through `instance`: its short code.
    static func issue(_ instance: Instance, adminKey: String) async throws -> String {
        let answer = try await instance.admin.post(
            .issue, apiKey: adminKey,
            body: Data(#"{"testType":"confirmed","symptomDate":"\#(todayUTC())"}"#.utf8), chaff: false)
        try #require(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
        return try #require(jsonObject(answer.body)["code"] as? String)
    }

    static func verify(_ instance: Instance, _ code: String, deviceKey: String) async throws
        -> ENVerificationHTTPResponse
    {
        try await instance.device.post(
            .verify, apiKey: deviceKey, body: Data(#"{"code":"\#(code)"}"#.utf8), chaff: false)
    }

    static func certify(_ instance: Instance, _ token: String, deviceKey: String) async throws
        -> ENVerificationHTTPResponse
    {
        try await instance.device.post(
            .certificate, apiKey: deviceKey, body: Data(#"{"token":"\#(token)","ekeyhmac":"\#(AppKeys().hmac)"}"#.utf8),
            chaff: false)
    }

    @Test(
        "two instances on one database, one code and then its token posted to both at once: one wins, the other gets Google's code",
        arguments: kinds)
    func twoInstancesAcceptACodeAndATokenOnce(kind: String) async throws {
        let setup = try EnverifySetup()
        defer { setup.directory.cleanUp() }
        try await Self.withDatabase(kind, setup) { database in
            let adminKey = try Self.createKey(database, type: "admin", name: "lab")
            let deviceKey = try Self.createKey(database, type: "device", name: "app")
            let first = try await Self.start(setup, database, name: "first")
            defer { first.stop() }
            let second = try await Self.start(setup, database, name: "second")
            defer { second.stop() }
            let instances = [first, second]

            for round in 0..<10 {
                let code = try await Self.issue(instances[round % 2], adminKey: adminKey)
                async let one = Self.verify(first, code, deviceKey: deviceKey)
                async let other = Self.verify(second, code, deviceKey: deviceKey)
                let answers = try await [one, other]
                let won = answers.filter { $0.status == 200 }
                #expect(won.count == 1, "round \(round): \(answers.map(\.status))")
                for lost in answers where lost.status != 200 {
                    #expect(lost.status == 400)
                    #expect(jsonObject(lost.body)["errorCode"] as? String == "code_invalid")
                }
                let token = try #require(won.first.flatMap { jsonObject($0.body)["token"] as? String })

                async let certifiedOne = Self.certify(first, token, deviceKey: deviceKey)
                async let certifiedOther = Self.certify(second, token, deviceKey: deviceKey)
                let certified = try await [certifiedOne, certifiedOther]
                #expect(certified.filter { $0.status == 200 }.count == 1, "round \(round): \(certified.map(\.status))")
                for lost in certified where lost.status != 200 {
                    #expect(lost.status == 400)
                    #expect(jsonObject(lost.body)["errorCode"] as? String == "token_expired")
                }
            }
            for instance in instances {
                instance.process.send(SIGTERM)
                let ended = await instance.process.waitForExit(timeout: .seconds(30))
                #expect(ended?.exitStatus == 0, "\(String(describing: ended))")
            }
        }
    }

    /// What the traffic against a killed instance saw: the requests sent and the answers that came back.
    struct Traffic: Sendable {
        var verifySent: Set<String> = []
        var verified: [String: String] = [:]
        var certifySent: Set<String> = []
        var certified: Set<String> = []
    }

    /// The traffic's shared state: the codes still to send and what was seen.
    final class TrafficLog: Sendable {
        let queue: Locked<ArraySlice<String>>
        let seen = Locked(Traffic())

        init(_ codes: [String]) { queue = Locked(codes[...]) }
    }

    @Test(
        "kill -9 in the middle of traffic, three times: a used code stays used, an unused one works, the database is whole",
        arguments: kinds)
    func killedMidTrafficNeverAcceptsTwice(kind: String) async throws {
        let setup = try EnverifySetup()
        defer { setup.directory.cleanUp() }
        var generator = SeededRandomNumberGenerator.forTest()
        try await Self.withDatabase(kind, setup) { database in
            let adminKey = try Self.createKey(database, type: "admin", name: "lab")
            let deviceKey = try Self.createKey(database, type: "device", name: "app")
            for round in 0..<3 {
                let instance = try await Self.start(setup, database, name: "killed-\(round)")
                defer { instance.stop() }
                var codes: [String] = []
                for _ in 0..<40 { codes.append(try await Self.issue(instance, adminKey: adminKey)) }
                let (trafficCodes, spare) = (Array(codes[..<34]), Array(codes[34...]))

                // Two streams verify codes and certify their tokens, then keep posting unknown codes, until the
                // instance dies under them.
                let log = TrafficLog(trafficCodes)
                let delay = Int.random(in: 300...900, using: &generator)
                let killedWhileRunning = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for _ in 0..<2 {
                        group.addTask {
                            do {
                                while true {
                                    let code = log.queue.withLock { $0.popFirst() } ?? "00000000"
                                    log.seen.withLock { _ = $0.verifySent.insert(code) }
                                    let answer = try await Self.verify(instance, code, deviceKey: deviceKey)
                                    guard answer.status == 200, let token = jsonObject(answer.body)["token"] as? String
                                    else { continue }
                                    log.seen.withLock {
                                        $0.verified[code] = token
                                        _ = $0.certifySent.insert(token)
                                    }
                                    if try await Self.certify(instance, token, deviceKey: deviceKey).status == 200 {
                                        log.seen.withLock { _ = $0.certified.insert(token) }
                                    }
                                }
                            } catch {
                                return false
                            }
                        }
                    }
                    group.addTask {
                        try await Task.sleep(for: .milliseconds(delay))
                        let running = instance.process.isRunning
                        instance.process.send(SIGKILL)
                        _ = await instance.process.waitForExit()
                        return running
                    }
                    return try await group.reduce(false) { $0 || $1 }
                }
                #expect(killedWhileRunning, "round \(round): the instance had ended before the kill")
                let seen = log.seen.withLock { $0 }
                #expect(!seen.verified.isEmpty, "round \(round): no code was verified before the kill")

                if kind == "sqlite" {
                    let check = try ChildProcess.run(
                        "/usr/bin/sqlite3", [setup.directory.path("verify.db"), "PRAGMA integrity_check"])
                    #expect(String(decoding: check.standardOutput, as: UTF8.self) == "ok\n", "round \(round)")
                }

                let restarted = try await Self.start(setup, database, name: "restarted-\(round)")
                defer { restarted.stop() }
                // A code answered 200 before the kill is used; a code in flight is used or not, but once at most.
                for code in trafficCodes where seen.verifySent.contains(code) {
                    let again = try await Self.verify(restarted, code, deviceKey: deviceKey)
                    if seen.verified[code] != nil {
                        #expect(again.status == 400, "round \(round): a used code was accepted again")
                        #expect(jsonObject(again.body)["errorCode"] as? String == "code_invalid")
                    } else {
                        #expect(again.status == 200 || again.status == 400, "round \(round): \(again.status)")
                    }
                    if again.status != 200 { continue }
                    #expect(try await Self.verify(restarted, code, deviceKey: deviceKey).status == 400)
                }
                // A token certified before the kill is used; one never sent to /api/certificate works once.
                for (_, token) in seen.verified {
                    let answer = try await Self.certify(restarted, token, deviceKey: deviceKey)
                    if seen.certified.contains(token) {
                        #expect(answer.status == 400, "round \(round): a used token was accepted again")
                        #expect(jsonObject(answer.body)["errorCode"] as? String == "token_expired")
                    } else if !seen.certifySent.contains(token) {
                        #expect(answer.status == 200, "round \(round): an unused token was refused")
                    }
                    #expect(try await Self.certify(restarted, token, deviceKey: deviceKey).status == 400)
                }
                // Codes the traffic never touched still work, once.
                for code in spare + trafficCodes.filter({ !seen.verifySent.contains($0) }) {
                    #expect(
                        try await Self.verify(restarted, code, deviceKey: deviceKey).status == 200,
                        "round \(round): an unused code was refused")
                    #expect(try await Self.verify(restarted, code, deviceKey: deviceKey).status == 400)
                }
                restarted.process.send(SIGTERM)
                #expect(await restarted.process.waitForExit(timeout: .seconds(30))?.exitStatus == 0)
            }
        }
    }

    #if PostgreSQL
        // Built without the PostgreSQL trait (the sanitizer jobs), `--postgres` exits 2 for want of it instead.
        @Test(
            "refused PostgreSQL setups exit 2 naming the option: a password in the URL, no TLS off loopback, a readable password file"
        )
        func refusedPostgresSetups() throws {
            let setup = try EnverifySetup()
            defer { setup.directory.cleanUp() }
            let create = ["apikey", "create", "--secret-file", setup.secretPath, "--type", "admin", "--name", "a"]
            let inURL = try LiveEnverifyTests.run(create + ["--postgres", "postgres://en:secret@127.0.0.1:1/v"])
            let inURLError = String(decoding: inURL.standardError, as: UTF8.self)
            #expect(inURL.status == 2)
            #expect(
                inURLError.contains("--postgres") && inURLError.contains("ENVERIFY_POSTGRES_PASSWORD"), "\(inURLError)")
            #expect(!inURLError.contains("secret@"), "\(inURLError)")

            let clear = try LiveEnverifyTests.run(
                create + ["--postgres", "postgres://en@db.example.org/v?sslmode=disable"])
            let clearError = String(decoding: clear.standardError, as: UTF8.self)
            #expect(clear.status == 2)
            #expect(clearError.contains("--postgres") && clearError.contains("sslmode"), "\(clearError)")

            try "pw\n".write(toFile: setup.directory.path("pg-password"), atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes(
                [.posixPermissions: 0o644], ofItemAtPath: setup.directory.path("pg-password"))
            let readable = try LiveEnverifyTests.run(
                create + [
                    "--postgres", "postgres://en@127.0.0.1:1/v", "--postgres-password-file",
                    setup.directory.path("pg-password"),
                ])
            #expect(readable.status == 2)
            #expect(String(decoding: readable.standardError, as: UTF8.self).contains("--postgres-password-file"))
        }
    #endif
}
