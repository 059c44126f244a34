import ENCore
import ENHTTPServer
import ENTestSupport
import ENVerificationServer
import EnverifyKit
import Foundation
import Testing

/// `enverify`'s listeners over real sockets, with the limits and HTTPS `enserver` has (the shared ENHTTPServer):
/// the read timeout, the body cap, the connection cap; and `serve` refusing plain HTTP off loopback.
@Suite("enverify: listeners and their limits")
struct VerificationListenerTests {
    /// Serves the fixture's service on two loopback listeners with `limits`.
    static func serving<Value: Sendable>(
        _ fixture: VerificationHTTPTests.Fixture, limits: HTTPLimits = HTTPLimits(), tls: ServerTLS? = nil,
        _ body: @escaping @Sendable (_ device: Int, _ admin: Int) async throws -> Value
    ) async throws -> Value {
        try await VerificationHTTP.withRunningServers(
            device: (VerificationHTTP(service: fixture.service, api: .device), "127.0.0.1", 0),
            admin: (VerificationHTTP(service: fixture.service, api: .admin), "127.0.0.1", 0), limits: limits, tls: tls,
            body)
    }

    @Test("a client sending its request a byte at a time is disconnected once the read timeout has passed")
    func slowClientDisconnected() async throws {
        let fixture = try await VerificationHTTPTests.Fixture()
        let limits = HTTPLimits(idleTimeout: .seconds(600), readTimeout: .seconds(1))
        let (sent, closed) = try await Self.serving(fixture, limits: limits) { device, _ in
            let connection = try RawConnection(port: device)
            // 200 bytes of head at one byte every 100 ms would take 20 s: the server must hang up long before.
            let head = Data(
                ("POST /api/verify HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + String(repeating: "a", count: 200)).utf8)
            var sent = 0
            for byte in head {
                if connection.closedByServer { break }
                guard await connection.send(Data([byte])) else { break }
                sent += 1
                try await Task.sleep(for: .milliseconds(100))
            }
            return (sent, connection.closedByServer ? true : !(await connection.send(Data("\r\n\r\n".utf8))))
        }
        #expect(closed, "the connection is still open")
        #expect(sent < 200, "the whole slow head was accepted (\(sent) bytes)")
    }

    @Test("a body over --max-body-size gets the service's answer to an oversized body, then the connection closes")
    func oversizedBody() async throws {
        let fixture = try await VerificationHTTPTests.Fixture()
        // What the service itself answers a body over the limit: the HTTP listener must give the same.
        let expected = await fixture.service.respond(
            to: .verify, apiKey: fixture.deviceKey, contentType: "application/json", body: Data(),
            bodyExceedsLimit: true)
        let limits = HTTPLimits(maximumBodyBytes: 1000)
        let outcome = try await Self.serving(fixture, limits: limits) { device, _ in
            let connection = try RawConnection(port: device, sendTimeout: 20)
            let body = Data(#"{"code":""#.utf8) + Data(repeating: 0x31, count: 5000) + Data(#""}"#.utf8)
            let head =
                "POST /api/verify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "X-API-Key: \(fixture.deviceKey)\r\nContent-Length: \(body.count)\r\n\r\n"
            _ = await connection.send(Data(head.utf8) + body)
            return (String(decoding: await connection.readAll(), as: UTF8.self), connection.lastError)
        }
        let reply = outcome.0
        #expect(expected.status >= 400)
        #expect(
            reply.hasPrefix("HTTP/1.1 \(expected.status)"),
            "\(reply.prefix(300)); errno \(String(describing: outcome.1))")
        #expect(reply.hasSuffix(String(decoding: expected.body, as: UTF8.self)), "\(reply.prefix(600))")
    }

    @Test("past the connection limit a new connection waits, and is served once an open one closes")
    func connectionLimit() async throws {
        let fixture = try await VerificationHTTPTests.Fixture()
        let (waited, reply) = try await Self.serving(fixture, limits: HTTPLimits(maximumConnections: 1)) { device, _ in
            var first: RawConnection? = try RawConnection(port: device)
            try await Task.sleep(for: .milliseconds(300))
            let second = try RawConnection(port: device)
            #expect(
                await second.send(Data("GET /nowhere HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)))
            try await Task.sleep(for: .milliseconds(500))
            let waited = !second.hasData
            withExtendedLifetime(first) {}
            first = nil  // closes the first connection
            return (waited, String(decoding: await second.readAll(), as: UTF8.self))
        }
        #expect(waited, "the second connection was served while the first was open")
        #expect(reply.hasPrefix("HTTP/1.1 404"), "\(reply.prefix(200))")
    }

    @Test(
        "plain HTTP off loopback, on either listener, exits 2 naming the option; bad limits exit 2",
        arguments: [
            (["--host", "0.0.0.0"], "--host"),
            (["--admin-host", "192.0.2.7"], "--admin-host"),
            (["--idle-timeout", "60"], "--idle-timeout"),
            (["--read-timeout", "-1s"], "--read-timeout"),
            (["--max-connections", "0"], "--max-connections"),
            (["--max-body-size", "0"], "--max-body-size"),
            (["--tls-certificate", "/nonexistent.pem"], "--tls-key"),
        ] as [([String], String)])
    func refusedNetworks(extra: [String], option: String) throws {
        let setup = try EnverifySetup()
        defer { setup.directory.cleanUp() }
        let outcome = try LiveEnverifyTests.run(setup.serveOptions + extra)
        let error = String(decoding: outcome.standardError, as: UTF8.self)
        #expect(outcome.status == 2, "\(error)")
        #expect(error.contains(option), "\(error)")
    }

    #if TLS
        @Test(
            "with --tls-certificate both listeners serve HTTPS and say https://; plain HTTP and an untrusting client fail",
            .enabled(if: TestTLS.isAvailable))
        func https() async throws {
            let setup = try EnverifySetup()
            defer { setup.directory.cleanUp() }
            let (certificate, key) = try TestTLS.makeCertificate(in: setup.directory)
            let deviceKey = try LiveEnverifyTests.createKey(setup, type: "device", name: "app")
            let output = setup.directory.path("serve.out")
            let child = try ChildProcess(
                LiveEnverifyTests.executable,
                setup.serveOptions + [
                    "--port", "0", "--admin-port", "0", "--tls-certificate", certificate, "--tls-key", key,
                ], standardOutput: .file(output), standardError: .file(setup.directory.path("serve.err")))
            defer {
                child.send(SIGKILL)
                _ = child.waitForExit()
            }
            let urls = try await LiveEnverifyTests.listeningURLs(output, child)
            #expect(urls.allSatisfy { $0.scheme == "https" }, "\(urls)")
            let device = "https://127.0.0.1:\(urls[0].port ?? 0)"
            let verify = [
                "-X", "POST", "-H", "Content-Type: application/json", "-H", "X-API-Key: \(deviceKey)", "--data",
                #"{"code":"12345678"}"#, "-w", "\n%{http_code}", "\(device)/api/verify",
            ]
            let trusted = await TestTLS.curl(["--cacert", certificate] + verify)
            #expect(trusted.status == 0 && trusted.output.hasSuffix("\n400"), "\(trusted)")
            #expect(trusted.output.contains(#""errorCode":"code_invalid""#), "\(trusted)")
            let untrusted = await TestTLS.curl(verify)
            #expect(untrusted.status != 0, "a client that does not trust the certificate: \(untrusted)")
            let plain = await TestTLS.curl(["-w", "%{http_code}", "http://127.0.0.1:\(urls[1].port ?? 0)/api/issue"])
            #expect(plain.output != "401" && plain.output != "405", "plain HTTP on the admin HTTPS port: \(plain)")
        }
    #endif
}
