import ENCore
import ENCrypto
import ENExportFormat
import ENKeyServer
import ENKeyServerSQLite
import ENTestSupport
import EnserverKit
import Foundation
import Testing

/// The routes, in process through HummingbirdTesting's router; the last test runs them over a loopback socket.
@Suite("enserver: the HTTP routes")
struct KeyServerHTTPTests {
    @Test("a publish is answered as Google's server answers it, and its keys are stored")
    func publish() async throws {
        let sut = try ServerUnderTest()
        let reply = try await sut.live { client in try await client.publish(publishBody(count: 3)) }
        #expect(reply.status == 200)
        #expect(reply.header("x-api-version") == "v1")
        #expect(reply.header("content-type") == "application/json")
        let object = try jsonObject(reply.text)
        #expect(object["insertedExposures"] as? Int == 3)
        #expect((object["revisionToken"] as? String)?.isEmpty == false)
        // Google's padding: base64 of 1024 to 2047 random bytes.
        let padding = try #require(object["padding"] as? String)
        #expect((1368...2732).contains(padding.count), "\(padding.count)")
        #expect(object["code"] == nil && object["error"] == nil)
        #expect(try await sut.store.diagnosisKeysAwaitingExport().count == 3)
    }

    @Test("wrong content type: 415; oversized body: 413; broken JSON: 400; unknown app: 401; nothing stored")
    func refusals() async throws {
        let sut = try ServerUnderTest()
        let replies = try await sut.live { client in
            [
                try await client.publish(publishBody(count: 1), headers: ["Content-Type": "text/plain"]),
                try await client.publish(#"{"padding": ""# + String(repeating: "A", count: 70_000) + #""}"#),
                try await client.publish(#"{"temporaryExposureKeys": ["#),
                try await client.publish(publishBody(count: 1).replacingOccurrences(of: "com.example.app", with: "x")),
            ]
        }
        #expect(replies.map(\.status) == [415, 413, 400, 401])
        let codes = try replies.map { try jsonObject($0.text)["code"] as? String }
        #expect(codes == ["bad_request", "bad_request", "bad_request", "unknown_health_authority_id"])
        #expect(replies.allSatisfy { $0.header("x-api-version") == "v1" })
        #expect(try await sut.store.diagnosisKeysAwaitingExport().isEmpty)
    }

    @Test(
        "X-Chaff: answered without reading the body, nothing stored; shaped like the real answers once there are some")
    func chaff() async throws {
        let sut = try ServerUnderTest()
        let chaff = ["Content-Type": "application/json", "X-Chaff": "1"]
        let (first, real, later) = try await sut.live { client in
            // Before any real request: 200 and an empty body, even for a valid publish.
            let first = try await client.publish(publishBody(count: 2), headers: chaff)
            let real = try await client.publish(publishBody(count: 1, first: 9))
            let later = try await client.publish("not even JSON", headers: chaff)
            return (first, real, later)
        }
        #expect(first.status == 200 && first.body.isEmpty)
        #expect(later.status == 200)
        #expect(Array(try jsonObject(later.text).keys) == ["padding"])
        #expect(later.header("x-api-version") == nil)
        // Sized like the real answer, within base64's rounding and the real padding's own variation.
        #expect(abs(later.body.count - real.body.count) <= 4, "\(later.body.count) vs \(real.body.count)")
        // Only the real request's key is stored: the chaff bodies were never read.
        #expect(try await sut.store.diagnosisKeysAwaitingExport().count == 1)
    }

    @Test("exported files and index.txt are served by path, as a CDN would serve them; they verify")
    func files() async throws {
        let sut = try ServerUnderTest()
        let before = try await sut.live { client in
            _ = try await client.publish(publishBody(count: 5))
            return try await client.request("/exposureKeyExport-US/index.txt")
        }
        #expect(before.status == 200 && before.body.isEmpty)
        // The batch 00:00-04:00 is cut two hours after it ends.
        sut.clock.advance(hours: 5)
        let files = try await sut.server.publish()
        #expect(files.count == 1)
        let index = try await sut.server.indexText()
        let lines = index.split(separator: "\n").map(String.init)
        #expect(lines.count == 1 && lines[0].hasPrefix("exposureKeyExport-US/") && lines[0].hasSuffix(".zip"))
        let missingPaths = [
            "/exposureKeyExport-US/nothing.zip", "/exposureKeyExport-US/../index.txt", "/index.txt",
            "/exposureKeyExport-US/a/b.zip", "/v1/publish",
        ]
        let (served, zips, missing) = try await sut.live { client in
            let served = try await client.request("/exposureKeyExport-US/index.txt")
            var zips: [HTTPReply] = []
            for line in lines { zips.append(try await client.request("/" + line)) }
            var missing: [Int] = []
            for path in missingPaths { missing.append(try await client.request(path).status) }
            return (served, zips, missing)
        }
        #expect(served.status == 200 && served.text == index && served.header("content-type") == "text/plain")
        let verifier = ENExportVerifier(trustedKeys: [
            ENExportVerificationKey(keyID: "310", keyVersion: "v1", publicKey: try sut.signingKey.publicKey)
        ])
        for zip in zips {
            #expect(zip.status == 200 && zip.header("content-type") == "application/zip")
            #expect(zip.body == files[0].data)
            let archive = try ENExportArchive(data: zip.body)
            #expect(try verifier.verify(archive).isVerified)
            #expect(try archive.keyExport().region == "US")
        }
        #expect(missing == [404, 404, 404, 404, 404], "\(missing)")
    }

    @Test("the exposure configuration, health and Prometheus metrics")
    func serviceRoutes() async throws {
        let sut = try ServerUnderTest()
        let (configuration, health, publicMetrics) = try await sut.live { client in
            let configuration = try await client.request("/v1/exposure-configuration.json")
            let health = try await client.request("/health")
            _ = try await client.publish(publishBody(count: 2))
            _ = try await client.publish(publishBody(count: 1, first: 7), headers: ["Content-Type": "text/plain"])
            return (configuration, health, try await client.request("/metrics"))
        }
        // Metrics are on the admin routes only: the public router serves no such file.
        #expect(publicMetrics.status == 404)
        let metrics = try await sut.http.withAdminRoutes { client in try await client.request("/metrics") }
        #expect(configuration.status == 200)
        let decoded = try JSONDecoder().decode(ENExposureConfiguration.self, from: configuration.body)
        #expect(decoded == sut.server.configuration.exposureConfiguration)
        #expect(health.status == 200 && health.text == "ok")
        #expect(metrics.text.contains(#"enserver_publish_requests_total{status="200"} 1"#), "\(metrics.text)")
        #expect(metrics.text.contains(#"enserver_publish_requests_total{status="415"} 1"#), "\(metrics.text)")
        #expect(metrics.text.contains("enserver_keys_published_total 2"), "\(metrics.text)")
        #expect(
            metrics.text.contains(#"enserver_request_duration_seconds_count{route="publish"} 2"#), "\(metrics.text)")
    }

    @Test("two instances on one store file: a key published through one is served by the other once exported")
    func twoInstances() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let clock = ManualClock()
        let path = directory.path("keys.sqlite")
        let first = try ServerUnderTest(clock: clock, databasePath: path)
        let second = try ServerUnderTest(clock: clock, databasePath: path, signingKey: first.signingKey)
        let reply = try await first.live { client in try await client.publish(publishBody(count: 4)) }
        #expect(reply.status == 200)
        clock.advance(hours: 5)
        // Both export at once: the lease gives the batch to one of them.
        async let fromFirst = first.server.publish()
        async let fromSecond = second.server.publish()
        let exported = try await fromFirst.count + fromSecond.count
        #expect(exported == 1)
        // Over a loopback socket: the server listens and answers as the routes do.
        let index = try await second.http.withRunningServer { port in
            try await LoopbackClient(port: port).request("/exposureKeyExport-US/index.txt")
        }
        #expect(index.status == 200 && index.text.split(separator: "\n").count == 1)
    }
}
