// Glue: what the seed sample's snippets use but the articles never show, written for this package (not taken from
// Apple's sample code). Each declaration is the smallest thing the seed code needs. The sample keeps its data in
// `UserDefaults` through `Persisted` and fakes its server; here `Persisted` stores `LocalStore`'s fields in the
// app's own `SampleAppDatabase` (an SQLite file) and `Server` talks to an `ENDiagnosisKeyServer`.
import ENKeyServer
import ExposureNotificationKit
import Foundation

/// What the sample's glue talks to, set once at start-up (the environment set-up): the app's database, the
/// health authority's key server and the folder downloaded key files go to.
enum SampleAppBackend {
    /// `LocalStore`'s fields. Without a database, every field reads as its default and writes are dropped.
    nonisolated(unsafe) static var database: SampleAppDatabase?
    /// The key server behind `Server`; without one, `Server` lists no files and keeps posted keys to itself.
    nonisolated(unsafe) static var keyServer: ENDiagnosisKeyServer?
    /// The last of the calls to `keyServer` under way, which run one after the other in the order they were made,
    /// as one connection to a server would answer them (the server's API is `async`; the sample's is completion
    /// handlers and a `Persisted` setter). The sample calls from the manager's queue and from tasks at once, so
    /// it is read and replaced under `callsLock`.
    nonisolated(unsafe) private static var lastCall: Task<Void, Never>?
    private static let callsLock = NSLock()
    /// Where `downloadDiagnosisKeyFile(at:)` writes the files it downloads.
    nonisolated(unsafe) static var downloads = FileManager.default.temporaryDirectory
    /// The address the key server's files are listed under (`getDiagnosisKeyFileURLs`).
    static let filesURL = URL(string: "https://keys.example.org/v1/")!
    /// `Server.diagnosisKeys`: the keys this process posted, in order (the sample's server "stores all of the
    /// TEKs it receives locally on device"); each new one is also posted to `keyServer`.
    /// Read and replaced under `postedKeysLock`: the app posts from the manager's queue, the story reads from its
    /// task (Apple's sample keeps them in `UserDefaults`, which is thread-safe).
    static var postedKeys: [CodableDiagnosisKey] {
        postedKeysLock.withLock { storedPostedKeys }
    }
    nonisolated(unsafe) private static var storedPostedKeys: [CodableDiagnosisKey] = []
    private static let postedKeysLock = NSLock()

    /// Publishes on the key server once the posts under way are stored: what the health authority's server does
    /// every few hours.
    static func publish() async throws -> [ENKeyServerFile] {
        await currentCall()?.value
        return try await keyServer?.publish() ?? []
    }

    /// The last call to the key server made so far.
    private static func currentCall() -> Task<Void, Never>? {
        callsLock.withLock { lastCall }
    }

    /// Runs `work` after the calls to the key server made before it.
    static func call(_ work: @escaping () async -> Void) {
        callsLock.withLock {
            let previous = lastCall
            lastCall = Task {
                await previous?.value
                await work()
            }
        }
    }

    /// The value `Persisted` reads for `key`, or `nil` for its default.
    static func read(_ key: String) -> Any? {
        if key == "diagnosisKeys" { return postedKeys }
        guard let database = database else { return nil }
        do {
            switch key {
            case "isOnboarded":
                return try database.state().isOnboarded
            case "nextDiagnosisKeyFileIndex":
                return try database.state().nextDiagnosisKeyFileIndex
            case "dateLastPerformedExposureDetection":
                return try database.state().dateLastPerformedExposureDetection
            case "exposureDetectionErrorLocalizedDescription":
                return try database.state().exposureDetectionErrorLocalizedDescription
            case "exposures":
                return try database.exposures()
            case "testResults":
                return Dictionary(try database.testResults().map { ($0.id, $0) }, uniquingKeysWith: { $1 })
            default:
                return nil
            }
        } catch {
            print("LocalStore: cannot read \(key): \(error)")
            return nil
        }
    }

    /// Stores what `Persisted` was given for `key`.
    static func write(_ key: String, _ value: Any) {
        do {
            if key == "diagnosisKeys" {
                guard let keys = value as? [CodableDiagnosisKey] else { return }
                let new = postedKeysLock.withLock {
                    let new = keys.filter { !storedPostedKeys.contains($0) }
                    storedPostedKeys = keys
                    return new
                }
                guard let server = keyServer, !new.isEmpty else { return }
                let shared = new.map {
                    ENTemporaryExposureKey(
                        keyData: $0.keyData, rollingStartNumber: $0.rollingStartNumber,
                        rollingPeriod: $0.rollingPeriod, transmissionRiskLevel: $0.transmissionRiskLevel)
                }
                call {
                    do {
                        try await server.postDiagnosisKeys(shared)
                    } catch {
                        print("Server: the key server refused the keys: \(error)")
                    }
                }
                return
            }
            guard let database = database else { return }
            switch (key, value) {
            case ("isOnboarded", let value as Bool):
                try database.updateState { $0.isOnboarded = value }
            case ("nextDiagnosisKeyFileIndex", let value as Int):
                try database.updateState { $0.nextDiagnosisKeyFileIndex = value }
            case ("dateLastPerformedExposureDetection", let date as Date?):
                try database.updateState { $0.dateLastPerformedExposureDetection = date }
            case ("exposureDetectionErrorLocalizedDescription", let reason as String?):
                try database.updateState { $0.exposureDetectionErrorLocalizedDescription = reason }
            case ("exposures", let exposures as [Exposure]):
                try database.replaceExposures(with: exposures)
            case ("testResults", let results as [UUID: TestResult]):
                try database.replaceTestResults(with: Array(results.values))
            default:
                print("LocalStore: no field \(key) of type \(type(of: value))")
            }
        } catch {
            print("LocalStore: cannot write \(key): \(error)")
        }
    }
}

/// "A custom property wrapper transforms data between its native format and a JSON-formatted equivalent, reads
/// and writes data in the user defaults dictionary, and posts notifications to the app when local data changes."
/// Here it reads and writes `SampleAppBackend` (the app's `SampleAppDatabase`) instead of the user defaults.
@propertyWrapper
struct Persisted<Value: Codable> {
    let userDefaultsKey: String
    let notificationName: Notification.Name
    let defaultValue: Value

    init(userDefaultsKey: String, notificationName: Notification.Name, defaultValue: Value) {
        self.userDefaultsKey = userDefaultsKey
        self.notificationName = notificationName
        self.defaultValue = defaultValue
    }

    var wrappedValue: Value {
        get { SampleAppBackend.read(userDefaultsKey).flatMap { $0 as? Value } ?? defaultValue }
        nonmutating set {
            SampleAppBackend.write(userDefaultsKey, newValue)
            NotificationCenter.default.post(name: notificationName, object: nil)
        }
    }
}

/// An exposure the app keeps: the main article builds it as `Exposure(date:)`, the earlier article as
/// `Exposure(date:duration:totalRiskScore:transmissionRiskLevel:)`.
struct Exposure: Codable {
    let date: Date
    var duration: TimeInterval? = nil
    var totalRiskScore: ENRiskScore? = nil
    var transmissionRiskLevel: ENRiskLevel? = nil
}

/// A diagnosis key as the sample's server stores it (`CodableDiagnosisKey(keyData:rollingPeriod:
/// rollingStartNumber:transmissionRiskLevel:)`, compared with `contains`).
struct CodableDiagnosisKey: Codable, Equatable {
    let keyData: Data
    let rollingPeriod: ENIntervalNumber
    let rollingStartNumber: ENIntervalNumber
    let transmissionRiskLevel: ENRiskLevel
}

/// The server's configuration JSON as `getExposureConfiguration` decodes it (field names from that JSON).
struct CodableExposureConfiguration: Codable {
    let immediateDurationWeight: Double
    let nearDurationWeight: Double
    let mediumDurationWeight: Double
    let otherDurationWeight: Double
    let infectiousnessForDaysSinceOnsetOfSymptoms: [String: Int]
    let infectiousnessStandardWeight: Double
    let infectiousnessHighWeight: Double
    let reportTypeConfirmedTestWeight: Double
    let reportTypeConfirmedClinicalDiagnosisWeight: Double
    let reportTypeSelfReportedWeight: Double
    let reportTypeRecursiveWeight: Double
    let reportTypeNoneMap: Int
    let minimumRiskScore: ENRiskScore
    let attenuationDurationThresholds: [Int]
    let attenuationLevelValues: [ENRiskLevelValue]
    let daysSinceLastExposureLevelValues: [ENRiskLevelValue]
    let durationLevelValues: [ENRiskLevelValue]
    let transmissionRiskLevelValues: [ENRiskLevelValue]
}

extension Server {
    /// "The app asks the server for the URLs of any key files that the server generated after the last file that
    /// the app checked": the key server's files from `index` on.
    func getDiagnosisKeyFileURLs(startingAt index: Int, completion: @escaping (Result<[URL], Error>) -> Void) {
        guard let server = SampleAppBackend.keyServer else { return completion(.success([])) }
        SampleAppBackend.call {
            do {
                let files = try await server.files(startingAt: index)
                completion(.success(files.map { SampleAppBackend.filesURL.appendingPathComponent($0.name) }))
            } catch {
                completion(.failure(error))
            }
        }
    }

    /// Downloads one key file from the key server into `SampleAppBackend.downloads`.
    func downloadDiagnosisKeyFile(at remoteURL: URL, completion: @escaping (Result<[URL], Error>) -> Void) {
        let name = String(remoteURL.absoluteString.dropFirst(SampleAppBackend.filesURL.absoluteString.count))
        let server = SampleAppBackend.keyServer
        SampleAppBackend.call {
            do {
                guard let file = try await server?.file(named: name) else {
                    throw ENError(.badParameter, "the key server has no file \(name)")
                }
                let local = SampleAppBackend.downloads.appendingPathComponent(remoteURL.lastPathComponent)
                try file.data.write(to: local)
                completion(.success([local]))
            } catch {
                completion(.failure(error))
            }
        }
    }

    /// The earlier sample's key download ("downloads diagnosis keys from the server ... starting with the first
    /// key the app hasn't downloaded before"): at most `maximumCount` of the posted keys from `index` on.
    func getDiagnosisKeys(
        startingAt index: Int, maximumCount: Int, completion: (Result<[ENTemporaryExposureKey], Error>) -> Void
    ) {
        let keys = diagnosisKeys.dropFirst(index).prefix(maximumCount).map {
            ENTemporaryExposureKey(
                keyData: $0.keyData, rollingStartNumber: $0.rollingStartNumber, rollingPeriod: $0.rollingPeriod,
                transmissionRiskLevel: $0.transmissionRiskLevel)
        }
        completion(.success(keys))
    }
}
