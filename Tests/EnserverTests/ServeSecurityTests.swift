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
        "a certificate-less publish to a default `serve` is refused with 401, as Google refuses an invalid certificate",
        .enabled(if: ExternalTool.enserver.isAvailable))
    func certificateByDefault() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let verificationKey = directory.path("verification.pem")
        try P256SigningKey().publicKey.pemRepresentation.write(
            toFile: verificationKey, atomically: true, encoding: .utf8)
        let server = try await EnserverProcess.start(
            try EnserverProcess.baseOptions(directory) + [
                "--certificate-issuer", "example.verification", "--certificate-audience", "example.keyserver",
                "--certificate-key", "v1=\(verificationKey)",
            ], in: directory, admin: false)
        let reply = try await LoopbackClient(port: server.port).publish(publishBody(count: 2))
        await server.stop()
        #expect(reply.status == 401, "\(reply.text)")
        #expect(
            try jsonObject(reply.text)["code"] as? String == "health_authority_verification_certificate_invalid")
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

    @Test("a public --host needs HTTPS or --behind-tls-proxy; the TLS options go in pairs and must read")
    func plainHTTPOnlyOnLoopback() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let base = try EnserverProcess.baseOptions(directory) + ["--verifier", "certificate"]
        for (arguments, text) in [
            (["--host", "0.0.0.0"], "--behind-tls-proxy"),
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
