#if TLS
    import ENHTTPServer
    import ENTestSupport
    import EnserverKit
    import Foundation
    import Testing

    /// HTTPS on the public listener (the `TLS` trait): a certificate made by OpenSSL at test time, a client that
    /// trusts it (curl with it as its CA).
    @Suite("enserver: HTTPS")
    struct ServeTLSTests {
        @Test(
            "HTTPS with a test certificate: a publish and index.txt through a client trusting it; plain HTTP fails",
            .enabled(if: TestTLS.isAvailable))
        func https() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let (certificate, key) = try TestTLS.makeCertificate(in: directory)
            let tls = ServerTLS(
                certificateChainPEM: try String(contentsOfFile: certificate, encoding: .utf8),
                privateKeyPEM: try String(contentsOfFile: key, encoding: .utf8))
            let body = directory.path("publish.json")
            try publishBody(count: 2).write(toFile: body, atomically: true, encoding: .utf8)
            let sut = try ServerUnderTest()
            let (publish, index, plain, untrusted) = try await sut.http.withRunningServers(KeyServerListeners(tls: tls))
            { bound in
                let base = "https://127.0.0.1:\(bound.port)"
                return (
                    await TestTLS.curl([
                        "--cacert", certificate, "-X", "POST", "-H", "Content-Type: application/json", "--data-binary",
                        "@\(body)", "-w", "\n%{http_code}", "\(base)/v1/publish",
                    ]),
                    await TestTLS.curl([
                        "--cacert", certificate, "-w", "%{http_code}", "\(base)/exposureKeyExport-US/index.txt",
                    ]),
                    await TestTLS.curl(["-w", "%{http_code}", "http://127.0.0.1:\(bound.port)/health"]),
                    await TestTLS.curl(["-w", "%{http_code}", "\(base)/health"])
                )
            }
            #expect(publish.status == 0 && publish.output.hasSuffix("\n200"), "\(publish)")
            #expect(try jsonObject(String(publish.output.dropLast(4)))["insertedExposures"] as? Int == 2)
            #expect(index.status == 0 && index.output == "200", "\(index)")
            #expect(plain.output != "200", "plain HTTP on the HTTPS port: \(plain)")
            #expect(untrusted.status != 0, "a client that does not trust the certificate: \(untrusted)")
        }

        @Test(
            "the executable serves HTTPS and says https:// in its listening line",
            .enabled(if: TestTLS.isAvailable && ExternalTool.enserver.isAvailable))
        func executable() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let (certificate, key) = try TestTLS.makeCertificate(in: directory)
            let server = try await EnserverProcess.start(
                try EnserverProcess.baseOptions(directory) + [
                    "--verifier", "accept-all", "--tls-certificate", certificate, "--tls-key", key, "--admin-port", "0",
                ], in: directory, scheme: "https")
            let health = await TestTLS.curl(
                ["--cacert", certificate, "-w", "%{http_code}", "https://127.0.0.1:\(server.port)/health"])
            await server.stop()
            #expect(health.output == "ok200", "\(health) \(server.log)")
        }
    }
#endif
