import ENCore
import ENCrypto
import ENKeyServer
import ENTestSupport
import ENVerificationServer
import Foundation
import Testing

/// The `enverify` program itself, built beside the test bundle: `apikey create` prints keys that work, `serve`
/// answers over HTTP through ``ENVerificationHTTPTransport`` and ``ENVerificationClient``, and bad options exit 2
/// naming the option.
@Suite("enverify program")
struct LiveEnverifyTests {
    static var executable: String { Bundle.main.bundleURL.appendingPathComponent("enverify").path }

    /// Runs `enverify` to its end.
    static func run(_ arguments: [String], environment: [String: String]? = nil) throws -> ChildProcess.Outcome {
        try ChildProcess.run(executable, arguments, environment: environment, timeout: .seconds(60))
    }

    /// `apikey create` through the program: the key it prints.
    static func createKey(_ setup: EnverifySetup, type: String, name: String, environment: [String: String]? = nil)
        throws -> String
    {
        let outcome = try run(
            ["apikey", "create"]
                + (environment == nil ? setup.storageOptions : ["--database", setup.directory.path("verify.db")])
                + ["--type", type, "--name", name], environment: environment)
        #expect(outcome.status == 0, "\(String(decoding: outcome.standardError, as: UTF8.self))")
        let lines = String(decoding: outcome.standardOutput, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 1)
        return String(lines.first ?? "")
    }

    /// The two `enverify listening on http://HOST:PORT` lines of a starting server (device first), waiting up to a
    /// minute for them.
    static func listeningURLs(_ path: String, _ child: ChildProcess) async throws -> [URL] {
        for _ in 0..<600 {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            let urls = text.split(separator: "\n").compactMap { line -> URL? in
                guard line.hasPrefix("enverify listening on ") else { return nil }
                return URL(string: String(line.dropFirst("enverify listening on ".count)))
            }
            if urls.count == 2 { return urls }
            guard child.isRunning else { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw ENError(.dataInaccessible, "enverify did not announce its two listeners")
    }

    /// Runs `enverify serve` with the setup's options, both ports free, and `extra`, standard output and error in
    /// `serve.out` and `serve.err` of the setup's directory; `body` gets the running child and its device and admin
    /// URLs. The child is killed afterwards if it still runs.
    static func withServer<Value>(
        _ setup: EnverifySetup, _ extra: [String] = [], environment: [String: String]? = nil,
        _ body: (ChildProcess, _ device: URL, _ admin: URL) async throws -> Value
    ) async throws -> Value {
        let output = setup.directory.path("serve.out")
        let child = try ChildProcess(
            executable, setup.serveOptions + ["--port", "0", "--admin-port", "0"] + extra,
            standardOutput: .file(output), standardError: .file(setup.directory.path("serve.err")),
            environment: environment)
        defer {
            if child.isRunning {
                child.send(SIGKILL)
                _ = child.waitForExit()
            }
        }
        let urls = try await listeningURLs(output, child)
        return try await body(child, urls[0], urls[1])
    }

    @Test("admin issues over HTTP, the app verifies and certifies, the key server's verifier accepts; refusals")
    func liveFlow() async throws {
        let setup = try EnverifySetup()
        defer { setup.directory.cleanUp() }
        // The secret from the environment for one key, from --secret-file for the other and for the server.
        var environment = ProcessInfo.processInfo.environment
        environment["ENVERIFY_SECRET"] = String(repeating: "s", count: 40)
        environment["ENVERIFY_SECRET_FILE"] = nil
        let adminKey = try Self.createKey(setup, type: "admin", name: "lab", environment: environment)
        let deviceKey = try Self.createKey(setup, type: "device", name: "app")
        #expect(!adminKey.isEmpty && !deviceKey.isEmpty && adminKey != deviceKey)

        try await Self.withServer(setup) { child, deviceURL, adminURL in
            #expect(deviceURL.host == "127.0.0.1" && adminURL.host == "127.0.0.1" && deviceURL != adminURL)

            let admin = ENVerificationHTTPTransport(baseURL: adminURL)
            let issued = try await admin.post(
                .issue, apiKey: adminKey, body: Data(#"{"testType":"confirmed","symptomDate":"\#(todayUTC())"}"#.utf8),
                chaff: false)
            #expect(issued.status == 200)
            let code = try #require(jsonObject(issued.body)["code"] as? String)

            let client = ENVerificationClient(
                apiKey: deviceKey, transport: ENVerificationHTTPTransport(baseURL: deviceURL))
            let verified = try await client.verify(code: code, accept: [.confirmed])
            let keys = AppKeys()
            let certified = try await client.certificate(token: verified.token, keys: keys.keys, hmacKey: keys.secret)
            let claims = try await setup.verifier.verify(keys.request(certificate: certified.certificate), at: Date())
            #expect(claims?.reportType == .confirmedTest)

            await #expect(
                throws: ENVerificationAPIError(status: 400, message: "verification code invalid", code: .codeInvalid)
            ) { _ = try await client.verify(code: code) }
            await #expect(
                throws: ENVerificationAPIError(status: 400, message: "verification token invalid", code: .tokenExpired)
            ) { _ = try await client.certificate(token: verified.token, keys: keys.keys) }
            try await client.sendChaff(to: .verify)

            // Wrong, missing and device keys on the admin API; the admin API is not on the device listener.
            for key in ["", "nonsense", deviceKey] {
                let answer = try await admin.post(.issue, apiKey: key, body: Data("{}".utf8), chaff: false)
                #expect(answer.status == 401, "key \(key)")
                #expect(jsonObject(answer.body)["error"] as? String == "unauthorized")
            }
            let misrouted = try await ENVerificationHTTPTransport(baseURL: deviceURL).post(
                .issue, apiKey: adminKey, body: Data("{}".utf8), chaff: false)
            #expect(misrouted.status == 404)

            // A response body over the transport's cap is refused, not read on.
            let capped = ENVerificationHTTPTransport(baseURL: adminURL, maximumResponseBytes: 10)
            await #expect(throws: ENError.self) {
                _ = try await capped.post(.issue, apiKey: "nonsense", body: Data("{}".utf8), chaff: false)
            }

            child.send(SIGTERM)
            let ended = await child.waitForExit(timeout: .seconds(30))
            #expect(ended?.exitStatus == 0)
            // One line a request, at the default level, on standard error in the servers' format; none on standard
            // output, which has the listening lines only.
            let log = try String(contentsOfFile: setup.directory.path("serve.err"), encoding: .utf8)
            let requestLines = log.split(separator: "\n").filter {
                $0.contains(" info enverify: ") && $0.contains("status=")
            }
            #expect(requestLines.count >= 5, "\(log)")
            #expect(
                !(try String(contentsOfFile: setup.directory.path("serve.out"), encoding: .utf8)).contains(" info "))
        }
    }

    @Test("--log-level warning leaves the request lines out")
    func logLevel() async throws {
        let setup = try EnverifySetup()
        defer { setup.directory.cleanUp() }
        try await Self.withServer(setup, ["--log-level", "warning"]) { child, _, adminURL in
            let answer = try await ENVerificationHTTPTransport(baseURL: adminURL).post(
                .issue, apiKey: "nonsense", body: Data("{}".utf8), chaff: false)
            #expect(answer.status == 401)
            child.send(SIGTERM)
            #expect(await child.waitForExit(timeout: .seconds(30))?.exitStatus == 0)
        }
        let log = try String(contentsOfFile: setup.directory.path("serve.err"), encoding: .utf8)
        #expect(!log.contains(" info "), "\(log)")
    }

    @Test(
        "bad options exit 2 naming the option",
        arguments: [
            (["--bogus"], "--bogus"),
            (["--code-duration", "15"], "--code-duration"),
            (["--token-duration", "5w"], "--token-duration"),
            (["--allowed-test-types", "confirmed,maybe"], "--allowed-test-types"),
            (["--code-length", "3"], "--code-length"),
            (["--port", "70000"], "--port"),
            (["--log-level", "loud"], "--log-level"),
        ] as [([String], String)])
    func badOptions(extra: [String], option: String) throws {
        let setup = try EnverifySetup()
        defer { setup.directory.cleanUp() }
        let outcome = try Self.run(setup.serveOptions + extra)
        let error = String(decoding: outcome.standardError, as: UTF8.self)
        #expect(outcome.status == 2, "\(error)")
        #expect(error.contains(option), "\(error)")
    }

    @Test(
        "encrypted --certificate-key and --token-key: passphrases from a file or the environment; certificates verify",
        .enabled(if: ExternalTool.openssl.isAvailable))
    func encryptedKeys() async throws {
        let setup = try EnverifySetup()
        defer { setup.directory.cleanUp() }
        for (name, passphrase) in [("certificate", "cert pass"), ("token", "token pass")] {
            let path = setup.directory.path("\(name).pem")
            let made = try ExternalTool.openssl.run([
                "pkcs8", "-topk8", "-v2", "aes-256-cbc", "-in", path, "-passout", "pass:\(passphrase)", "-out",
                path + ".enc",
            ])
            #expect(made.status == 0)
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.moveItem(atPath: path + ".enc", toPath: path)
            #expect(chmod(path, 0o600) == 0)
        }
        let deviceKey = try Self.createKey(setup, type: "device", name: "app")
        let adminKey = try Self.createKey(setup, type: "admin", name: "lab")
        // Without the passphrases: exit 2 naming where they come from.
        let without = try Self.run(setup.serveOptions + ["--port", "0"])
        #expect(without.status == 2)
        #expect(
            String(decoding: without.standardError, as: UTF8.self).contains(
                "--certificate-key-passphrase-file FILE or ENVERIFY_CERTIFICATE_KEY_PASSPHRASE"))
        // A wrong one: exit 2, the passphrase not echoed.
        var wrong = ProcessInfo.processInfo.environment
        wrong["ENVERIFY_CERTIFICATE_KEY_PASSPHRASE"] = "cert pass"
        wrong["ENVERIFY_TOKEN_KEY_PASSPHRASE"] = "guessed"
        let refused = try Self.run(setup.serveOptions + ["--port", "0"], environment: wrong)
        let refusal = String(decoding: refused.standardError, as: UTF8.self)
        #expect(refused.status == 2)
        #expect(refusal.contains("--token-key") && refusal.contains("does not decrypt") && !refusal.contains("guessed"))
        // The certificate key's from a file, the token key's from the environment: the server runs and certifies.
        try writeSecret("cert pass\n", toFile: setup.directory.path("certificate.pass"))
        var environment = ProcessInfo.processInfo.environment
        environment["ENVERIFY_TOKEN_KEY_PASSPHRASE"] = "token pass"
        try await Self.withServer(
            setup, ["--certificate-key-passphrase-file", setup.directory.path("certificate.pass")],
            environment: environment
        ) { _, deviceURL, adminURL in
            let issued = try await ENVerificationHTTPTransport(baseURL: adminURL).post(
                .issue, apiKey: adminKey, body: Data(#"{"testType":"confirmed","symptomDate":"\#(todayUTC())"}"#.utf8),
                chaff: false)
            let code = try #require(jsonObject(issued.body)["code"] as? String)
            let client = ENVerificationClient(
                apiKey: deviceKey, transport: ENVerificationHTTPTransport(baseURL: deviceURL))
            let verified = try await client.verify(code: code, accept: [.confirmed])
            let keys = AppKeys()
            let certified = try await client.certificate(token: verified.token, keys: keys.keys, hmacKey: keys.secret)
            // The key server trusts the public half of the key that was encrypted on disk.
            let claims = try await setup.verifier.verify(keys.request(certificate: certified.certificate), at: Date())
            #expect(claims?.reportType == .confirmedTest)
        }
    }

    @Test("refused setups exit 2: a PostgreSQL URL without a user, a group-readable key, no secret, a bad key type")
    func refusedSetups() throws {
        let setup = try EnverifySetup()
        defer { setup.directory.cleanUp() }
        var environment = ProcessInfo.processInfo.environment
        environment["ENVERIFY_SECRET"] = nil
        environment["ENVERIFY_SECRET_FILE"] = nil

        let postgres = try Self.run(
            [
                "apikey", "create", "--postgres", "postgres://localhost/x", "--secret-file", setup.secretPath, "--type",
                "admin", "--name", "a",
            ], environment: environment)
        #expect(postgres.status == 2)
        #expect(String(decoding: postgres.standardError, as: UTF8.self).contains("--postgres"))

        let noSecret = try Self.run(
            ["apikey", "create", "--database", setup.directory.path("v.db"), "--type", "admin", "--name", "a"],
            environment: environment)
        #expect(noSecret.status == 2)
        #expect(String(decoding: noSecret.standardError, as: UTF8.self).contains("ENVERIFY_SECRET"))

        let badType = try Self.run(["apikey", "create"] + setup.storageOptions + ["--type", "root", "--name", "a"])
        #expect(badType.status == 2)
        #expect(String(decoding: badType.standardError, as: UTF8.self).contains("--type"))

        try FileManager.default.setAttributes(
            [.posixPermissions: 0o640], ofItemAtPath: setup.directory.path("token.pem"))
        let readable = try Self.run(setup.serveOptions)
        #expect(readable.status == 2)
        #expect(String(decoding: readable.standardError, as: UTF8.self).contains("--token-key"))
    }
}
