import ENCore
import ENCrypto
import ENHTTPServer
import ENKeyServer
import ENTestSupport
import ENVerificationServer
import EnverifyKit
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// `enverify`'s two listeners in process (HummingbirdTesting's router client): the routes each serves, Google's
/// answers through them, the body cap, and mux's 404 and 405.
@Suite("enverify HTTP")
struct VerificationHTTPTests {
    struct Fixture {
        let service: ENVerificationService
        let certificateKey: P256SigningKey
        let adminKey: String
        let deviceKey: String

        init() async throws {
            certificateKey = try P256SigningKey()
            var configuration = ENVerificationConfiguration()
            configuration.certificateIssuer = "example.gov"
            configuration.certificateKeyID = "v7"
            service = try ENVerificationService(
                configuration: configuration,
                secrets: try ENVerificationSecrets(masterKey: Data(repeating: 9, count: 32)),
                tokenKey: try P256SigningKey(), certificateKey: certificateKey, storage: try ENVerificationSQLiteStore()
            )
            adminKey = try await service.createAPIKey(name: "lab", type: .admin)
            deviceKey = try await service.createAPIKey(name: "app", type: .device)
        }

        var verifier: ENVerificationCertificateVerifier {
            get throws {
                try keyServerVerifier(
                    issuer: "example.gov", audience: "exposure-notifications-server", keyID: "v7", key: certificateKey)
            }
        }
    }

    /// Posts `body` to `path` on `client`, with `key` when not `nil`.
    static func post(
        _ client: some TestClientProtocol, _ path: String, _ body: String, key: String?, chaff: Bool = false,
        method: HTTPRequest.Method = .post
    ) async throws -> (status: Int, json: [String: Any], body: Data, contentType: String?) {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let key { headers[.apiKey] = key }
        if chaff { headers[.chaff] = "1" }
        return try await client.execute(uri: path, method: method, headers: headers, body: ByteBuffer(string: body)) {
            response in
            let data = Data(response.body.readableBytesView)
            return (response.status.code, jsonObject(data), data, response.headers[.contentType])
        }
    }

    @Test("issue on the admin listener, verify and certificate on the device listener; the key server accepts")
    func flow() async throws {
        let fixture = try await Fixture()
        let admin = VerificationHTTP(service: fixture.service, api: .admin).application()
        let device = VerificationHTTP(service: fixture.service, api: .device).application()
        let keys = AppKeys()
        let code = try await admin.test(.router) { client in
            let issued = try await Self.post(
                client, "/api/issue", #"{"testType":"confirmed","symptomDate":"\#(todayUTC())"}"#,
                key: fixture.adminKey)
            #expect(issued.status == 200)
            #expect(issued.contentType == "application/json")
            return try #require(issued.json["code"] as? String)
        }
        try await device.test(.router) { client in
            let verified = try await Self.post(
                client, "/api/verify", #"{"code":"\#(code)","accept":["confirmed"]}"#, key: fixture.deviceKey)
            #expect(verified.status == 200)
            let token = try #require(verified.json["token"] as? String)
            let certified = try await Self.post(
                client, "/api/certificate", #"{"token":"\#(token)","ekeyhmac":"\#(keys.hmac)"}"#,
                key: fixture.deviceKey)
            #expect(certified.status == 200)
            let certificate = try #require(certified.json["certificate"] as? String)
            let claims = try await fixture.verifier.verify(keys.request(certificate: certificate), at: Date())
            #expect(claims?.reportType == .confirmedTest)

            let again = try await Self.post(client, "/api/verify", #"{"code":"\#(code)"}"#, key: fixture.deviceKey)
            #expect(again.status == 400)
            #expect(again.json["errorCode"] as? String == "code_invalid")
            let twice = try await Self.post(
                client, "/api/certificate", #"{"token":"\#(token)","ekeyhmac":"\#(keys.hmac)"}"#,
                key: fixture.deviceKey)
            #expect(twice.status == 400)
            #expect(twice.json["errorCode"] as? String == "token_expired")
        }
    }

    @Test("a wrong, missing or device key on the admin API, and an admin key on the device API: Google's 401")
    func apiKeys() async throws {
        let fixture = try await Fixture()
        let admin = VerificationHTTP(service: fixture.service, api: .admin).application()
        let device = VerificationHTTP(service: fixture.service, api: .device).application()
        let issue = #"{"testType":"confirmed","symptomDate":"\#(todayUTC())"}"#
        try await admin.test(.router) { client in
            for key in [nil, "", "nonsense", fixture.deviceKey, fixture.adminKey + "x"] as [String?] {
                let answer = try await Self.post(client, "/api/issue", issue, key: key)
                #expect(answer.status == 401, "key \(key ?? "none")")
                #expect(answer.json["error"] as? String == "unauthorized")
            }
        }
        try await device.test(.router) { client in
            let answer = try await Self.post(client, "/api/verify", #"{"code":"12345678"}"#, key: fixture.adminKey)
            #expect(answer.status == 401)
            #expect(answer.json["error"] as? String == "unauthorized")
            // Chaff is answered only after the key is checked.
            let chaff = try await Self.post(client, "/api/verify", "{}", key: fixture.deviceKey, chaff: true)
            #expect(chaff.status == 200)
            #expect(Set(chaff.json.keys) == ["padding"])
            let strangerChaff = try await Self.post(client, "/api/verify", "{}", key: "nonsense", chaff: true)
            #expect(strangerChaff.status == 401)
        }
    }

    @Test("each listener serves only its API: other paths 404 as Go's http.NotFound, other methods 405")
    func routing() async throws {
        let fixture = try await Fixture()
        let device = VerificationHTTP(service: fixture.service, api: .device).application()
        let admin = VerificationHTTP(service: fixture.service, api: .admin).application()
        try await device.test(.router) { client in
            for path in ["/api/issue", "/api/verify/", "/", "/api/expirecode"] {
                let answer = try await Self.post(client, path, "{}", key: fixture.adminKey)
                #expect(answer.status == 404, "\(path)")
                #expect(String(decoding: answer.body, as: UTF8.self) == "404 page not found\n")
                #expect(answer.contentType == "text/plain; charset=utf-8")
            }
            let get = try await Self.post(client, "/api/verify", "", key: fixture.deviceKey, method: .get)
            #expect(get.status == 405)
            #expect(get.body.isEmpty)
        }
        try await admin.test(.router) { client in
            let answer = try await Self.post(client, "/api/verify", "{}", key: fixture.deviceKey)
            #expect(answer.status == 404)
            let put = try await Self.post(client, "/api/issue", "{}", key: fixture.adminKey, method: .put)
            #expect(put.status == 405)
        }
    }

    @Test("a body over 64,000 bytes is refused as Google's BindJSON refuses it")
    func bodyCap() async throws {
        let fixture = try await Fixture()
        let device = VerificationHTTP(service: fixture.service, api: .device).application()
        let padding = String(repeating: "a", count: 64_000)
        try await device.test(.router) { client in
            let answer = try await Self.post(
                client, "/api/verify", #"{"code":"12345678","padding":"\#(padding)"}"#, key: fixture.deviceKey)
            let direct = await fixture.service.respond(
                to: .verify, apiKey: fixture.deviceKey, contentType: "application/json", body: Data(),
                bodyExceedsLimit: true)
            #expect(answer.status == 400)
            #expect(answer.status == direct.status)
            #expect(answer.body == direct.body)
        }
    }
}

/// Chaff on the device listener waits as long as real requests take (go-chaff's tracker, at most a second).
@Suite("enverify HTTP: chaff timing")
struct VerificationChaffTimingTests {
    @Test("a real device request is recorded; a chaff answer waits the recorded latency; 401 for a bad key")
    func chaffWaits() async throws {
        let fixture = try await VerificationHTTPTests.Fixture()
        let tracker = ChaffTracker()
        let device = VerificationHTTP(service: fixture.service, api: .device, chaff: tracker).application()
        try await device.test(.router) { client in
            let real = try await VerificationHTTPTests.post(
                client, "/api/verify", #"{"code":"00000000"}"#, key: fixture.deviceKey)
            #expect(real.status == 400)
            #expect(tracker.profile != nil, "the real request was not recorded")
            // A profile of slow real requests: chaff must not answer sooner than they did.
            for _ in 0..<200 { tracker.record(bytes: 1500, seconds: 0.5) }
            let started = ContinuousClock.now
            let chaff = try await VerificationHTTPTests.post(
                client, "/api/verify", #"{"code":"00000000"}"#, key: fixture.deviceKey, chaff: true)
            let waited = ContinuousClock.now - started
            #expect(chaff.status == 200 && chaff.json.keys.sorted() == ["padding"], "\(chaff.json)")
            #expect(waited >= .milliseconds(450), "chaff answered after \(waited)")
            let unauthorized = try await VerificationHTTPTests.post(
                client, "/api/verify", #"{"code":"00000000"}"#, key: "nonsense", chaff: true)
            #expect(unauthorized.status == 401)
        }
    }
}
