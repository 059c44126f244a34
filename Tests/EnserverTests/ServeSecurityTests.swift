import ArgumentParser
import ENCrypto
import ENHTTPServer
import ENTestSupport
import EnserverKit
import Foundation
import Testing

/// `enserver serve` closed by default: certificate verification unless told otherwise, accept-all only on loopback,
/// bad options exit 2.
@Suite("enserver: closed by default")
struct ServeSecurityTests {
    @Test(
        "a certificate-less publish to a default `serve` gets Google's 401; with `entool certificate`'s, it is accepted",
        .enabled(if: ExternalTool.enserver.isAvailable && ExternalTool.entool.isAvailable))
    func certificateByDefault() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let signingKey = try P256SigningKey()
        let (verificationKey, privateKey) = (directory.path("verification.pem"), directory.path("ha.pem"))
        try signingKey.publicKey.pemRepresentation.write(toFile: verificationKey, atomically: true, encoding: .utf8)
        try writeSecret(try signingKey.pemRepresentation, toFile: privateKey)
        let server = try await EnserverProcess.start(
            try EnserverProcess.baseOptions(directory) + [
                "--certificate-issuer", "example.verification", "--certificate-audience", "example.keyserver",
                "--certificate-key", "v1=\(verificationKey)",
            ], in: directory, admin: false)
        let body = publishBody(count: 2, at: Date())
        let client = LoopbackClient(port: server.port)
        let refused = try await client.publish(body)
        try body.write(toFile: directory.path("publish.json"), atomically: true, encoding: .utf8)
        let minted = try ExternalTool.entool.run([
            "certificate", directory.path("publish.json"), "--signing-key", privateKey, "--key-id", "v1", "--issuer",
            "example.verification", "--audience", "example.keyserver",
        ])
        let accepted = try await client.publish(minted.output)
        await server.stop()
        #expect(refused.status == 401, "\(refused.text)")
        #expect(
            try jsonObject(refused.text)["code"] as? String == "health_authority_verification_certificate_invalid")
        #expect(minted.status == 0, "\(String(decoding: minted.stderr, as: UTF8.self))")
        #expect(accepted.status == 200, "\(accepted.text)")
        #expect(try jsonObject(accepted.text)["insertedExposures"] as? Int == 2, "\(accepted.text)")
    }

    @Test("`--verifier accept-all` is refused, naming it, on any address but loopback")
    func acceptAllOnlyOnLoopback() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let base = try EnserverProcess.baseOptions(directory) + ["--verifier", "accept-all"]
        for host in ["0.0.0.0", "192.0.2.10", "::", "2001:db8::1", "example.com", "::ffff:192.0.2.1"] {
            do {
                try await runEnserver(["serve"] + base + ["--host", host])
                Issue.record("serve --host \(host) --verifier accept-all should fail")
            } catch let failure as EnserverFailure {
                #expect(failure.exitCode == 2)
                #expect(failure.message.contains("--verifier accept-all"), "\(failure.message)")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: directory.path("keys.sqlite")))
    }

    @Test(
        "a public --host or --admin-host needs HTTPS or --behind-tls-proxy; the TLS options go in pairs and must read")
    func plainHTTPOnlyOnLoopback() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let base = try EnserverProcess.baseOptions(directory) + ["--verifier", "certificate"]
        for (arguments, text) in [
            (["--host", "0.0.0.0"], "--behind-tls-proxy"),
            (["--admin-host", "0.0.0.0"], "--admin-host 0.0.0.0 is not loopback"),
            (["--admin-host", "192.0.2.10", "--admin-port", "0"], "--behind-tls-proxy"),
            (["--tls-certificate", directory.path("cert.pem")], "--tls-certificate needs --tls-key"),
            (["--tls-key", directory.path("key.pem")], "--tls-key needs --tls-certificate"),
            (["--tls-certificate", directory.path("none.pem"), "--tls-key", directory.path("none.pem")], "--tls-"),
            (["--read-timeout", "soon"], "--read-timeout soon"),
            (["--max-body-size", "0"], "--max-body-size"),
            (["--publish-burst=-1"], "--publish-burst"),
        ] {
            do {
                try await runEnserver(["serve"] + base + arguments)
                Issue.record("serve \(arguments) should fail")
            } catch let failure as EnserverFailure {
                #expect(failure.exitCode == 2)
                #expect(failure.message.contains(text), "\(arguments): \(failure.message)")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: directory.path("keys.sqlite")))
    }

    @Test("an unknown option or a bad value: exit 2 and ArgumentParser's message")
    func parseErrorsExitTwo() throws {
        for arguments in [["--colour", "blue"], ["serve", "--port", "eighty"], ["serve", "--verifier", "maybe"]] {
            do {
                _ = try Enserver.parseAsRoot(arguments)
                Issue.record("\(arguments) should not parse")
            } catch {
                #expect(Enserver.exitStatus(for: error) == 2, "\(arguments)")
                #expect(!Enserver.fullMessage(for: error).isEmpty)
            }
        }
    }

    @Test(
        "the executable exits 2 with the message for an unknown option or a missing value, 0 for --help and --version",
        .enabled(if: ExternalTool.enserver.isAvailable))
    func executableExitStatus() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let base = try EnserverProcess.baseOptions(directory)
        let unknown = try ExternalTool.enserver.run(["serve"] + base + ["--colour", "blue"])
        #expect(unknown.status == 2)
        #expect(String(decoding: unknown.stderr, as: UTF8.self).contains("--colour"))
        let badValue = try ExternalTool.enserver.run(["serve"] + base + ["--read-timeout"])
        #expect(badValue.status == 2)
        let help = try ExternalTool.enserver.run(["--help"])
        #expect(help.status == 0 && help.output.contains("USAGE"))
        let version = try ExternalTool.enserver.run(["--version"])
        #expect(version.status == 0 && version.output.contains("0.1.0"))
    }
}
