// The seed sample's `ExposureManager` (main article; the class head, `init` and `deinit` from the earlier
// article "building-an-app-earlier-version-detection-session.md", the `activate` body from the main article).
// Left out as UI/OS code (UIKit, BackgroundTasks, UserNotifications): `enableExposureNotifications(from:)`,
// `showBluetoothOffUserNotificationIfNeeded`, `scheduleBackgroundTaskIfNeeded`, `createBackgroundTaskIfNeeded` and
// the `BGTaskScheduler` branch of the launch code. The detection-session flow of the earlier article
// (`ENExposureDetectionSession`) is in ExposureManager+DetectionSession.swift.
//
// The articles show statement snippets whose enclosing function they do not show; the lines that wrap them
// (function signatures, the `Progress`, `finish`) are marked `// GLUE:`. Edits: `// EDIT:` (allowed by the issue).
import ExposureNotificationKit  // EDIT: import line
import Foundation

class ExposureManager {

    static let shared = ExposureManager()

    let manager = ENManager()

    init() {
        manager.activate { _ in
            // Ensure Exposure Notifications is enabled if the app is authorized. The app
            // could get into a state where it is authorized, but Exposure Notifications
            // is not enabled, if the user initially denied Exposure Notifications
            // during onboarding, but then flipped on the "COVID-19 Exposure Notifications" switch
            // in Settings.
            if !self.manager.exposureNotificationEnabled {
                self.manager.setExposureNotificationEnabled(true) { (error) in
                    if let error = error {
                        print("Error attempting to enable on launch: \(error.localizedDescription)")
                    }
                }
            }
        }
    }

    deinit {
        manager.invalidate()
    }

    func getAndPostDiagnosisKeys(testResult: TestResult, completion: @escaping (Error?) -> Void) {
        manager.getDiagnosisKeys { temporaryExposureKeys, error in
            if let error = error {
                completion(error)
            } else {
                guard let temporaryExposureKeys = temporaryExposureKeys else {
                    print("No exposure keys, aborting key share")
                    return
                }

                // In this sample app, transmissionRiskLevel isn't set for any of the diagnosis keys. However, it is at this point that an app could
                // use information accumulated in testResult to determine a transmissionRiskLevel for each diagnosis key.
                Server.shared.postDiagnosisKeys(temporaryExposureKeys) { error in
                    completion(error)
                }
            }
        }
    }

    @available(iOS 14.4, *)
    func preAuthorizeKeys(
        completion: @escaping (Error?) -> Void
    ) {
        manager.preAuthorizeDiagnosisKeys { (error) in
            if let error = error {
                print("Error pre-authorizing keys: \(error)")
                completion(error)
                return
            }
            print("Successfully pre-authorized keys")
            completion(nil)
        }
    }

    // GLUE: the article shows the two statements below without their function; `completion` is the caller's.
    @available(iOS 14.4, *)
    func requestPreAuthorizedKeys(completion: @escaping (Error?) -> Void) {
        // This handler receives preauthorized keys. Once the handler is called,
        // the preauthorization expires, so the handler should only be called
        // once per preauthorization request. If the user doesn't authorize
        // release, this handler isn't called.
        manager.diagnosisKeysAvailableHandler = { (keys) in
            Server.shared.postDiagnosisKeys(keys) { (error) in
                if let error = error {
                    print("Error posting pre-authorized diagnosis keys: \(error)")
                }
                completion(error)
            }
        }

        // This call requests preauthorized keys. The request fails if the
        // user doesn't authorize release or if more than five days pass after
        // authorization. If requestPreAuthorizedDiagnosisKeys(:) has already
        // been called since the last time the user preauthorized, the call
        // doesn't fail but also doesn't return any keys.
        manager.requestPreAuthorizedDiagnosisKeys { (error) in
            if let error = error {
                print("Error retrieving pre-authorized diganosis keys: \(error)")
                completion(error)
            }
        }
    }

    // GLUE: the launch code's iOS 12.5 branch ("Check for Exposures in iOS 12.5"), as a function: on Linux the
    // `#available(iOS 13.5, *)` branch (BackgroundTasks) would always be taken, and it is left out.
    func setLaunchActivityHandlerForPeriodicRuns() {
        // If `ENManager` exists, and the iOS version is earlier than 13.5,
        // the app is running on iOS 12.5, where the Background Tasks
        // framework is unavailable. Specify an EN activity handler here, which
        // allows the app to receive background time for downloading keys
        // and looking for exposures when background tasks aren't available.
        // Apps should should call this method before calling activate().
        manager.setLaunchActivityHandler { (activityFlags) in
            // ENManager gives apps that register an activity handler
            // in iOS 12.5 up to 3.5 minutes of background time at
            // least once per day. In iOS 13 and later, registering an
            // activity handler does nothing.
            if activityFlags.contains(.periodicRun) {
                print("Periodic activity callback called (iOS 12.5)")
                _ = ExposureManager.shared.detectExposures()
            }
        }
    }

    // GLUE: the article shows the detection steps ("Download Diagnosis Keys", "Submit Diagnosis Keys to the
    // Framework", `getExposuresV1`/`getExposuresV2`) and describes `finish`; the function around them, the
    // `Progress`, `localURLs` and `finish` are glue, as its callers use it
    // (`let progress = ExposureManager.shared.detectExposures { success in ... }`, `_ = ...detectExposures()`).
    func detectExposures(completionHandler: ((Bool) -> Void)? = nil) -> Progress {
        let progress = Progress(totalUnitCount: 1)  // GLUE (the article never shows how it makes its Progress)
        var localURLs = [URL]()  // GLUE

        // GLUE: "updates the local store with the new data, including any exposures, the date and time the app
        // executed the search, and the index for the key file to check next time".
        func finish(_ result: Result<([Exposure], Int), Error>) {
            let success: Bool
            switch result {
            case let .success((newExposures, nextDiagnosisKeyFileIndex)):
                LocalStore.shared.nextDiagnosisKeyFileIndex = nextDiagnosisKeyFileIndex
                LocalStore.shared.exposures.append(contentsOf: newExposures)
                LocalStore.shared.dateLastPerformedExposureDetection = Date()
                LocalStore.shared.exposureDetectionErrorLocalizedDescription = nil
                success = true
            case let .failure(error):
                LocalStore.shared.exposureDetectionErrorLocalizedDescription = error.localizedDescription
                success = false
            }
            completionHandler?(success)
        }

        let nextDiagnosisKeyFileIndex = LocalStore.shared.nextDiagnosisKeyFileIndex

        // Handles getting exposures using the version 2 API in iOS 13.7+ and
        // in iOS 12.5
        func getExposuresV2(_ summary: ENExposureDetectionSummary) {
            self.manager.getExposureWindows(summary: summary) { windows, error in
                if let error = error {
                    finish(.failure(error))
                    return
                }
                let allWindows = windows!.map { window in
                    Exposure(date: window.date)
                }
                finish(.success((allWindows, nextDiagnosisKeyFileIndex + localURLs.count)))
            }
        }

        // Handles getting exposures using the version 1 API used in iOS 13.5 and iOS 13.6
        @available(iOS 13.5, *)
        func getExposuresV1(_ summary: ENExposureDetectionSummary) {
            let userExplanation = NSLocalizedString("USER_NOTIFICATION_EXPLANATION", comment: "User notification")
            ExposureManager.shared.manager.getExposureInfo(
                summary: summary,
                userExplanation: userExplanation
            ) { exposures, error in
                if let error = error {
                    finish(.failure(error))
                    return
                }
                let newExposures = exposures!.map { exposure in
                    Exposure(date: exposure.date)
                }
                finish(.success((newExposures, nextDiagnosisKeyFileIndex + localURLs.count)))
            }
        }

        Server.shared.getDiagnosisKeyFileURLs(startingAt: nextDiagnosisKeyFileIndex) { result in

            let dispatchGroup = DispatchGroup()
            var localURLResults = [Result<[URL], Error>]()

            switch result {
            case let .success(remoteURLs):
                for remoteURL in remoteURLs {
                    dispatchGroup.enter()
                    Server.shared.downloadDiagnosisKeyFile(at: remoteURL) { result in
                        localURLResults.append(result)
                        dispatchGroup.leave()
                    }
                }

            case let .failure(error):
                finish(.failure(error))
            }

            dispatchGroup.notify(queue: .main) {
                for result in localURLResults {
                    switch result {
                    case let .success(urls):
                        localURLs.append(contentsOf: urls)
                    case let .failure(error):
                        finish(.failure(error))
                        return
                    }
                }

                Server.shared.getExposureConfiguration { result in
                    switch result {
                    case let .success(configuration):
                        ExposureManager.shared.manager.detectExposures(
                            configuration: configuration, diagnosisKeyURLs: localURLs
                        ) { summary, error in
                            if let error = error {
                                finish(.failure(error))
                                return
                            }
                            // GAP (not an allowed edit): on iOS the app's Info.plist `ENAPIVersion` and the OS
                            // version go together; off iOS `#available(iOS 13.7, *)` always holds, so the app asks
                            // the API version its environment declares.
                            if #available(iOS 13.7, *), ENEnvironment.default.apiVersion == .version2 {
                                getExposuresV2(summary!)
                            } else if #available(iOS 13.5, *) {
                                getExposuresV1(summary!)
                            } else if ENManagerIsAvailable() {
                                getExposuresV2(summary!)
                            } else {
                                print("Exposure Notifications not supported on this version of iOS.")
                            }
                        }

                    case let .failure(error):
                        finish(.failure(error))
                    }
                }
            }  // GLUE: closes `dispatchGroup.notify`
        }  // GLUE: closes `getDiagnosisKeyFileURLs`
        return progress  // GLUE
    }
}
