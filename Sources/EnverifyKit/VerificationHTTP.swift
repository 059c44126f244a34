import ENCore
package import ENHTTPServer
package import ENVerificationServer
import Foundation
import HTTPTypes
package import Hummingbird
package import Logging
package import UnixSignals

/// One of `enverify`'s listeners: the device API or the admin API of an ``ENVerificationService`` over HTTP, routed
/// as Google's servers route (gorilla/mux, one server per API).
///
/// - `POST` to a route of the API: the body read up to 64,000 bytes
///   (``ENVerificationRequestDecoder/maximumBodyByteCount``) and no further, then
///   ``ENVerificationService/respond(to:apiKey:contentType:body:bodyExceedsLimit:chaff:)`` with `X-API-Key`,
///   `Content-Type` and `X-Chaff`; its status and bytes are the answer (`Content-Type: application/json`).
/// - A device-API request answered as chaff waits as long as the listener's recent real device-API requests took
///   on average, at most one second (``ChaffTracker``, go-chaff's tracker, as Google's `ChaffMaxLatencyMs`).
/// - Another method on a route of the API: 405 with an empty body (mux's `ErrMethodMismatch`).
/// - Any other path (the other API's routes too): 404 `404 page not found` (Go's `http.NotFound`).
/// - With a ``TestClock`` only (`enverify serve --test-clock`, admin listener only): `POST /api/test/clock` with
///   `{"now": RFC 3339}` moves the service's clock forward (this server's addition, for simulations).
package struct VerificationHTTP: Sendable {
    /// Which of Google's two servers a listener is.
    package enum API: String, Sendable {
        /// `apiserver`: `/api/verify` and `/api/certificate`.
        case device
        /// `adminapi`: `/api/issue`, `/api/batch-issue`, `/api/checkcodestatus`, `/api/expirecode`.
        case admin

        /// The routes this API serves.
        package var endpoints: [ENVerificationEndpoint] {
            ENVerificationEndpoint.allCases.filter { $0.apiKeyType == (self == .device ? .device : .admin) }
        }
    }

    /// The service requests go to.
    package let service: ENVerificationService
    /// Which API this listener serves.
    package let api: API
    /// Where requests are logged.
    package let logger: Logger
    /// The latency of recent real requests to the routes that answer chaff, which chaff answers wait for.
    package let chaff: ChaffTracker
    /// The clock the service runs on when a client sets it (`--test-clock`), moved by `POST /api/test/clock`.
    package let testClock: TestClock?

    /// The route that moves a ``TestClock``.
    package static let testClockPath = "/api/test/clock"

    /// Creates a listener's routes.
    package init(
        service: ENVerificationService, api: API, logger: Logger = Logger(label: "enverify"),
        chaff: ChaffTracker = ChaffTracker(), testClock: TestClock? = nil
    ) {
        self.service = service
        self.api = api
        self.logger = logger
        self.chaff = chaff
        self.testClock = api == .admin ? testClock : nil
    }

    /// The responder with this API's routes.
    package func responder() -> CallbackResponder<BasicRequestContext> {
        let http = self
        let routes = Dictionary(uniqueKeysWithValues: api.endpoints.map { ($0.path, $0) })
        return CallbackResponder { request, _ in
            if let clock = http.testClock, request.uri.path == Self.testClockPath {
                guard request.method == .post else { return Response(status: .methodNotAllowed) }
                return await http.testClockRoute(request, clock: clock)
            }
            guard let endpoint = routes[request.uri.path] else { return Self.notFound() }
            guard request.method == .post else { return Response(status: .methodNotAllowed) }
            return await http.route(endpoint, request)
        }
    }

    /// An application serving ``responder()`` on `host`:`port`, calling `onServerRunning` with the bound port.
    package func application(
        host: String = "127.0.0.1", port: Int = 0, onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        Application(
            responder: responder(), configuration: ApplicationConfiguration(address: .hostname(host, port: port)),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? port) },
            logger: logger)
    }

    /// Serves `device` and `admin` on their listeners, with `limits` and, when given, HTTPS on both (the admin API
    /// carries admin API keys), until `body` returns, then shuts both down gracefully; `body` gets the bound ports
    /// (device, admin). With `shutdownSignals` (SIGTERM, SIGINT for a process), a signal ends the servers too and
    /// `body` is cancelled.
    package static func withRunningServers<Value: Sendable>(
        device: (http: VerificationHTTP, host: String, port: Int),
        admin: (http: VerificationHTTP, host: String, port: Int),
        limits: HTTPLimits = HTTPLimits(), tls: ServerTLS? = nil, shutdownSignals: [UnixSignal] = [],
        logger: Logger = Logger(label: "enverify"),
        _ body: @escaping @Sendable (_ device: Int, _ admin: Int) async throws -> Value
    ) async throws -> Value {
        let listeners = [
            HTTPListener(host: device.host, port: device.port, tls: tls, responder: device.http.responder()),
            HTTPListener(host: admin.host, port: admin.port, tls: tls, responder: admin.http.responder()),
        ]
        return try await HTTPServing.withRunningServers(
            listeners, limits: limits, shutdownSignals: shutdownSignals, logger: logger
        ) { ports in try await body(ports[0], ports[1]) }
    }

    /// Reads the body up to the limit and hands the request to the service.
    func route(_ endpoint: ENVerificationEndpoint, _ request: Request) async -> Response {
        let started = ContinuousClock.now
        let body = await BoundedRequestBody.read(
            request.body, limit: ENVerificationRequestDecoder.maximumBodyByteCount)
        if let error = body.error { logger.info("\(endpoint.path): the request body could not be read: \(error)") }
        let chaff = !(request.headers[.xChaff] ?? "").isEmpty
        let answer = await service.respond(
            to: endpoint, apiKey: request.headers[.xAPIKey], contentType: request.headers[.contentType],
            body: body.bytes, bodyExceedsLimit: body.exceedsLimit, chaff: chaff)
        if chaff && endpoint.answersChaff && answer.status == 200 {
            // Answered as chaff: as late as a real request takes on average (at most 1 s), as go-chaff answers.
            if let delay = self.chaff.profile?.delay, delay > 0 { try? await Task.sleep(for: .seconds(delay)) }
        } else if endpoint.answersChaff {
            let elapsed = ContinuousClock.now - started
            self.chaff.record(
                bytes: answer.body.count,
                seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
        }
        logger.info("\(endpoint.path)", metadata: ["status": "\(answer.status)", "chaff": "\(chaff)"])
        var headers = HTTPFields()
        headers[.contentType] = ENVerificationHTTPResponse.contentType
        return Response(
            status: HTTPResponse.Status(code: answer.status), headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
    }

    /// Moves the test clock: 200 `{"now": RFC 3339}`, or the refusal's status with a plain-text reason.
    func testClockRoute(_ request: Request, clock: TestClock) async -> Response {
        var headers = HTTPFields()
        switch await clock.move(by: request.body) {
        case .refused(let status, let message):
            headers[.contentType] = "text/plain; charset=utf-8"
            return Response(
                status: HTTPResponse.Status(code: status), headers: headers,
                body: ResponseBody(byteBuffer: ByteBuffer(string: message + "\n")))
        case .moved(let now):
            let moment = now.formatted(.iso8601)
            logger.info("test clock", metadata: ["now": "\(moment)"])
            headers[.contentType] = ENVerificationHTTPResponse.contentType
            return Response(
                status: .ok, headers: headers,
                body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"now":"\#(moment)"}"# + "\n")))
        }
    }

    /// Go's `http.NotFound`.
    static func notFound() -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        headers[.goContentTypeOptions] = "nosniff"
        return Response(
            status: .notFound, headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(string: "404 page not found\n")))
    }
}

extension HTTPField.Name {
    /// `X-API-Key`: the API key of Google's verification API.
    static let xAPIKey = HTTPField.Name("X-API-Key")!
    /// `X-Chaff`: a chaff request.
    static let xChaff = HTTPField.Name("X-Chaff")!
    /// `X-Content-Type-Options`, which Go's `http.Error` sets.
    static let goContentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
}
