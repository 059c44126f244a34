internal import ENCore
internal import Foundation

#if canImport(FoundationNetworking)
    internal import FoundationNetworking
#endif

/// One HTTP(S) fetch that stops at a size limit while the body streams in: the request is cancelled as soon as
/// the body (or its announced length) goes over the limit, so a server that never stops sending costs at most the
/// limit and one network read, in memory and in time.
final class LimitedDownload: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: every mutable field is behind `state`'s lock; URLSession calls the delegate on its own queue.
    private struct State {
        var body = Data()
        var failure: ENError?
        var continuation: CheckedContinuation<Result<Data, ENError>, Never>?
        var finished: Result<Data, ENError>?
    }

    private let url: URL
    private let maximumBytes: Int
    private let state = Locked(State())

    private init(url: URL, maximumBytes: Int) {
        self.url = url
        self.maximumBytes = maximumBytes
    }

    /// Fetches `url` with `session`'s configuration, refusing a body over `maximumBytes`.
    ///
    /// - Throws: `dataInaccessible` naming the URL for a failed request or a status other than 200; `badFormat`
    ///   naming it for a body over the limit (the transfer is stopped there).
    static func fetch(_ url: URL, maximumBytes: Int, configuration: URLSessionConfiguration) async throws(ENError)
        -> Data
    {
        let download = LimitedDownload(url: url, maximumBytes: maximumBytes)
        let session = URLSession(configuration: configuration, delegate: download, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: url)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                download.wait(continuation)
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
        return try result.get()
    }

    private func wait(_ continuation: CheckedContinuation<Result<Data, ENError>, Never>) {
        let finished = state.withLock { state in
            state.continuation = continuation
            return state.finished
        }
        if let finished { finish(finished) }
    }

    private func finish(_ result: Result<Data, ENError>) {
        let continuation = state.withLock { state in
            guard state.continuation != nil else {
                state.finished = result
                return CheckedContinuation<Result<Data, ENError>, Never>?.none
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
        ENError(
            .badFormat, "the body is over the limit of \(maximumBytes) bytes", context: .init(file: url.absoluteString))
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        if let http = response as? HTTPURLResponse, http.statusCode != 200 {
            fail(
                dataTask,
                ENError(
                    .dataInaccessible, "the server answered HTTP \(http.statusCode)",
                    context: .init(file: url.absoluteString)))
            return completionHandler(.cancel)
        }
        if response.expectedContentLength > Int64(maximumBytes) {
            fail(dataTask, overLimit())
            return completionHandler(.cancel)
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let over = state.withLock { state in
            guard state.failure == nil else { return false }
            guard state.body.count + data.count <= maximumBytes else { return true }
            state.body.append(data)
            return false
        }
        if over { fail(dataTask, overLimit()) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let result: Result<Data, ENError> = state.withLock { state in
            if let failure = state.failure { return .failure(failure) }
            if let error {
                return .failure(
                    ENError(
                        .dataInaccessible, "cannot fetch: \(error.localizedDescription)",
                        context: .init(file: url.absoluteString)))
            }
            return .success(state.body)
        }
        finish(result)
    }
}
