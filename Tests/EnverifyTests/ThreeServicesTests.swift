import ENCore
import ENCrypto
import ENKeyServer
import ENTestSupport
import ENVerificationServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The whole system as processes: `enverify` issues and certifies, the app's `ENVerificationClient` talks to it
/// over HTTP, and a live `enserver --verifier certificate` (closed, its default) accepts the certified keys and
/// refuses others under the same certificate.
@Suite("enverify and enserver: the three services")
struct ThreeServicesTests {
    static var enserver: String { Bundle.main.bundleURL.appendingPathComponent("enserver").path }

    /// The `PREFIX http://HOST:PORT` lines `child` writes to `path`, waiting up to a minute for `count` of them.
    static func listeningURLs(_ path: String, prefix: String, count: Int, _ child: ChildProcess) async throws -> [URL] {
        for _ in 0..<600 {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            let urls = text.split(separator: "\n").compactMap { line -> URL? in
                guard line.hasPrefix(prefix) else { return nil }
                return URL(string: String(line.dropFirst(prefix.count)))
            }
            if urls.count >= count { return urls }
            guard child.isRunning else { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw ENError(.dataInaccessible, "no \(prefix) line in \(path)")
    }

    /// `POST /v1/publish` of `body` to `server`: the status and the JSON object answered.
    static func publish(_ body: String, to server: URL) async throws -> (status: Int, json: [String: Any]) {
        var request = URLRequest(url: server.appendingPathComponent("v1/publish"))
        request.httpMethod = "POST"
        request.httpBody = Data(body.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, jsonObject(data))
    }

    @Test(
        "admin issues a code, the app verifies and certifies it, a live closed enserver accepts the keys",
        .enabled(if: FileManager.default.isExecutableFile(atPath: ThreeServicesTests.enserver)))
    func system() async throws {
        let setup = try EnverifySetup()
        defer { setup.directory.cleanUp() }
        let adminKey = try LiveEnverifyTests.createKey(setup, type: "admin", name: "lab")
        let deviceKey = try LiveEnverifyTests.createKey(setup, type: "device", name: "app")
        let verifyOutput = setup.directory.path("enverify.out")
        let enverify = try ChildProcess(
            LiveEnverifyTests.executable, setup.serveOptions + ["--port", "0", "--admin-port", "0"],
            standardOutput: .file(verifyOutput), standardError: .file(setup.directory.path("enverify.err")))
        // The key server: the health authority's certificate key (the public half of enverify's) as version v7.
        let certificatePublicKey = setup.directory.path("certificate.pub.pem")
        try setup.certificateKey.publicKey.pemRepresentation.write(
            toFile: certificatePublicKey, atomically: true, encoding: .utf8)
        try writeSecret(try P256SigningKey().pemRepresentation, toFile: setup.directory.path("signing.pem"))
        let serverOutput = setup.directory.path("enserver.out")
        let enserver = try ChildProcess(
            Self.enserver,
            [
                "serve", "--database", setup.directory.path("keys.sqlite"), "--region", "US", "--signing-key",
                setup.directory.path("signing.pem"), "--key-id", "310", "--health-authority-id", "com.example.app",
                "--certificate-issuer", "example.gov", "--certificate-audience", "exposure-notifications-server",
                "--certificate-key", "v7=\(certificatePublicKey)", "--ephemeral-revision-tokens", "--export-interval",
                "0", "--port", "0", "--admin-port", "0",
            ], standardOutput: .file(serverOutput), standardError: .file(setup.directory.path("enserver.err")))
        defer {
            for child in [enverify, enserver] where child.isRunning {
                child.send(SIGKILL)
                _ = child.waitForExit()
            }
        }
        let verifyURLs = try await Self.listeningURLs(
            verifyOutput, prefix: "enverify listening on ", count: 2, enverify)
        let serverURL = try #require(
            try await Self.listeningURLs(serverOutput, prefix: "enserver listening on ", count: 1, enserver).first)

        // The health authority issues a code for a positive test today.
        let admin = ENVerificationHTTPTransport(baseURL: verifyURLs[1])
        let issued = try await admin.post(
            .issue, apiKey: adminKey, body: Data(#"{"testType":"confirmed","symptomDate":"\#(todayUTC())"}"#.utf8),
            chaff: false)
        #expect(issued.status == 200)
        let code = try #require(jsonObject(issued.body)["code"] as? String)

        // The app: its last three days' keys, the code verified, a certificate for exactly those keys.
        let today = ENIntervalNumber(date: Date()).rollingStart
        let keys = (1...3).map { TestKeys.fresh(start: today.adding(-144 * $0), transmissionRiskLevel: 3) }
        let sent = keys.map {
            ENPublishExposureKey(
                key: $0.keyData.base64EncodedString(), rollingStartNumber: Int32($0.rollingStartNumber),
                rollingPeriod: Int32($0.rollingPeriod), transmissionRisk: Int($0.transmissionRiskLevel))
        }
        let client = ENVerificationClient(
            apiKey: deviceKey, transport: ENVerificationHTTPTransport(baseURL: verifyURLs[0]))
        let verified = try await client.verify(code: code, accept: [.confirmed])
        let certified = try await client.certificate(token: verified.token, keys: sent)

        // Other keys under the same certificate: Google's 401, nothing stored.
        let others = (1...3).map { TestKeys.fresh(start: today.adding(-144 * $0), transmissionRiskLevel: 3) }
        let forged = try await Self.publish(
            PublishRequestBody(
                keys: others, healthAuthorityID: "com.example.app", verificationPayload: certified.certificate,
                hmacKey: certified.hmacKey
            ).json, to: serverURL)
        #expect(forged.status == 401, "\(forged.json)")
        #expect(forged.json["code"] as? String == "health_authority_verification_certificate_invalid")
        let accepted = try await Self.publish(
            PublishRequestBody(
                keys: keys, healthAuthorityID: "com.example.app", verificationPayload: certified.certificate,
                hmacKey: certified.hmacKey
            ).json, to: serverURL)
        #expect(accepted.status == 200, "\(accepted.json)")
        #expect(accepted.json["insertedExposures"] as? Int == 3, "\(accepted.json)")
    }
}
