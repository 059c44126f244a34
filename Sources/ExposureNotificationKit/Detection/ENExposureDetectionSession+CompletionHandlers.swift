public import ENCore
public import ENRiskV1
internal import Foundation

/// Apple's handler of ``ENExposureDetectionSession/finishedDiagnosisKeys(completionHandler:)``: the summary, or the
/// error.
public typealias ENExposureDetectionFinishCompletion = (
    _ summary: ENExposureDetectionSummary?, _ error: (any Error)?
) -> Void

/// Apple's handler of ``ENExposureDetectionSession/getExposureInfo(withMaximumCount:completionHandler:)``: a page
/// of exposure infos and whether it was the last (`done`), or the error.
public typealias ENGetExposureInfoCompletion = (
    _ exposureInfo: [ENExposureInfo]?, _ done: Bool, _ error: (any Error)?
) -> Void

/// Apple's completion-handler forms: the same steps as the `async` forms, delivered on
/// ``ENExposureDetectionSession/dispatchQueue``.
extension ENExposureDetectionSession {
    /// Activates the session; `completionHandler` gets `nil` or the error (see ``activate()``).
    public func activate(completionHandler: @escaping ENErrorHandler) {
        start({ () throws(ENError) in try self.startActivation() }, reject: { completionHandler($0) }) {
            completionHandler($0.error)
        }
    }

    /// Matches a batch of at most ``maximumKeyCount`` keys; `completionHandler` gets `nil` or the error (see
    /// ``addDiagnosisKeys(_:)``).
    public func addDiagnosisKeys(_ keys: [ENTemporaryExposureKey], completionHandler: @escaping ENErrorHandler) {
        start({ () throws(ENError) in try self.startAdding(keys) }, reject: { completionHandler($0) }) {
            completionHandler($0.error)
        }
    }

    /// Ends the batches; `completionHandler` gets the summary or the error (see ``finishedDiagnosisKeys()``).
    public func finishedDiagnosisKeys(completionHandler: @escaping ENExposureDetectionFinishCompletion) {
        start({ () throws(ENError) in try self.startFinishing() }, reject: { completionHandler(nil, $0) }) {
            completionHandler($0.value, $0.error)
        }
    }

    /// The next at most `maximumCount` exposure infos; `completionHandler` gets them and whether they were the
    /// last, or the error (see ``getExposureInfo(withMaximumCount:)``).
    public func getExposureInfo(
        withMaximumCount maximumCount: Int, completionHandler: @escaping ENGetExposureInfoCompletion
    ) {
        let handler = Unchecked(completionHandler)
        let result: Result<(exposureInfo: [ENExposureInfo], done: Bool), ENError>
        do throws(ENError) {
            result = .success(try nextExposureInfo(maximumCount: maximumCount))
        } catch {
            result = .failure(error)
        }
        dispatchQueue.async {
            switch result {
            case .success(let page): handler.value(page.exposureInfo, page.done, nil)
            case .failure(let error): handler.value(nil, false, error)
            }
        }
    }

    /// Starts a step at once; a rejection (`apiMisuse`, ...) goes straight to the dispatch queue, the step's
    /// result through ``ENCompletionGate`` (exactly once, or `invalidated`).
    private func start<Value: Sendable>(
        _ step: () throws(ENError) -> PendingResult<Value>,
        reject: @escaping (ENError) -> Void,
        deliver: @escaping (Result<Value, ENError>) -> Void
    ) {
        let pending: PendingResult<Value>
        do throws(ENError) {
            pending = try step()
        } catch {
            let reject = Unchecked(reject)
            dispatchQueue.async { reject.value(error) }
            return
        }
        gate.deliver({ () async throws(ENError) in try await pending.value() }, to: deliver)
    }
}
