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
            let (publish, index, plain, untrusted, admin) = try await sut.http.withRunningServers(
                KeyServerListeners(adminPort: 0, tls: tls)
            ) { bound in
                let base = "https://127.0.0.1:\(bound.port)"
                let adminBase = "127.0.0.1:\(bound.adminPort ?? 0)/metrics"
                return (
                    await TestTLS.curl([
                        "--cacert", certificate, "-X", "POST", "-H", "Content-Type: application/json", "--data-binary",
                        "@\(body)", "-w", "\n%{http_code}", "\(base)/v1/publish",
                    ]),
                    await TestTLS.curl([
                        "--cacert", certificate, "-w", "%{http_code}", "\(base)/exposureKeyExport-US/index.txt",
                    ]),
                    await TestTLS.curl(["-w", "%{http_code}", "http://127.0.0.1:\(bound.port)/health"]),
                    await TestTLS.curl(["-w", "%{http_code}", "\(base)/health"]),
                    // The admin listener serves HTTPS too, with the same certificate, and no plain HTTP.
                    (
                        await TestTLS.curl(["--cacert", certificate, "-w", "\n%{http_code}", "https://\(adminBase)"]),
                        await TestTLS.curl(["-w", "%{http_code}", "http://\(adminBase)"])
                    )
                )
            }
            #expect(publish.status == 0 && publish.output.hasSuffix("\n200"), "\(publish)")
            #expect(try jsonObject(String(publish.output.dropLast(4)))["insertedExposures"] as? Int == 2)
            #expect(index.status == 0 && index.output == "200", "\(index)")
            #expect(plain.output != "200", "plain HTTP on the HTTPS port: \(plain)")
            #expect(untrusted.status != 0, "a client that does not trust the certificate: \(untrusted)")
            #expect(admin.0.status == 0 && admin.0.output.hasSuffix("\n200"), "\(admin.0)")
            #expect(admin.0.output.contains("enserver_"), "\(admin.0)")
            #expect(admin.1.output != "200", "plain HTTP on the HTTPS admin port: \(admin.1)")
        }

        @Test(
            "the executable serves HTTPS on both listeners and says https:// in its listening lines",
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
            #expect(server.log.contains("enserver admin listening on https://127.0.0.1:"), "\(server.log)")
        }
    }
#endif
