#if PostgreSQL
    import ENCore
    import ENCrypto
    import ENExportFormat
    import ENKeyServer
    import ENKeyServerPostgres
    import ENTestSupport
    import EnserverKit
    import Foundation
    import Logging
    import PostgresNIO
    import Testing

    /// `enserver` on PostgreSQL: instances with a connection pool each on one database, as behind a load balancer.
    @Suite("enserver on PostgreSQL")
    struct EnserverPostgresTests {
        @Test(
            "two instances and `enserver export --postgres` on one database: published through one, cut by the command, served by the other",
            .enabled(if: PostgresTestDatabase.isEnabled))
        func instancesShareOneDatabase() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let signingKey = try P256SigningKey()
            let pem = directory.path("signing.pem")
            try writeSecret(signingKey.pemRepresentation, toFile: pem)
            try await PostgresTestDatabase.withSchema { url in
                let options = [
                    "--postgres", url, "--region", "US", "--signing-key", pem, "--key-id", "310",
                    "--health-authority-id", "com.example.app", "--export-root", "exposureKeyExport-US",
                    "--verifier", "accept-all",
                ]
                // The command migrates the empty schema; nothing is due yet.
                try await runEnserver(["export"] + options + ["--now", "2026-05-09T01:00:00Z"])
                let clock = ManualClock()
                let published = try await Self.withInstances(url, count: 2, clock: clock, signingKey: signingKey) {
                    instances in
                    try await instances[0].withRunningServer { port in
                        try await LoopbackClient(port: port).publish(publishBody(count: 5))
                    }
                }
                #expect(published.status == 200, "\(published.text)")
                #expect(try jsonObject(published.text)["insertedExposures"] as? Int == 5)

                try await runEnserver(["export"] + options + ["--now", "2026-05-09T06:00:00Z"])
                clock.advance(hours: 5)
                try await Self.withInstances(url, count: 2, clock: clock, signingKey: signingKey) { instances in
                    try await instances[1].withRunningServer { port in
                        let client = LoopbackClient(port: port)
                        let index = try await client.request("/exposureKeyExport-US/index.txt")
                        let names = index.text.split(separator: "\n").map(String.init)
                        #expect(names == ["exposureKeyExport-US/1778284800-1778299200-00001.zip"])
                        let file = try await client.request("/\(names[0])")
                        #expect(file.status == 200)
                        let archive = try ENExportArchive(data: file.body)
                        let verifier = ENExportVerifier(trustedKeys: [
                            ENExportVerificationKey(keyID: "310", keyVersion: "v1", publicKey: try signingKey.publicKey)
                        ])
                        #expect(try verifier.verify(archive).isVerified)
                        // The five keys, and Google's padding up to its minimum.
                        #expect(try archive.keyExport().keys.count >= 5)
                        // The same keys again, through the other instance, without a revision token: refused as Google does.
                        let again = try await client.publish(publishBody(count: 5))
                        #expect(again.status == 400)
                        #expect(try jsonObject(again.text)["code"] as? String == "missing_revision_token")
                    }
                }
            }
        }

        /// `count` instances of the key server on `url`, each with its own connection pool (as separate processes
        /// have), exporting 4-hour batches under `exposureKeyExport-US`.
        static func withInstances<Value: Sendable>(
            _ url: String, count: Int, clock: ManualClock, signingKey: P256SigningKey,
            _ body: ([KeyServerHTTP]) async throws -> Value
        ) async throws -> Value {
            let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
            let configuration = try ENKeyServerPostgresStore.clientConfiguration(url: url)
            let clients = (0..<count).map { _ in PostgresClient(configuration: configuration, backgroundLogger: quiet) }
            let tokenKeys = try ENRevisionTokenKeys.generate()
            return try await withThrowingTaskGroup(of: Void.self) { group in
                for client in clients { group.addTask { await client.run() } }
                defer { group.cancelAll() }
                let instances = clients.map { client in
                    let store = ENKeyServerPostgresStore(client: client, logger: quiet)
                    return KeyServerHTTP(
                        exporter: ENKeyServerExporter(
                            storage: store,
                            configuration: ENKeyServerConfiguration(
                                region: "US",
                                signers: [ENExportSigner(signingKey: signingKey, keyID: "310", keyVersion: "v1")],
                                exportPeriod: 4 * 3600, exportRoot: "exposureKeyExport-US"),
                            clock: { clock.now }),
                        publish: ENPublishHandler(
                            storage: store,
                            configuration: ENPublishConfiguration(
                                authorizedApps: [
                                    ENPublishAuthorizedApp(
                                        healthAuthorityID: "com.example.app", verifier: ENAcceptAllCertificateVerifier()
                                    )
                                ],
                                revisionTokenKeys: tokenKeys, defaultRegion: "US"),
                            clock: { clock.now }),
                        logger: quiet)
                }
                return try await body(instances)
            }
        }
    }
#endif
