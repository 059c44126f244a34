// The earlier sample's detection ("Create an Exposure Detection Session", "Configure Criteria to Estimate Risk",
// "Submit Diagnosis Keys to the Framework", "Interpret Results" in
// ../shared/seeds/building-an-app-earlier-version-detection-session.md): `ENExposureDetectionSession` fed with
// batches of keys. The article shows the snippets and describes `checkExposure` and `finish`; the function around
// them, `checkExposure`'s body and `finish` are marked `// GLUE:`. The earlier article's `getExposureConfiguration`
// (V1 weights) is not repeated: the session uses the main article's `Server.getExposureConfiguration`, whose
// V1 level values it reads.
import ExposureNotificationKit  // EDIT: import line
import Foundation

extension ExposureManager {

    // GLUE: the earlier article's detection task, as a function beside the main article's `detectExposures`.
    // Its `LocalStore` kept a `nextDiagnosisKeyIndex` (an index of keys, not of files), which is not one of
    // `SampleAppDatabase`'s fields: every run submits all the keys the server holds.
    func detectExposuresWithSession(completionHandler: ((Bool) -> Void)? = nil) {
        let nextDiagnosisKeyIndex = 0  // GLUE
        var newExposures = [Exposure]()  // GLUE

        let session = ENExposureDetectionSession()
        let batchSize = session.maximumKeyCount

        // GLUE: "calls its own finish method to add those exposures to its own local store"; the key index is not
        // kept (see above).
        func finish(_ error: Error?) {
            if let error = error {
                LocalStore.shared.exposureDetectionErrorLocalizedDescription = error.localizedDescription
            } else {
                LocalStore.shared.exposures.append(contentsOf: newExposures)
                LocalStore.shared.dateLastPerformedExposureDetection = Date()
                LocalStore.shared.exposureDetectionErrorLocalizedDescription = nil
            }
            session.invalidate()
            completionHandler?(error == nil)
        }

        func getAllExposures() {
            session.getExposureInfo(withMaximumCount: 100) { newExposuresBatch, done, error in
                if let error = error {
                    finish(error)
                    return
                }
                newExposures.append(
                    contentsOf: newExposuresBatch!.lazy.map { exposure in
                        return Exposure(
                            date: exposure.date,
                            duration: exposure.duration,
                            totalRiskScore: exposure.totalRiskScore,
                            // GAP (not an allowed edit): `ENRiskLevel` is `UInt8` (Apple's type alias): no `rawValue`.
                            transmissionRiskLevel: exposure.transmissionRiskLevel)
                    })
                if done {
                    finish(nil)
                } else {
                    getAllExposures()
                }
            }
        }

        // GLUE: the article describes `checkExposure` ("requests a new set of keys from the server, if there are
        // still keys to retrieve; passes the previous set of keys to the session object; after both complete,
        // checks to see if there are more keys to fetch") and shows only the `addDiagnosisKeys` and
        // `finishedDiagnosisKeys` snippets, which are kept as shown.
        func checkExposure(index: Int, diagnosisKeys: [ENTemporaryExposureKey]?, done: Bool) {
            let dispatchGroup = DispatchGroup()  // GLUE
            var addPositiveDiagnosisKeysError: Error?  // GLUE
            var nextKeys: Result<[ENTemporaryExposureKey], Error>?  // GLUE
            if !done {  // GLUE
                dispatchGroup.enter()
                Server.shared.getDiagnosisKeys(startingAt: index, maximumCount: batchSize) { result in
                    nextKeys = result
                    dispatchGroup.leave()
                }
            }

            if let diagnosisKeys = diagnosisKeys {
                dispatchGroup.enter()
                session.addDiagnosisKeys(diagnosisKeys) { error in
                    addPositiveDiagnosisKeysError = error
                    dispatchGroup.leave()
                }
            }

            dispatchGroup.notify(queue: .main) {  // GLUE
                if let error = addPositiveDiagnosisKeysError {
                    finish(error)
                    return
                }
                switch nextKeys {
                case let .failure(error)?:
                    finish(error)
                case let .success(keys)?:
                    checkExposure(
                        index: index + keys.count, diagnosisKeys: keys.isEmpty ? nil : keys,
                        done: keys.count < batchSize)
                case nil:
                    session.finishedDiagnosisKeys { summary, error in
                        if let error = error {
                            finish(error)
                            return
                        }
                        getAllExposures()
                    }
                }
            }  // GLUE: closes `dispatchGroup.notify`
        }

        Server.shared.getExposureConfiguration { result in
            switch result {
            case let .success(configuration):
                session.configuration = configuration
                session.activate { error in
                    if let error = error {
                        finish(error)
                        return
                    }
                    checkExposure(index: nextDiagnosisKeyIndex, diagnosisKeys: nil, done: false)
                }
            case let .failure(error):
                finish(error)
            }
        }
    }
}
