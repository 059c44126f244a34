import ENCore
import ENExportFormat
import ENKeyServer
import ENTestSupport
import EnserverKit
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("enserver: the HTTP routes")
struct KeyServerHTTPTests {
    let json: HTTPFields = [.contentType: "application/json"]

    @Test("a publish is answered as Google's server answers it, and its keys are stored")
    func publish() async throws {
        let sut = try ServerUnderTest()
        try await Application(router: sut.http.router()).test(.router) { client in
            try await client.execute(
                uri: "/v1/publish", method: .post, headers: json, body: ByteBuffer(string: publishBody(count: 3))
            ) { response in
                #expect(response.status == .ok)
                #expect(response.headers[HTTPField.Name("x-api-version")!] == "v1")
                #expect(response.headers[.contentType] == "application/json")
                let object = try jsonObject(String(buffer: response.body))
                #expect(object["insertedExposures"] as? Int == 3)
                #expect((object["revisionToken"] as? String)?.isEmpty == false)
                // Google's padding: base64 of 1024 to 2047 random bytes.
                let padding = try #require(object["padding"] as? String)
                #expect((1368...2732).contains(padding.count), "\(padding.count)")
                #expect(object["code"] == nil && object["error"] == nil)
            }
        }
        #expect(try await sut.server.store.read(.diagnosisKeysAwaitingExport).count == 3)
    }

    @Test("wrong content type: 415; oversized body: 413; broken JSON: 400; nothing stored")
    func refusals() async throws {
        let sut = try ServerUnderTest()
        try await Application(router: sut.http.router()).test(.router) { client in
            try await client.execute(
                uri: "/v1/publish", method: .post, headers: [.contentType: "text/plain"],
                body: ByteBuffer(string: publishBody(count: 1))
            ) { response in
                #expect(response.status == .unsupportedMediaType)
                #expect(try jsonObject(String(buffer: response.body))["code"] as? String == "bad_request")
                #expect(response.headers[HTTPField.Name("x-api-version")!] == "v1")
            }
            let huge = #"{"padding": ""# + String(repeating: "A", count: 70_000) + #""}"#
            try await client.execute(
                uri: "/v1/publish", method: .post, headers: json, body: ByteBuffer(string: huge)
            ) { response in
                #expect(response.status == .contentTooLarge)
                #expect(try jsonObject(String(buffer: response.body))["code"] as? String == "bad_request")
            }
            try await client.execute(
                uri: "/v1/publish", method: .post, headers: json, body: ByteBuffer(string: #"{"temporaryExposureKeys": ["#)
            ) { response in
                #expect(response.status == .badRequest)
            }
            try await client.execute(
                uri: "/v1/publish", method: .post, headers: json,
                body: ByteBuffer(string: publishBody(count: 1).replacingOccurrences(of: "com.example.app", with: "x"))
            ) { response in
                #expect(response.status == .unauthorized)
                #expect(
                    try jsonObject(String(buffer: response.body))["code"] as? String == "unknown_health_authority_id")
            }
        }
        #expect(try await sut.server.store.read(.diagnosisKeysAwaitingExport).isEmpty)
    }

    @Test("X-Chaff: answered without reading the body, nothing stored; shaped like the real answers once there are some")
    func chaff() async throws {
        let sut = try ServerUnderTest()
        var chaffHeaders = json
        chaffHeaders[HTTPField.Name("X-Chaff")!] = "1"
        try await Application(router: sut.http.router()).test(.router) { client in
            // Before any real request: 200 and an empty body.
            try await client.execute(
                uri: "/v1/publish", method: .post, headers: chaffHeaders, body: ByteBuffer(string: publishBody(count: 2))
            ) { response in
                #expect(response.status == .ok)
                #expect(response.body.readableBytes == 0)
            }
            var realSize = 0
            try await client.execute(
                uri: "/v1/publish", method: .post, headers: json, body: ByteBuffer(string: publishBody(count: 1, first: 9))
            ) { response in
                realSize = response.body.readableBytes
            }
            try await client.execute(
                uri: "/v1/publish", method: .post, headers: chaffHeaders, body: ByteBuffer(string: "not even JSON")
            ) { response in
                #expect(response.status == .ok)
                let object = try jsonObject(String(buffer: response.body))
                #expect(Array(object.keys) == ["padding"])
                #expect(response.headers[HTTPField.Name("x-api-version")!] == nil)
                // Sized like the real answer (within the base64 rounding).
                #expect(abs(response.body.readableBytes - realSize) <= 4, "\(response.body.readableBytes) vs \(realSize)")
            }
        }
        // Only the real request's key is stored: the chaff bodies were never read.
        #expect(try await sut.server.store.read(.diagnosisKeysAwaitingExport).count == 1)
    }

    @Test("exported files and index.txt are served by path, as a CDN would serve them")
    func files() async throws {
        let sut = try ServerUnderTest()
        let app = Application(router: sut.http.router())
        try await app.test(.router) { client in
            try await client.execute(
                uri: "/v1/publish", method: .post, headers: json, body: ByteBuffer(string: publishBody(count: 5))
            ) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/exposureKeyExport-US/index.txt", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.body.readableBytes == 0)
            }
        }
        // The batch 00:00-04:00 is cut two hours after it ends.
        sut.clock.advance(hours: 5)
        let files = try await sut.server.publish()
        #expect(files.count == 1)
        let index = try await sut.server.indexText()
        #expect(index.hasPrefix("exposureKeyExport-US/"))
        try await app.test(.router) { client in
            try await client.execute(uri: "/exposureKeyExport-US/index.txt", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/plain")
                #expect(String(buffer: response.body) == index)
            }
            for line in index.split(separator: "\n") {
                try await client.execute(uri: "/" + line, method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType] == "application/zip")
                    let served = Data(response.body.readableBytesView)
                    let stored = try #require(try await sut.server.file(named: files[0].name))
                    #expect(served == stored.data)
                    // The file verifies with the server's public key.
                    let verifier = ENExportVerifier(trustedKeys: [
                        ENExportVerificationKey(keyID: "310", keyVersion: "v1", publicKey: sut.signingKey.publicKey)
                    ])
                    #expect(try verifier.verify(try ENExportArchive(data: served)).isVerified)
                }
            }
            for missing in [
                "/exposureKeyExport-US/nothing.zip", "/exposureKeyExport-US/../index.txt", "/index.txt",
                "/exposureKeyExport-US/a/b.zip",
            ] {
                try await client.execute(uri: missing, method: .get) { response in
                    #expect(response.status == .notFound, "\(missing)")
                }
            }
        }
    }

    @Test("the exposure configuration, health and Prometheus metrics")
    func serviceRoutes() async throws {
        let sut = try ServerUnderTest()
        try await Application(router: sut.http.router()).test(.router) { client in
            try await client.execute(uri: "/v1/exposure-configuration.json", method: .get) { response in
                #expect(response.status == .ok)
                let configuration = try JSONDecoder().decode(
                    ENExposureConfiguration.self, from: Data(String(buffer: response.body).utf8))
                #expect(configuration == sut.server.configuration.exposureConfiguration)
            }
            try await client.execute(uri: "/health", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == "ok")
            }
            try await client.execute(
                uri: "/v1/publish", method: .post, headers: json, body: ByteBuffer(string: publishBody(count: 2)))
            try await client.execute(uri: "/metrics", method: .get) { response in
                let text = String(buffer: response.body)
                #expect(text.contains(#"enserver_publish_requests_total{status="200"} 1"#), "\(text)")
                #expect(text.contains("enserver_keys_published_total 2"), "\(text)")
                #expect(text.contains("enserver_request_duration_seconds"), "\(text)")
            }
        }
    }

    @Test("a live server on loopback answers a publish over a real socket")
    func live() async throws {
        let sut = try ServerUnderTest()
        try await Application(router: sut.http.router()).test(.live) { client in
            try await client.execute(
                uri: "/v1/publish", method: .post, headers: json, body: ByteBuffer(string: publishBody(count: 4))
            ) { response in
                #expect(response.status == .ok)
                #expect(try jsonObject(String(buffer: response.body))["insertedExposures"] as? Int == 4)
            }
        }
    }
}
