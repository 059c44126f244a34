import ENCore
import ENHTTPServer
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// A static file server on loopback for the mirror's tests: answers `GET /PATH` with the bytes the test put at
/// `PATH` (404 otherwise), each file after `delay` (so that a test can kill a mirror in the middle of a run).
final class StaticFileServer: Sendable {
    private let files = Locked([String: Data]())
    private let delay: Duration

    init(delay: Duration = .zero) { self.delay = delay }

    /// Serves `data` at `/path`; `nil` stops serving it.
    func set(_ path: String, _ data: Data?) { files.withLock { $0[path] = data } }

    /// What is served, by path.
    var contents: [String: Data] { files.withLock { $0 } }

    /// Serves on a free loopback port until `body` returns; `body` gets the base URL.
    func withRunning<Value: Sendable>(_ body: @escaping @Sendable (URL) async throws -> Value) async throws -> Value {
        let router = Router(context: BasicRequestContext.self)
        router.get("**") { [self] request, _ -> Response in
            let path = String(request.uri.path.drop(while: { $0 == "/" }))
            guard let data = files.withLock({ $0[path] }) else { return Response(status: .notFound) }
            if delay > .zero && path.hasSuffix(".zip") { try await Task.sleep(for: delay) }
            return Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
        }
        let listener = HTTPListener(host: "127.0.0.1", port: 0, responder: router.buildResponder())
        return try await HTTPServing.withRunningServers([listener], logger: Logger(label: "static")) { ports in
            try await body(URL(string: "http://127.0.0.1:\(ports[0])")!)
        }
    }
}
