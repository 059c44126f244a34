// App code in the shape of Corona-Warn-App iOS's `ExposureManager.swift` (github.com/corona-warn-app/cwa-app-ios,
// Apache-2.0), written for Apple's framework in Swift 5: a wrapper of `ENManager` behind the app's own protocol,
// observing the status through key-value observing of `\.manager.exposureNotificationStatus` on the wrapper (an
// `NSObject`). The edits from the app's code are those Documentation/FromApplesSampleApp.md lists: the import line,
// `@objc` and `@objc dynamic` off the app's own protocol and property (no Objective-C runtime here), and the members
// that need UIKit or UserNotifications left out.
import ExposureNotificationKit
import Foundation

enum ExposureNotificationError: Error, Equatable {
    case exposureNotificationRequired
    case exposureNotificationAuthorization
    case exposureNotificationUnavailable
    case apiMisuse
    case unknown(String)
}

struct ExposureManagerState: Equatable {
    init(authorized: Bool = false, enabled: Bool = false, status: ENStatus = .unknown) {
        self.authorized = authorized
        self.enabled = enabled
        self.status = status
    }

    private(set) var authorized: Bool
    private(set) var enabled: Bool
    private(set) var status: ENStatus
    var isGood: Bool { authorized && enabled && status == .active }
}

// Edit: `@objc protocol Manager: NSObjectProtocol` and `@objc dynamic var` in the app.
protocol Manager: AnyObject {
    static var authorizationStatus: ENAuthorizationStatus { get }
    func detectExposures(
        configuration: ENExposureConfiguration, diagnosisKeyURLs: [URL],
        completionHandler: @escaping ENDetectExposuresHandler
    ) -> Progress
    func getExposureWindows(
        from summary: ENExposureDetectionSummary, completionHandler: @escaping ENGetExposureWindowsHandler
    ) -> Progress
    func activate(completionHandler: @escaping ENErrorHandler)
    func invalidate()
    var invalidationHandler: (() -> Void)? { get set }
    var exposureNotificationEnabled: Bool { get }
    func setExposureNotificationEnabled(_ enabled: Bool, completionHandler: @escaping ENErrorHandler)
    var exposureNotificationStatus: ENStatus { get }
    func getDiagnosisKeys(completionHandler: @escaping ENGetDiagnosisKeysHandler)
    func getTestDiagnosisKeys(completionHandler: @escaping ENGetDiagnosisKeysHandler)
    func preAuthorizeKeys(completion: @escaping ENErrorHandler)
}

extension ENManager: Manager {
    func getExposureWindows(
        from summary: ENExposureDetectionSummary, completionHandler: @escaping ENGetExposureWindowsHandler
    ) -> Progress {
        getExposureWindows(summary: summary, completionHandler: completionHandler)
    }

    func preAuthorizeKeys(completion: @escaping ENErrorHandler) {
        preAuthorizeDiagnosisKeys(completionHandler: completion)
    }
}

protocol ENAExposureManagerObserver: AnyObject {
    func exposureManager(_ manager: ENAExposureManager, didChangeState newState: ExposureManagerState)
}

/// The app's wrapper of `ENManager`.
final class ENAExposureManager: NSObject {
    typealias CompletionHandler = ((ExposureNotificationError?) -> Void)

    private weak var exposureManagerObserver: ENAExposureManagerObserver?
    private var statusObservation: NSKeyValueObservation?
    private var manager: Manager  // Edit: `@objc private var manager: Manager` in the app.

    init(manager: Manager = ENManager()) {
        self.manager = manager
        super.init()
    }

    func observeExposureNotificationStatus(observer: ENAExposureManagerObserver) {
        guard exposureManagerObserver == nil else {
            return
        }
        exposureManagerObserver = observer
        statusObservation = observe(\.manager.exposureNotificationStatus, options: .new) { [weak self] _, _ in
            guard let self = self else { return }
            DispatchQueue.main.async {
                observer.exposureManager(self, didChangeState: self.exposureManagerState)
            }
        }
    }

    func activate(completion: @escaping CompletionHandler) {
        manager.activate { activationError in
            if let activationError = activationError {
                self.handleENError(error: activationError, completion: completion)
                return
            }
            completion(nil)
        }
    }

    func enable(completion: @escaping CompletionHandler) {
        changeEnabled(to: true, completion: completion)
    }

    func disable(completion: @escaping CompletionHandler) {
        changeEnabled(to: false, completion: completion)
    }

    private func changeEnabled(to status: Bool, completion: @escaping CompletionHandler) {
        manager.setExposureNotificationEnabled(status) { error in
            if let error = error {
                self.handleENError(error: error, completion: completion)
                return
            }
            completion(nil)
        }
    }

    var exposureManagerState: ExposureManagerState {
        .init(
            authorized: type(of: manager).authorizationStatus == .authorized,
            enabled: manager.exposureNotificationEnabled,
            status: manager.exposureNotificationStatus
        )
    }

    /// Keys released under the pre-authorization when there is one, otherwise through the consent prompt.
    func accessDiagnosisKeys(completionHandler: @escaping ENGetDiagnosisKeysHandler) {
        if !manager.exposureNotificationEnabled {
            completionHandler(nil, ENError(.notEnabled))
            return
        }
        if let manager = manager as? ENManager {
            manager.diagnosisKeysAvailableHandler = { keys in
                if keys.isEmpty {
                    manager.getDiagnosisKeys(completionHandler: completionHandler)
                } else {
                    completionHandler(keys, nil)
                }
            }
            manager.requestPreAuthorizedDiagnosisKeys { error in
                if error != nil {
                    manager.getDiagnosisKeys(completionHandler: completionHandler)
                }
            }
        } else {
            manager.getDiagnosisKeys(completionHandler: completionHandler)
        }
    }

    func preAuthorizeKeys(completion: @escaping ENErrorHandler) {
        manager.preAuthorizeKeys(completion: completion)
    }

    private func handleENError(error: Error, completion: @escaping CompletionHandler) {
        if let error = error as? ENError {
            switch error.code {
            case .notAuthorized:
                completion(ExposureNotificationError.exposureNotificationAuthorization)
            case .notEnabled:
                completion(ExposureNotificationError.exposureNotificationRequired)
            case .restricted:
                completion(ExposureNotificationError.exposureNotificationUnavailable)
            case .apiMisuse:
                completion(ExposureNotificationError.apiMisuse)
            default:
                completion(ExposureNotificationError.unknown(error.localizedDescription))
            }
        }
    }

    func invalidate(handler: (() -> Void)?) {
        manager.invalidationHandler = handler
        manager.invalidate()
    }

    func reset(handler: (() -> Void)?) {
        statusObservation?.invalidate()
        exposureManagerObserver = nil
        invalidate { handler?() }
    }

    deinit {
        manager.invalidate()
    }
}
