internal import ENCore

/// The result of work started at once (on a queue) and awaited later, by any number of callers: the session
/// enqueues its work in call order and hands the waiting to ``ENCompletionGate``.
final class PendingResult<Value: Sendable>: Sendable {
    private struct State {
        var result: Result<Value, ENError>?
        var waiters: [CheckedContinuation<Result<Value, ENError>, Never>] = []
    }
    private let state = Locked(State())

    /// Sets the result (the first one wins) and resumes every waiter.
    func complete(_ result: Result<Value, ENError>) {
        let waiters: [CheckedContinuation<Result<Value, ENError>, Never>] = state.withLock { state in
            guard state.result == nil else { return [] }
            state.result = result
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: result) }
    }

    /// The result, once ``complete(_:)`` has set it.
    func value() async throws(ENError) -> Value {
        let result: Result<Value, ENError> = await withCheckedContinuation { continuation in
            let ready: Result<Value, ENError>? = state.withLock { state in
                if let result = state.result { return result }
                state.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
        return try result.get()
    }
}
