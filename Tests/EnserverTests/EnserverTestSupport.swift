import ArgumentParser
import ENCore
import ENCrypto
import ENExportFormat
import ENKeyServer
import ENTestSupport
import EnserverKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// 2026-05-09 01:00 UTC: an hour into a 4-hour export batch.
let startDate = Date(timeIntervalSince1970: 1_778_288_400)

/// A clock the test moves by hand.
final class ManualClock: Sendable {
    private let current: Locked<Date>
    init(_ date: Date = startDate) { current = Locked(date) }
    var now: Date { current.withLock { $0 } }
    func advance(hours: Double) { current.withLock { $0 = $0.addingTimeInterval(hours * 3600) } }
}

/// A key server with Google's export settings (4-hour batches under `exposureKeyExport-US`), its publish API
/// accepting every request of `com.example.app`, and its HTTP routes, on an in-memory store and a manual clock.
struct ServerUnderTest {
    let clock: ManualClock
    let signingKey: P256SigningKey
    let server: ENKeyServer
    let http: KeyServerHTTP

    init(clock: ManualClock = ManualClock(), databasePath: String? = nil, signingKey: P256SigningKey? = nil) throws {
        self.clock = clock
        let store =
            try databasePath.map { path in try ENKeyServerStore(path: path, clock: { clock.now }) }
            ?? ENKeyServerStore(clock: { clock.now })
        self.signingKey = try signingKey ?? P256SigningKey()
        server = ENKeyServer(
            store: store,
            configuration: ENKeyServerConfiguration(
                region: "US", signers: [ENExportSigner(signingKey: self.signingKey, keyID: "310", keyVersion: "v1")],
                exportPeriod: 4 * 3600, exportRoot: "exposureKeyExport-US"),
            clock: { clock.now })
        let publish = ENPublishHandler(
            storage: store,
            configuration: ENPublishConfiguration(
                authorizedApps: [
                    ENPublishAuthorizedApp(
                        healthAuthorityID: "com.example.app", verifier: ENAcceptAllCertificateVerifier())
                ],
                revisionTokenKeys: try ENRevisionTokenKeys.generate()),
            clock: { clock.now })
        http = KeyServerHTTP(exporter: server.exporter, publish: publish)
    }
}

/// A publish request body with `count` keys (numbered from `first`, at most 14), key `n` of the `n`-th day before
/// the clock's day (Google's server takes at most 3 keys per start interval).
func publishBody(count: Int, first: Int = 1, at date: Date = startDate) -> String {
    let today = Int(ENIntervalNumber(date: date)) / 144 * 144
    let keys = (first..<(first + count)).map { n -> String in
        var data = Data(repeating: 0x5A, count: 16)
        withUnsafeBytes(of: UInt64(n).bigEndian) { data.replaceSubrange(0..<8, with: $0) }
        return """
            {"key": "\(data.base64EncodedString())", "rollingStartNumber": \(today - 144 * (1 + (n - 1) % 14)), \
            "rollingPeriod": 144, "transmissionRisk": 3}
            """
    }
    return """
        {"temporaryExposureKeys": [\(keys.joined(separator: ", "))], "healthAuthorityID": "com.example.app"}
        """
}

/// A JSON object from a response body.
func jsonObject(_ text: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
}

/// What a live server answered.
struct HTTPReply: Sendable {
    var status: Int
    var headers: [String: String]
    var body: Data

    var text: String { String(decoding: body, as: UTF8.self) }

    func header(_ name: String) -> String? {
        headers.first { $0.key.lowercased() == name.lowercased() }?.value
    }
}

/// A client of a server running on loopback, through Foundation's URLSession (libcurl on Linux).
struct LoopbackClient: Sendable {
    let port: Int

    func request(
        _ path: String, method: String = "GET", headers: [String: String] = [:], body: Data? = nil
    ) async throws -> HTTPReply {
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)\(path)")))
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name] = value }
        }
        return HTTPReply(status: http.statusCode, headers: fields, body: data)
    }

    func publish(_ body: String, headers: [String: String] = ["Content-Type": "application/json"]) async throws
        -> HTTPReply
    {
        try await request("/v1/publish", method: "POST", headers: headers, body: Data(body.utf8))
    }
}

extension ServerUnderTest {
    /// Runs the server on a free loopback port for the duration of `body`.
    func live<Value: Sendable>(_ body: @escaping @Sendable (LoopbackClient) async throws -> Value) async throws -> Value
    {
        try await http.withRunningServer { port in try await body(LoopbackClient(port: port)) }
    }
}

/// Runs `enserver ARGUMENTS` in process.
func runEnserver(_ arguments: [String]) async throws {
    let command = try Enserver.parseAsRoot(arguments)
    if var asyncCommand = command as? any AsyncParsableCommand {
        try await asyncCommand.run()
    } else {
        var command = command
        try command.run()
    }
}
