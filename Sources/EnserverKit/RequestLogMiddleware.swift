import Hummingbird
import Logging

/// One log line per request, at `info`: the method, the route (a fixed route's path, `/ROOT/FILE` for the files),
/// the status and the duration. Never the client's address, a key, a token or a body.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger
    /// The paths logged as they are; any other is logged as `/ROOT/FILE`.
    let routes: Set<String>

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let started = ContinuousClock.now
        let route = routes.contains(request.uri.path) ? request.uri.path : "/ROOT/FILE"
        do {
            let response = try await next(request, context)
            log(request, route: route, status: Int(response.status.code), since: started)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            log(request, route: route, status: Int(status), since: started)
            throw error
        }
    }

    private func log(_ request: Request, route: String, status: Int, since started: ContinuousClock.Instant) {
        // Tenths of a millisecond, rounded, formatted without Foundation's `String(format:)`.
        let tenths = Int(((ContinuousClock.now - started) / .microseconds(100)).rounded())
        logger.info(
            "request",
            metadata: [
                "method": "\(request.method.rawValue)", "route": "\(route)", "status": "\(status)",
                "ms": "\(tenths / 10).\(tenths % 10)",
            ])
    }
}
