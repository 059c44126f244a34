package import ENCore
package import Foundation

/// The delivery rules of Apple's handlers, in one place for every ``ExposureManaging`` of the package: handlers
/// run on the dispatch queue; each pending completion is delivered exactly once, with its result or with
/// `ENError.invalidated` when the manager is invalidated first; the invalidation handler runs once, after the
/// pending completions; nothing runs after it. Async callers pending at invalidation are resumed with
/// `invalidated` at once.
package final class ENCompletionGate: Sendable {
    private struct State {
        var queue: DispatchQueue = .main
        var invalidated = false
        var nextID: UInt64 = 0
        /// Completion-handler forms waiting for their operation: called with `invalidated` on invalidation.
        var pendingCompletions: [UInt64: Unchecked<(ENError) -> Void>] = [:]
        /// Async operations in flight: resumed with `invalidated` on invalidation.
        var pendingOperations: [UInt64: @Sendable () -> Void] = [:]
    }

    private let state = Locked(State())

    package init() {}

    /// The dispatch queue handlers run on.
    package var queue: DispatchQueue {
        get { state.withLock { $0.queue } }
        set { state.withLock { $0.queue = newValue } }
    }

    /// Whether ``invalidate(then:)`` was called.
    package var isInvalidated: Bool { state.withLock { $0.invalidated } }

    /// Runs `operation` unless the gate is invalidated; the caller is resumed with `invalidated` as soon as the
    /// gate is invalidated, even while the operation still runs (it is then cancelled).
    package func run<Value: Sendable>(
        _ operation: @escaping @Sendable () async throws(ENError) -> Value
    ) async throws(ENError) -> Value {
        let once = ResumeOnce<Value>()
        let result: Result<Value, ENError> = await withTaskCancellationHandler {
            await started(once, operation)
        } onCancel: {
            once.cancelOperation()
        }
        return try result.get()
    }

    /// Starts `operation` in a task of its own and waits for it, or for an invalidation.
    private func started<Value: Sendable>(
        _ once: ResumeOnce<Value>, _ operation: @escaping @Sendable () async throws(ENError) -> Value
    ) async -> Result<Value, ENError> {
        await withCheckedContinuation { continuation in
            once.set(continuation)
            let id: UInt64? = state.withLock { state in
                guard !state.invalidated else { return nil }
                state.nextID += 1
                state.pendingOperations[state.nextID] = { once.resume(.failure(Self.invalidatedError)) }
                return state.nextID
            }
            guard let id else {
                once.resume(.failure(Self.invalidatedError))
                return
            }
            let task = Task {
                let result: Result<Value, ENError>
                do throws(ENError) {
                    result = .success(try await operation())
                } catch {
                    result = .failure(error)
                }
                _ = self.state.withLock { $0.pendingOperations.removeValue(forKey: id) }
                once.resume(result)
            }
            once.onInvalidation { task.cancel() }
        }
    }

    /// Runs `operation` and delivers its result to `completion` on the queue, exactly once; see the type.
    package func deliver<Value: Sendable>(
        _ operation: @escaping @Sendable () async throws(ENError) -> Value,
        to completion: @escaping (Result<Value, ENError>) -> Void
    ) {
        let handler = Unchecked(completion)
        let id: UInt64? = state.withLock { state in
            guard !state.invalidated else { return nil }
            state.nextID += 1
            state.pendingCompletions[state.nextID] = Unchecked { error in handler.value(.failure(error)) }
            return state.nextID
        }
        // After invalidation the handler would run after the invalidation handler: Apple runs nothing then.
        guard let id else { return }
        Task {
            let result: Result<Value, ENError>
            do throws(ENError) {
                result = .success(try await self.run(operation))
            } catch {
                result = .failure(error)
            }
            // Claim the delivery and enqueue it under the lock, so that an invalidation cannot slip between.
            self.state.withLock { state in
                guard state.pendingCompletions.removeValue(forKey: id) != nil else { return }
                state.queue.async { handler.value(result) }
            }
        }
    }

    /// Runs `work` on the queue unless the gate was invalidated.
    package func post(_ work: @escaping () -> Void) {
        let work = Unchecked(work)
        state.withLock { state in
            guard !state.invalidated else { return }
            state.queue.async { work.value() }
        }
    }

    /// Invalidates the gate: every pending async caller is resumed with `invalidated`; on the queue, every pending
    /// completion is called with `invalidated`, then `handler`. Returns false when already invalidated.
    @discardableResult
    package func invalidate(then handler: (() -> Void)?) -> Bool {
        let handler = Unchecked(handler)
        let operations: [@Sendable () -> Void]? = state.withLock { state in
            guard !state.invalidated else { return nil }
            state.invalidated = true
            let completions = state.pendingCompletions.sorted { $0.key < $1.key }.map(\.value)
            state.pendingCompletions = [:]
            let operations = Array(state.pendingOperations.values)
            state.pendingOperations = [:]
            state.queue.async {
                for completion in completions { completion.value(Self.invalidatedError) }
                handler.value?()
            }
            return operations
        }
        guard let operations else { return false }
        for operation in operations { operation() }
        return true
    }

    package static let invalidatedError = ENError(.invalidated, "the manager was invalidated")
}

/// A value the compiler cannot prove `Sendable` that the gate only touches on the dispatch queue, or under its
/// lock: Apple's handler types are plain closures, and Apple calls them on the dispatch queue the app chose.
package struct Unchecked<Value>: @unchecked Sendable {
    package let value: Value
    package init(_ value: Value) { self.value = value }
}

/// Resumes a continuation once, from whichever of the operation and the invalidation comes first.
private final class ResumeOnce<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Result<Value, ENError>, Never>?
        var cancel: (@Sendable () -> Void)?
        var done = false
        var cancelRequested = false
    }
    private let state = Locked(State())

    /// Cancels the operation's task (now, or as soon as it is known): the caller's task was cancelled.
    func cancelOperation() {
        let cancel: (@Sendable () -> Void)? = state.withLock { state in
            state.cancelRequested = true
            return state.cancel
        }
        cancel?()
    }

    func set(_ continuation: CheckedContinuation<Result<Value, ENError>, Never>) {
        state.withLock { $0.continuation = continuation }
    }

    func onInvalidation(_ cancel: @escaping @Sendable () -> Void) {
        let runNow: Bool = state.withLock { state in
            if state.done || state.cancelRequested { return true }
            state.cancel = cancel
            return false
        }
        if runNow { cancel() }
    }

    func resume(_ result: Result<Value, ENError>) {
        let (continuation, cancel): (CheckedContinuation<Result<Value, ENError>, Never>?, (@Sendable () -> Void)?) =
            state.withLock { state in
                guard !state.done else { return (nil, nil) }
                state.done = true
                let cancel = state.cancel
                state.cancel = nil
                return (state.continuation.take(), cancel)
            }
        continuation?.resume(returning: result)
        cancel?()
    }
}
