import ArgumentParser
import ENCore
import ENCrypto
import ENExportFormat
import ENHTTPServer
import ENKeyServer
import ENKeyServerSQLite
import ENTestSupport
import EnserverKit
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
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
    let store: ENKeyServerSQLiteStore
    let server: ENDiagnosisKeyServer
    let http: KeyServerHTTP

    init(clock: ManualClock = ManualClock(), databasePath: String? = nil, signingKey: P256SigningKey? = nil) throws {
        self.clock = clock
        let store =
            try databasePath.map { path in try ENKeyServerSQLiteStore(path: path, clock: { clock.now }) }
            ?? ENKeyServerSQLiteStore(clock: { clock.now })
        self.store = store
        self.signingKey = try signingKey ?? P256SigningKey()
        server = ENDiagnosisKeyServer(
            storage: store,
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
                revisionTokenKeys: try ENRevisionTokenKeys.generate(), defaultRegion: "US"),
            clock: { clock.now })
        // The index read on every request: the tests move the clock and export outside the routes.
        http = KeyServerHTTP(
            exporter: server.exporter, publish: publish,
            cache: ExportFileCache(exporter: server.exporter, indexLifetime: .zero))
    }
}

/// A publish request body with `count` keys (numbered from `first`, at most 14), key `n` of the `n`-th day before
/// the clock's day (Google's server takes at most 3 keys per start interval).
func publishBody(count: Int, first: Int = 1, at date: Date = startDate) -> String {
    let today = ENIntervalNumber(date: date).rollingStart
    let keys = (first..<(first + count)).map { n in
        TestKeys.key(n, start: today.adding(-144 * (1 + (n - 1) % 14)), transmissionRiskLevel: 3)
    }
    return PublishRequestBody(keys: keys, healthAuthorityID: "com.example.app").json
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

/// A client of the server's routes: in process through HummingbirdTesting's router (no socket), or over a
/// loopback socket through Foundation's URLSession (libcurl on Linux) for a server that listens.
struct LoopbackClient: Sendable {
    private enum Transport: Sendable {
        case socket(port: Int)
        case router(any TestClientProtocol)
    }

    private let transport: Transport

    /// A client of the server listening on loopback port `port`.
    init(port: Int) { transport = .socket(port: port) }

    /// A client of the routes of HummingbirdTesting's `client`.
    init(_ client: any TestClientProtocol) { transport = .router(client) }

    func request(
        _ path: String, method: String = "GET", headers: [String: String] = [:], body: Data? = nil
    ) async throws -> HTTPReply {
        switch transport {
        case .socket(let port):
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
        case .router(let client):
            var fields = HTTPFields()
            for (name, value) in headers { fields[try #require(HTTPField.Name(name))] = value }
            return try await client.execute(
                uri: path, method: try #require(HTTPRequest.Method(method)), headers: fields,
                body: body.map { ByteBuffer(bytes: $0) }
            ) { response in
                var headers: [String: String] = [:]
                for field in response.headers { headers[field.name.canonicalName] = field.value }
                return HTTPReply(
                    status: Int(response.status.code), headers: headers, body: Data(response.body.readableBytesView))
            }
        }
    }

    func publish(_ body: String, headers: [String: String] = ["Content-Type": "application/json"]) async throws
        -> HTTPReply
    {
        try await request("/v1/publish", method: "POST", headers: headers, body: Data(body.utf8))
    }
}

extension KeyServerHTTP {
    /// Runs `body` with a client of the routes, in process through HummingbirdTesting (no socket: what the
    /// routes answer is the test's subject; `withRunningServer` has its own tests over a socket).
    func withRoutes<Value: Sendable>(
        _ body: @escaping @Sendable (LoopbackClient) async throws -> Value
    ) async throws -> Value {
        try await Application(router: router()).test(.router) { client in try await body(LoopbackClient(client)) }
    }

    /// Runs `body` with a client of the admin routes (`/metrics`, the test clock's), in process.
    func withAdminRoutes<Value: Sendable>(
        _ body: @escaping @Sendable (LoopbackClient) async throws -> Value
    ) async throws -> Value {
        try await Application(router: adminRouter()).test(.router) { client in
            try await body(LoopbackClient(client))
        }
    }
}

extension ServerUnderTest {
    /// Runs `body` with a client of the server's routes, in process.
    func live<Value: Sendable>(_ body: @escaping @Sendable (LoopbackClient) async throws -> Value) async throws -> Value
    {
        try await http.withRoutes(body)
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

/// Runs `enserver ARGUMENTS` in process and records an issue unless it fails with exit status 2 and a message
/// mentioning `text` (bad options name the option): an `EnserverFailure`, or one of ArgumentParser's errors (a
/// missing option), which `enserver` also exits 2 for.
func expectEnserverFailure(_ arguments: [String], mentioning text: String) async {
    do {
        try await runEnserver(arguments)
        Issue.record("enserver \(arguments) should fail")
    } catch let failure as EnserverFailure {
        #expect(failure.exitCode == 2)
        #expect(failure.message.contains(text), "\(failure.message)")
    } catch {
        #expect(Enserver.exitStatus(for: error) == 2, "\(arguments): \(error)")
        #expect(
            "\(error)".contains(text) || Enserver.fullMessage(for: error).contains(text),
            "\(Enserver.fullMessage(for: error))")
    }
}
