import ArgumentParser
import ENCore
import ENCrypto
import ENHTTPServer
import ENTestSupport
import EnserverKit
import Foundation
import Testing

@Suite("enserver configured like a service: environment, file, secrets off the command line")
struct EnserverConfigurationTests {
    /// The options an export needs, as NAME: VALUE, with the signing key written in `directory`.
    func exportOptions(_ directory: TemporaryDirectory) throws -> [String: String] {
        let pem = directory.path("signing.pem")
        try writeSecret(try P256SigningKey().pemRepresentation, toFile: pem)
        return [
            "database": directory.path("keys.sqlite"), "region": "US", "signing-key": pem, "key-id": "310",
            "health-authority-id": "com.example.app", "export-dir": directory.path("exports"), "verifier": "accept-all",
        ]
    }

    func run(_ arguments: [String], environment: [String: String]) async throws {
        try await EnserverEnvironment.$current.withValue(environment) {
            let command = try Enserver.parse(arguments, environment: environment)
            guard var command = command as? any AsyncParsableCommand else {
                Issue.record("not an async command: \(command)")
                return
            }
            try await command.run()
        }
    }

    @Test("every option from ENSERVER_* variables alone: an export runs and writes its index")
    func environmentOnly() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        var environment: [String: String] = [:]
        for (name, value) in try exportOptions(directory) {
            environment["ENSERVER_" + name.uppercased().replacingOccurrences(of: "-", with: "_")] = value
        }
        try await run(["export", "--now", "2026-05-09T06:00:00Z"], environment: environment)
        #expect(FileManager.default.fileExists(atPath: directory.path("exports/index.txt")))
        #expect(FileManager.default.fileExists(atPath: directory.path("keys.sqlite")))
    }

    @Test("every option from a --config JSON file alone")
    func fileOnly() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let file = directory.path("enserver.json")
        try JSONSerialization.data(withJSONObject: try exportOptions(directory)).write(to: URL(fileURLWithPath: file))
        try await run(["export", "--config", file, "--now", "2026-05-09T06:00:00Z"], environment: [:])
        #expect(FileManager.default.fileExists(atPath: directory.path("exports/index.txt")))
        // ENSERVER_CONFIG names the file too.
        try FileManager.default.removeItem(atPath: directory.path("exports"))
        try await run(["export", "--now", "2026-05-09T06:00:00Z"], environment: ["ENSERVER_CONFIG": file])
        #expect(FileManager.default.fileExists(atPath: directory.path("exports/index.txt")))
    }

    @Test("the command line wins over the environment, which wins over the file; lists, flags, errors")
    func precedence() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let file = directory.path("c.json")
        try Data(
            #"{"region": "FILE", "key-id": 1, "port": 9000, "certificate-key": ["a=1.pem", "b=2.pem"], "ephemeral-revision-tokens": true}"#
                .utf8
        ).write(to: URL(fileURLWithPath: file))
        let arguments = try EnserverConfigurationSources.arguments(
            ["--region", "ARGV", "--config", file],
            environment: ["ENSERVER_REGION": "ENV", "ENSERVER_KEY_ID": "222", "ENSERVER_UNRELATED": "x"])
        // serve is the default subcommand; what the command line gives stays first and alone.
        #expect(arguments.first == "serve")
        #expect(arguments.filter { $0 == "--region" }.count == 1)
        #expect(arguments[arguments.firstIndex(of: "--region")! + 1] == "ARGV")
        #expect(arguments[arguments.firstIndex(of: "--key-id")! + 1] == "222")
        #expect(arguments[arguments.firstIndex(of: "--port")! + 1] == "9000")
        #expect(arguments.filter { $0 == "--certificate-key" }.count == 2)
        #expect(arguments.contains("--ephemeral-revision-tokens"))

        let listed = try EnserverConfigurationSources.arguments(
            ["export"],
            environment: ["ENSERVER_CERTIFICATE_KEY": "a=1.pem,b=2.pem", "ENSERVER_EPHEMERAL_REVISION_TOKENS": "0"])
        #expect(listed == ["export", "--certificate-key", "a=1.pem", "--certificate-key", "b=2.pem"])

        try Data(#"{"colour": "blue"}"#.utf8).write(to: URL(fileURLWithPath: file))
        #expect(throws: EnserverFailure.self) {
            try EnserverConfigurationSources.arguments(["--config", file], environment: [:])
        }
        #expect(throws: EnserverFailure.self) {
            try EnserverConfigurationSources.arguments(
                ["serve"], environment: ["ENSERVER_EPHEMERAL_REVISION_TOKENS": "maybe"])
        }
    }

    @Test("a PostgreSQL password on the command line is refused, naming where it belongs")
    func passwordOnTheCommandLine() throws {
        let error = #expect(throws: EnserverFailure.self) {
            try EnserverConfigurationSources.arguments(
                ["serve", "--postgres", "postgres://en:hunter2@db.example.org/keys"], environment: [:])
        }
        #expect(error?.exitCode == 2)
        #expect(error?.message.contains("ENSERVER_POSTGRES") == true)
        #expect(error?.message.contains("hunter2") == false)
        // From the environment it is taken.
        let arguments = try EnserverConfigurationSources.arguments(
            ["serve"], environment: ["ENSERVER_POSTGRES": "postgres://en:hunter2@db.example.org/keys"])
        #expect(arguments.contains("postgres://en:hunter2@db.example.org/keys"))
    }

    @Test("a key file its group or others may read exits 2; serve wants revision-token keys or says it does not")
    func keyFilesAndTokenKeys() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        var options = try exportOptions(directory)
        options["export-dir"] = nil
        let base = options.sorted { $0.key < $1.key }.flatMap { ["--" + $0.key, $0.value] }
        #expect(chmod(options["signing-key"]!, 0o640) == 0)
        await expectFailure(["export"] + base, mentioning: "mode 640")
        #expect(chmod(options["signing-key"]!, 0o600) == 0)
        let tokens = directory.path("tokens")
        try "1=\(Data(repeating: 7, count: 32).base64EncodedString())\n".write(
            toFile: tokens, atomically: true, encoding: .utf8)
        #expect(chmod(tokens, 0o644) == 0)
        await expectFailure(["export"] + base + ["--revision-token-keys-file", tokens], mentioning: "chmod 600")
        await expectFailure(
            ["serve", "--verifier", "accept-all", "--port", "0"] + base, mentioning: "--ephemeral-revision-tokens")
    }

    @Test(
        "an encrypted --signing-key: its passphrase from a file or the environment; without it, wrong, or readable by others, exit 2",
        .enabled(if: ExternalTool.openssl.isAvailable))
    func encryptedSigningKey() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        var options = try exportOptions(directory)
        let passphrase = "open sesame 7"
        let encrypted = directory.path("signing.enc.pem")
        let made = try ExternalTool.openssl.run([
            "pkcs8", "-topk8", "-v2", "aes-256-cbc", "-in", options["signing-key"]!, "-passout", "pass:\(passphrase)",
            "-out", encrypted,
        ])
        #expect(made.status == 0)
        #expect(chmod(encrypted, 0o600) == 0)
        options["signing-key"] = encrypted
        let base = options.sorted { $0.key < $1.key }.flatMap { ["--" + $0.key, $0.value] }
        let export = ["export", "--now", "2026-05-09T06:00:00Z"] + base
        await expectFailure(export, mentioning: "--signing-key-passphrase-file FILE or ENSERVER_SIGNING_KEY_PASSPHRASE")
        // From a file, owner-only, its final newline removed.
        let file = directory.path("passphrase")
        try writeSecret(passphrase + "\n", toFile: file)
        try await run(export + ["--signing-key-passphrase-file", file], environment: [:])
        #expect(FileManager.default.fileExists(atPath: directory.path("exports/index.txt")))
        // From the environment.
        try FileManager.default.removeItem(atPath: directory.path("exports"))
        try await run(export, environment: ["ENSERVER_SIGNING_KEY_PASSPHRASE": passphrase])
        #expect(FileManager.default.fileExists(atPath: directory.path("exports/index.txt")))
        // A wrong one, and a passphrase file its group may read, never echoing the passphrase.
        do {
            try await run(export, environment: ["ENSERVER_SIGNING_KEY_PASSPHRASE": "not it"])
            Issue.record("a wrong passphrase should fail")
        } catch let failure as EnserverFailure {
            #expect(failure.exitCode == 2)
            #expect(failure.message.contains("--signing-key") && failure.message.contains("does not decrypt"))
            #expect(!failure.message.contains("not it"))
        }
        #expect(chmod(file, 0o640) == 0)
        await expectFailure(
            export + ["--signing-key-passphrase-file", file], mentioning: "--signing-key-passphrase-file")
    }

    func expectFailure(_ arguments: [String], mentioning text: String) async {
        do {
            try await run(arguments, environment: [:])
            Issue.record("enserver \(arguments) should fail")
        } catch let failure as EnserverFailure {
            #expect(failure.exitCode == 2)
            #expect(failure.message.contains(text), "\(failure.message)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test(
        "secrets given by file or environment never appear in /proc/PID/cmdline",
        .enabled(if: ExternalTool.enserver.isAvailable && FileManager.default.fileExists(atPath: "/proc/self/cmdline")))
    func noSecretOnTheCommandLine() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let options = try exportOptions(directory)
        let tokenKey = Data((0..<32).map { UInt8($0 * 7 % 251) }).base64EncodedString()
        let output = directory.url.appendingPathComponent("enserver.log")
        var environment = ProcessInfo.processInfo.environment
        environment["ENSERVER_REVISION_TOKEN_KEYS"] = "3=\(tokenKey)"
        environment["ENSERVER_SIGNING_KEY"] = options["signing-key"]
        let process = try ChildProcess(
            try #require(ExternalTool.enserver.path),
            [
                "serve", "--database", options["database"]!, "--region", "US", "--key-id", "310",
                "--health-authority-id", "com.example.app", "--verifier", "accept-all", "--port", "0", "--admin-port",
                "0",
            ], standardOutput: .file(output.path), standardError: .standardOutput, environment: environment)
        defer {
            process.send(SIGKILL)
            process.waitForExit()
        }
        var listening = false
        for _ in 0..<300 where !listening {
            listening = ((try? String(contentsOf: output, encoding: .utf8)) ?? "").contains("listening on")
            if !listening { try await Task.sleep(for: .milliseconds(100)) }
        }
        let log = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        #expect(listening, "\(log)")
        let commandLine = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(process.processIdentifier)/cmdline"))
        let text = String(decoding: commandLine.map { $0 == 0 ? 32 : $0 }, as: UTF8.self)
        #expect(text.contains("--database"))
        #expect(!text.contains(tokenKey) && !text.contains("BEGIN"), "\(text)")
        let signingPEM = try String(contentsOfFile: options["signing-key"]!, encoding: .utf8)
        let pemBody = signingPEM.split(separator: "\n").dropFirst().first.map(String.init) ?? "?"
        #expect(!text.contains(pemBody) && !log.contains(tokenKey) && !log.contains(pemBody))
    }
}
