package import ENCore
package import Foundation

#if canImport(FoundationNetworking)
    package import FoundationNetworking
#endif

/// One HTTP(S) request whose response body is read up to a limit while it streams in: the request is cancelled as
/// soon as the body (or its announced length) goes over the limit, so a server that never stops sending costs at
/// most the limit and one network read, in memory and in time. The device's key-file downloads and the
/// verification client's requests both go through it.
package final class BoundedFetch: NSObject, URLSessionDataDelegate, @unchecked Sendable {
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
    private let requiredStatus: Int?
    private let state = Locked(State())

    private init(url: String, maximumBytes: Int, requiredStatus: Int?) {
        self.url = url
        self.maximumBytes = maximumBytes
        self.requiredStatus = requiredStatus
    }

    /// Sends `request` with a session of `configuration` and returns the status and the body, refusing a body over
    /// `maximumBytes`.
    ///
    /// - Parameters:
    ///   - request: What to send.
    ///   - maximumBytes: The most body bytes read; more stops the transfer.
    ///   - requiredStatus: When set, any other status fails at once (the body is not read).
    ///   - configuration: The session's configuration (a fresh session is made from it).
    /// - Throws: `dataInaccessible` naming the URL for a failed request or, with `requiredStatus`, another status;
    ///   `badFormat` naming it for a body over the limit (the transfer is stopped there).
    package static func send(
        _ request: URLRequest, maximumBytes: Int, requiredStatus: Int? = nil,
        configuration: URLSessionConfiguration = .ephemeral
    ) async throws(ENError) -> (status: Int, body: Data) {
        let fetch = BoundedFetch(
            url: request.url?.absoluteString ?? "", maximumBytes: maximumBytes, requiredStatus: requiredStatus)
        let session = URLSession(configuration: configuration, delegate: fetch, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: request)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                fetch.wait(continuation)
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
        let (status, body) = try result.get()
        return (status, body)
    }

    /// Fetches `url` (`GET`) with a session of `configuration`, requiring 200 and refusing a body over
    /// `maximumBytes`.
    ///
    /// - Throws: as ``send(_:maximumBytes:requiredStatus:configuration:)`` with a required status of 200.
    package static func fetch(_ url: URL, maximumBytes: Int, configuration: URLSessionConfiguration)
        async throws(ENError) -> Data
    {
        try await send(
            URLRequest(url: url), maximumBytes: maximumBytes, requiredStatus: 200, configuration: configuration
        ).body
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

    private func fail(_ task: URLSessionTask, _ error: ENError) {
        state.withLock { state in
            if state.failure == nil { state.failure = error }
            state.body = Data()
        }
        task.cancel()
    }

    private func overLimit() -> ENError {
        ENError(.badFormat, "the body is over the limit of \(maximumBytes) bytes", context: .init(file: url))
    }

    package func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        if let requiredStatus, status != requiredStatus {
            fail(dataTask, ENError(.dataInaccessible, "the server answered HTTP \(status)", context: .init(file: url)))
            return completionHandler(.cancel)
        }
        if response.expectedContentLength > Int64(maximumBytes) {
            fail(dataTask, overLimit())
            return completionHandler(.cancel)
        }
        state.withLock { $0.status = status }
        completionHandler(.allow)
    }

    package func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let over = state.withLock { state in
            guard state.failure == nil else { return false }
            guard state.body.count + data.count <= maximumBytes else { return true }
            state.body.append(data)
            return false
        }
        if over { fail(dataTask, overLimit()) }
    }

    package func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let result: Result<(Int, Data), ENError> = state.withLock { state in
            if let failure = state.failure { return .failure(failure) }
            if let error {
                return .failure(
                    ENError(
                        .dataInaccessible, "cannot fetch: \(error.localizedDescription)", context: .init(file: url)))
            }
            return .success((state.status, state.body))
        }
        finish(result)
    }
}
