import ENCore
package import ENHTTPServer
package import ENKeyServer
import Foundation
import HTTPTypes
package import Hummingbird
import HummingbirdCore
package import Logging
import ServiceLifecycle
package import UnixSignals

/// The key server's HTTP face: Google's publish API, the export files and `index.txt`, the exposure
/// configuration and health on the public router; metrics and the test clock on the admin router, which only the
/// admin listener serves.
///
/// Public routes (``router()``):
/// - `POST /v1/publish`: ``ENPublishHandler`` (Google's publish API v1), behind the chaff middleware; the body
///   is read up to the handler's limit (64,000 bytes) and no further; with a ``PublishRateLimiter``, a client over
///   its limit gets 429 and `Retry-After` before anything else (chaff alike).
/// - `GET /ROOT/index.txt` and `GET /ROOT/NAME.zip`: from an ``ExportFileCache`` over the store (so that every
///   instance serves every file), with `ETag`, `Cache-Control` and `304 Not Modified`; with several export
///   configurations, each under its own root (``additionalCaches``; the longest root a path starts with wins).
/// - `GET /v1/exposure-configuration.json`: the exposure configuration in the sample server's JSON.
/// - `GET /health`: `200 ok` once the store answered the cache's index read.
///
/// Admin routes (``adminRouter()``, on the admin listener only):
/// - `GET /metrics`: Prometheus text; `GET /health`.
/// - With a ``TestClock`` only (`enserver serve --test-clock`): `POST /v1/test/clock` with `{"now": RFC 3339}`
///   moves the clock forward, and `POST /v1/test/export` cuts the batches due at that moment and drops expired
///   keys and files, answering `{"files": [NAME, ...]}`.
package struct KeyServerHTTP: Sendable {
    /// The key server's export side: files, `index.txt`, the exposure configuration, batches to cut.
    package let exporter: ENKeyServerExporter
    /// The publish API.
    package let publish: ENPublishHandler
    /// The server's metrics.
    package let metrics: EnserverMetrics
    /// The chaff profile.
    package let chaff: ChaffTracker
    /// Where requests are logged.
    package let logger: Logger
    /// The clock clients set, when the server runs on one (tests and simulations only).
    package let testClock: TestClock?
    /// What `index.txt`, the files and `/health` are answered from.
    package let cache: ExportFileCache
    /// The caches of the other export configurations on the store (`enserver serve --export-config`), each served
    /// under its configuration's root.
    package let additionalCaches: [ExportFileCache]
    /// The publish rate limit per client, if any.
    package let rateLimiter: PublishRateLimiter?
    /// How the client of a request is told (the socket's peer, or `X-Forwarded-For` from a trusted proxy).
    package let clientAddress: ClientAddress

    package init(
        exporter: ENKeyServerExporter, publish: ENPublishHandler, metrics: EnserverMetrics = EnserverMetrics(),
        chaff: ChaffTracker = ChaffTracker(), logger: Logger = Logger(label: "enserver"), testClock: TestClock? = nil,
        cache: ExportFileCache? = nil, rateLimiter: PublishRateLimiter? = nil,
        clientAddress: ClientAddress = ClientAddress(), additionalCaches: [ExportFileCache] = []
    ) {
        self.cache = cache ?? ExportFileCache(exporter: exporter)
        self.additionalCaches = additionalCaches
        self.exporter = exporter
        self.publish = publish
        self.metrics = metrics
        self.chaff = chaff
        self.logger = logger
        self.testClock = testClock
        self.rateLimiter = rateLimiter
        self.clientAddress = clientAddress
    }

    /// The public listener's router: the publish API, the exposure configuration, health and the files.
    package func router() -> Router<KeyServerRequestContext> {
        let router = Router(context: KeyServerRequestContext.self)
        router.middlewares.add(
            RequestLogMiddleware(
                logger: logger, routes: ["/v1/publish", "/v1/exposure-configuration.json", "/health"]))
        let http = self
        router.post("/v1/publish") { request, context in await http.publishRoute(request, context: context) }
        router.get("/v1/exposure-configuration.json") { _, _ in try await http.configurationRoute() }
        router.get("/health") { _, _ in try await http.healthRoute() }
        router.get("**") { request, _ in try await http.fileRoute(request) }
        return router
    }

    /// The admin listener's router: `/metrics`, health, and with a test clock its routes.
    package func adminRouter() -> Router<KeyServerRequestContext> {
        let router = Router(context: KeyServerRequestContext.self)
        router.middlewares.add(
            RequestLogMiddleware(
                logger: logger, routes: ["/metrics", "/health", "/v1/test/clock", "/v1/test/export"]))
        let http = self
        router.get("/metrics") { _, _ in http.metricsRoute() }
        router.get("/health") { _, _ in try await http.healthRoute() }
        if let clock = testClock {
            router.post("/v1/test/clock") { request, _ in await http.testClockRoute(request, clock: clock) }
            router.post("/v1/test/export") { _, _ in await http.testExportRoute() }
        }
        return router
    }

    /// Serves ``router()`` on `host`:`port` (0: a free port the system picks) with the default limits and no admin
    /// listener, until `body` returns; `body` gets the bound port. See ``withRunningServers(_:shutdownSignals:_:)``.
    package func withRunningServer<Value: Sendable>(
        host: String = "127.0.0.1", port: Int = 0, shutdownSignals: [UnixSignal] = [],
        _ body: @escaping @Sendable (Int) async throws -> Value
    ) async throws -> Value {
        try await withRunningServers(KeyServerListeners(host: host, port: port), shutdownSignals: shutdownSignals) {
            bound in try await body(bound.port)
        }
    }

    /// Serves ``router()`` on the public listener and ``adminRouter()`` on the admin one (when `listeners` has an
    /// admin port), each with `listeners.limits`, until `body` returns, then shuts them down gracefully; `body` gets
    /// the bound ports. With `shutdownSignals` (SIGTERM, SIGINT for a process), a signal ends the servers too and
    /// `body` is cancelled.
    package func withRunningServers<Value: Sendable>(
        _ listeners: KeyServerListeners, shutdownSignals: [UnixSignal] = [],
        _ body: @escaping @Sendable (KeyServerListeners.Bound) async throws -> Value
    ) async throws -> Value {
        var served = [
            HTTPListener(
                host: listeners.host, port: listeners.port, tls: listeners.tls, responder: router().buildResponder())
        ]
        if let adminPort = listeners.adminPort {
            served.append(
                HTTPListener(
                    host: listeners.adminHost, port: adminPort, tls: listeners.tls,
                    responder: adminRouter().buildResponder()))
        }
        return try await HTTPServing.withRunningServers(
            served, limits: listeners.limits, shutdownSignals: shutdownSignals, logger: logger
        ) { ports in
            try await body(KeyServerListeners.Bound(port: ports[0], adminPort: ports.count > 1 ? ports[1] : nil))
        }
    }

    // MARK: Publish

    func publishRoute(_ request: Request, context: KeyServerRequestContext) async -> Response {
        if let rateLimiter {
            let client = clientAddress.client(
                peer: context.peerAddress, forwardedFor: request.headers[values: .xForwardedFor])
            if let wait = rateLimiter.take(client: client) {
                metrics.rateLimited()
                return Self.response(
                    status: 429,
                    headers: ["content-type": "text/plain", "retry-after": String(Int(wait.rounded(.up)))],
                    body: Data("too many requests\n".utf8))
            }
        }
        if let header = request.headers[.xChaff], !header.isEmpty {
            return await chaffResponse()
        }
        let started = ContinuousClock.now
        let body = await BoundedRequestBody.read(request.body, limit: publish.configuration.maximumBodyBytes)
        if let error = body.error { logger.debug("publish: the request body could not be read: \(error)") }
        let reply = await publish.handle(
            contentType: request.headers[.contentType], body: body.bytes, bodyExceedsLimit: body.exceedsLimit)
        let data = reply.body
        let seconds = Self.seconds(since: started)
        chaff.record(bytes: data.count, seconds: seconds)
        metrics.publish(status: reply.status, insertedKeys: reply.response.insertedExposures)
        metrics.latency(route: "publish", seconds: seconds)
        logger.debug(
            "publish",
            metadata: [
                "status": "\(reply.status)", "code": "\(reply.response.code?.rawValue ?? "")",
                "inserted": "\(reply.response.insertedExposures)",
            ])
        return Self.response(status: reply.status, headers: reply.headers, body: data)
    }

    /// Google's chaff answer: after the recent requests' average latency (at most one second), a body of about
    /// their average size holding only `padding`; at once and empty before any real request.
    func chaffResponse() async -> Response {
        metrics.chaff()
        guard let profile = chaff.profile else { return Response(status: .ok) }
        if profile.delay > 0 { try? await Task.sleep(for: .seconds(profile.delay)) }
        // `{"padding":"…"}`: 14 bytes around base64 of n bytes (4 characters per 3 bytes).
        let paddingBytes = max(0, (profile.bytes - 14) * 3 / 4)
        let reply = ENPublishHandler.chaffResponse(paddingByteCount: paddingBytes)
        return Self.response(status: reply.status, headers: reply.headers, body: reply.body)
    }

    // MARK: Files and configuration

    func fileRoute(_ request: Request) async throws -> Response {
        let started = ContinuousClock.now
        defer { metrics.latency(route: "files", seconds: Self.seconds(since: started)) }
        let path = String(request.uri.path.drop(while: { $0 == "/" }))
        // The cache of the longest root the path starts with.
        let matching = ([cache] + additionalCaches).compactMap { cache -> (ExportFileCache, String)? in
            let root = cache.exporter.configuration.exportRoot
            let prefix = root.isEmpty ? "" : root + "/"
            return path.hasPrefix(prefix) ? (cache, prefix) : nil
        }
        guard let (cache, prefix) = matching.max(by: { $0.1.count < $1.1.count }) else { return Self.notFound() }
        let name = String(path.dropFirst(prefix.count))
        if name == "index.txt" {
            let index = try await cache.index()
            return Self.cached(
                index.entry, request: request, contentType: "text/plain", cacheControl: Self.indexCacheControl)
        }
        guard name.hasSuffix(".zip"), !name.contains("/"), let file = try await cache.file(named: name) else {
            return Self.notFound()
        }
        return Self.cached(file, request: request, contentType: "application/zip", cacheControl: Self.fileCacheControl)
    }

    /// Export files never change once written: any cache may keep them for a year.
    static let fileCacheControl = "public, max-age=31536000, immutable"
    /// `index.txt` changes when a batch is cut (every `--export-period`) or dropped: caches ask again after a
    /// minute.
    static let indexCacheControl = "public, max-age=60"

    /// A cached answer: 304 with no body when `If-None-Match` names its entity tag (RFC 9110 §13.1.2: `*`, or a
    /// list compared weakly), otherwise 200 with the prebuilt body; both with `ETag` and `Cache-Control`.
    static func cached(
        _ entry: ExportFileCache.Entry, request: Request, contentType: String, cacheControl: String
    ) -> Response {
        var fields = HTTPFields()
        fields[.eTag] = entry.etag
        fields[.cacheControl] = cacheControl
        let condition = request.headers[values: .ifNoneMatch].joined(separator: ",")
        if !condition.isEmpty, matches(condition, etag: entry.etag) {
            return Response(status: .notModified, headers: fields)
        }
        fields[.contentType] = contentType
        return Response(status: .ok, headers: fields, body: ResponseBody(byteBuffer: entry.body))
    }

    /// Whether an `If-None-Match` value names `etag`: `*`, or a comma-separated list of entity tags compared
    /// weakly (a `W/` prefix ignored on either side).
    static func matches(_ condition: String, etag: String) -> Bool {
        func opaque(_ tag: Substring) -> Substring {
            let trimmed = tag.trimmingCharacters(in: .whitespaces)[...]
            return trimmed.hasPrefix("W/") ? trimmed.dropFirst(2) : trimmed
        }
        let wanted = opaque(etag[...])
        return condition.split(separator: ",").contains { tag in
            let tag = opaque(tag)
            return tag == "*" || tag == wanted
        }
    }

    func configurationRoute() async throws -> Response {
        let json = try exporter.exposureConfigurationJSON()
        return Self.response(status: 200, headers: ["content-type": "application/json"], body: json)
    }

    func healthRoute() async throws -> Response {
        _ = try await cache.index()
        return Self.response(status: 200, headers: ["content-type": "text/plain"], body: Data("ok".utf8))
    }

    func metricsRoute() -> Response {
        Self.response(
            status: 200, headers: ["content-type": "text/plain; version=0.0.4"],
            body: Data(metrics.prometheusText().utf8))
    }

    // MARK: Test clock

    func testClockRoute(_ request: Request, clock: TestClock) async -> Response {
        switch await clock.move(by: request.body) {
        case .refused(let status, let message):
            return Self.plain(status: status, message)
        case .moved(let now):
            // The index depends on the moment (retention): read it again on the new clock.
            cache.invalidate()
            logger.info("test clock", metadata: ["now": "\(now.formatted(.iso8601))"])
            return Self.json(["now": now.formatted(.iso8601)])
        }
    }

    func testExportRoute() async -> Response {
        do throws(ENError) {
            let files = try await exportAll()
            if !files.isEmpty { metrics.exported(files: files.count) }
            _ = try await exportGroup.deleteExpired()
            invalidateCaches()
            return Self.json(["files": files])
        } catch {
            logger.error("test export failed: \(error)")
            return Self.plain(status: 500, error.description)
        }
    }

    // MARK: Several export configurations

    /// Every export configuration served: the main one, then the others.
    package var exportGroup: ENKeyServerExportGroup {
        ENKeyServerExportGroup(checkedExporters: [exporter] + additionalCaches.map(\.exporter))
    }

    /// Cuts every configuration's due batches; the names of the new files (`ENKeyServerExportGroup.publishNames()`).
    func exportAll() async throws(ENError) -> [String] {
        try await exportGroup.publishNames()
    }

    /// Drops every cached index, so that the next request reads them again.
    func invalidateCaches() {
        cache.invalidate()
        for cache in additionalCaches { cache.invalidate() }
    }

    // MARK: Responses

    static func plain(status: Int, _ text: String) -> Response {
        response(status: status, headers: ["content-type": "text/plain"], body: Data((text + "\n").utf8))
    }

    static func json<Value: Encodable>(_ value: Value) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return response(
            status: 200, headers: ["content-type": "application/json"], body: (try? encoder.encode(value)) ?? Data())
    }

    static func response(status: Int, headers: [String: String], body: Data) -> Response {
        var fields = HTTPFields()
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            if let name = HTTPField.Name(name) { fields[name] = value }
        }
        return Response(
            status: HTTPResponse.Status(code: status), headers: fields,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    static func notFound() -> Response {
        response(status: 404, headers: ["content-type": "text/plain"], body: Data("404 page not found\n".utf8))
    }

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        (ContinuousClock.now - start) / .seconds(1)
    }
}

extension HTTPField.Name {
    /// Google's chaff header: a request carrying it, with any non-empty value, is answered as chaff.
    static let xChaff = HTTPField.Name("X-Chaff")!
    /// The addresses a request passed through, appended by each proxy.
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
}
