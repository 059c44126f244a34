internal import ENCore
public import Foundation

#if canImport(FoundationNetworking)
    internal import FoundationNetworking
#endif

/// An ``ENVerificationTransport`` to a live verification server (`enverify`, or Google's): each post is one HTTP
/// `POST` of `baseURL` + the route with `Content-Type: application/json`, `Accept: application/json`,
/// `X-API-Key` and, for chaff, `X-Chaff: 1`; the answer's status and body come back whatever the status. The
/// body is read up to ``maximumResponseBytes`` and the transfer stopped there.
///
/// ```swift
/// let transport = ENVerificationHTTPTransport(baseURL: URL(string: "https://verify.example.org")!)
/// let client = ENVerificationClient(apiKey: deviceKey, transport: transport)
/// ```
public struct ENVerificationHTTPTransport: ENVerificationTransport {
    /// The server's address; a route's path (`/api/verify`) is appended.
    public var baseURL: URL
    /// The most bytes of a response body read (64 KiB: Google's answers are far smaller).
    public var maximumResponseBytes: Int
    /// How long a request may take, in seconds.
    public var timeout: TimeInterval

    /// Creates a transport to `baseURL`.
    public init(baseURL: URL, maximumResponseBytes: Int = 64 << 10, timeout: TimeInterval = 30) {
        self.baseURL = baseURL
        self.maximumResponseBytes = maximumResponseBytes
        self.timeout = timeout
    }

    /// Posts `body` to `endpoint` with `apiKey`.
    ///
    /// - Throws: `ENError.Code.dataInaccessible` when the server cannot be reached or the exchange fails;
    ///   `ENError.Code.badFormat` for a response body over ``maximumResponseBytes``.
    public func post(_ endpoint: ENVerificationEndpoint, apiKey: String, body: Data, chaff: Bool) async throws
        -> ENVerificationHTTPResponse
    {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        guard let url = URL(string: base + endpoint.path) else {
            throw ENError(.badParameter, "not a URL: \(base + endpoint.path)")
        }
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue(apiKey, forHTTPHeaderField: "X-API-Key")
        if chaff { request.setValue("1", forHTTPHeaderField: "X-Chaff") }
        let (status, data) = try await LimitedPost.send(request, maximumBytes: maximumResponseBytes)
        return ENVerificationHTTPResponse(status: status, body: data)
    }
}

/// One HTTP request whose response body is read up to a limit while it streams in: the request is cancelled as
/// soon as the body (or its announced length) goes over the limit.
final class LimitedPost: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: every mutable field is behind `state`'s lock; URLSession calls the delegate on its own queue.
    private struct State {
        var status = 0
        var body = Data()
        var failure: ENError?
        var continuation: CheckedContinuation<Result<(Int, Data), ENError>, Never>?
        var finished: Result<(Int, Data), ENError>?
    }

    private let url: String
    private let maximumBytes: Int
    private let state = Locked(State())

    private init(url: String, maximumBytes: Int) {
        self.url = url
        self.maximumBytes = maximumBytes
    }

    /// Sends `request` and returns the status and the body.
    static func send(_ request: URLRequest, maximumBytes: Int) async throws(ENError) -> (Int, Data) {
        let post = LimitedPost(url: request.url?.absoluteString ?? "", maximumBytes: maximumBytes)
        let session = URLSession(configuration: .ephemeral, delegate: post, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: request)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                post.wait(continuation)
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
        return try result.get()
    }

    private func wait(_ continuation: CheckedContinuation<Result<(Int, Data), ENError>, Never>) {
        let finished = state.withLock { state in
            state.continuation = continuation
            return state.finished
        }
        if let finished { finish(finished) }
    }

    private func finish(_ result: Result<(Int, Data), ENError>) {
        let continuation = state.withLock { state in
            guard state.continuation != nil else {
                state.finished = result
                return CheckedContinuation<Result<(Int, Data), ENError>, Never>?.none
            }
            let continuation = state.continuation
            state.continuation = nil
            return continuation
        }
        continuation?.resume(returning: result)
    }

    private func overLimit(_ task: URLSessionTask) {
        state.withLock { state in
            if state.failure == nil {
                state.failure = ENError(
                    .badFormat, "the response body is over the limit of \(maximumBytes) bytes",
                    context: .init(file: url))
            }
            state.body = Data()
        }
        task.cancel()
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        if response.expectedContentLength > Int64(maximumBytes) {
            overLimit(dataTask)
            return completionHandler(.cancel)
        }
        state.withLock { $0.status = (response as? HTTPURLResponse)?.statusCode ?? 0 }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let over = state.withLock { state in
            guard state.failure == nil else { return false }
            guard state.body.count + data.count <= maximumBytes else { return true }
            state.body.append(data)
            return false
        }
        if over { overLimit(dataTask) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let result: Result<(Int, Data), ENError> = state.withLock { state in
            if let failure = state.failure { return .failure(failure) }
            if let error {
                return .failure(
                    ENError(
                        .dataInaccessible, "cannot post: \(error.localizedDescription)", context: .init(file: url)))
            }
            return .success((state.status, state.body))
        }
        finish(result)
    }
}
