import ArgumentParser
import ENCore
import ENCrypto
import ENExportFormat
import ENRiskV1
import ENRiskV2
import EntoolInputs
import ExposureNotificationKit
import ExposureNotificationKitTesting
import Foundation

/// `entool detect`: the whole detection pipeline, run through `ENManager` as an app runs it.
///
/// The command builds a device: an ``ENEnvironment`` whose clock stands at `--now`, whose store is in memory,
/// whose only trusted key is `--public-key`, whose user says yes, and whose radio hands over the sightings of
/// SIGHTINGS.json when scanning starts (``ENReplayRadio``). It activates and enables a manager on it, calls
/// `detectExposures(configuration:diagnosisKeyURLs:)` with the files, and prints the summary with the exposure
/// windows (API version 2) or the exposure infos (version 1).
struct DetectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "detect",
        abstract: "Detect exposures in diagnosis-key files against recorded sightings, through ENManager.",
        discussion: """
            FILE is an export zip, or an export.bin-style file and its signature passed as two files with the \
            same base name (a.bin and a.sig). SIGHTINGS.json is {"sightings": [{"rpi": HEX, "aem": HEX, \
            "timestamp": ISO8601, "rssi": INT}]}. CONFIG.json is the exposure-configuration JSON of the sample \
            app's server. Every file must verify against --public-key (without --key-id or --key-version the key \
            is trusted for any key id or version the files name) before any key is used. Exit status: 0 done, \
            1 a file did not verify (nothing is printed on standard output), 2 bad input or usage.
            Example: entool detect --config config.json --sightings sightings.json --public-key pub.pem \
            --now 2020-04-02T12:00:00Z --json export-1.zip
            """
    )

    @Option(help: "The exposure configuration JSON file.")
    var config: String

    @Option(help: "The sightings JSON file: what the device heard.")
    var sightings: String

    @OptionGroup var trustedKey: TrustedKeyOptions

    @Option(
        name: .customLong("api-version"),
        help: "The API version the app declares: 1 (exposure infos) or 2 (exposure windows).")
    var apiVersion: Int = 2

    @Option(help: "The time of detection, ISO 8601 (e.g. 2020-07-10T12:00:00Z); the current time by default.")
    var now: String?

    @Argument(help: "The key files: zips, or .bin and .sig pairs.")
    var files: [String]

    @OptionGroup var output: OutputOptions

    /// The JSON shape of `entool detect --json`: the summary (Apple's properties, with the day summaries as
    /// `entool score v2` prints them), and the exposure windows (version 2) or the exposure infos as `entool
    /// score v1` prints them (version 1); the other list is left out.
    struct Result: Encodable {
        /// Apple's summary properties and the day summaries, in one object.
        struct Summary: Encodable {
            var properties: ScoreV1Output.Summary
            var daySummaries: [ScoreV2Output.Day]

            private enum CodingKeys: String, CodingKey { case daySummaries }

            func encode(to encoder: any Encoder) throws {
                try properties.encode(to: encoder)
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(daySummaries, forKey: .daySummaries)
            }
        }
        var summary: Summary
        var exposureWindows: [ExposureWindowJSON]?
        var exposureInfo: [ScoreV1Output.Info]?
    }

    func validate() throws {
        guard ENAPIVersion(rawValue: apiVersion) != nil else {
            throw ValidationError("--api-version must be 1 or 2, got \(apiVersion)")
        }
    }

    func run() async throws {
        let configuration = try ENExposureConfiguration(jsonData: readInputFile(config, what: "configuration"))
        let heard = try SightingsJSON.read(sightings)
        let trusted = try trustedKey.verificationKey()
        var date = Date()
        if let now {
            guard let parsed = ScoreInput.parseTimestamp(now) else {
                throw EntoolFailure.badInput(
                    "--now must be an ISO 8601 date and time such as 2020-07-10T12:00:00Z, got '\(now)'")
            }
            date = parsed
        }
        let version = ENAPIVersion(rawValue: apiVersion) ?? .version2
        let manager = ENManager(
            environment: ENEnvironment(
                consent: ENFixedConsent(true), radio: ENReplayRadio(sightings: heard), clock: ENFixedClock(date),
                storeLocation: .inMemory, trustedKeys: [trusted], apiVersion: version))
        manager.dispatchQueue = DispatchQueue(label: "entool detect")
        defer { manager.invalidate() }

        let result: Result
        do {
            result = try await detect(on: manager, configuration: configuration, version: version)
        } catch {
            // A file that does not verify is a failed check; any other failure is bad input.
            let verification = error.code == .badFormat && error.context.section == "export.sig"
            throw EntoolFailure(
                error, exitCode: verification ? EntoolFailure.checkFailedExitCode : EntoolFailure.badInputExitCode)
        }
        if output.json {
            try printJSON(result)
        } else {
            printText(result)
        }
    }

    /// Activates and enables `manager`, which hands the sightings to its store, and detects in the files.
    private func detect(
        on manager: ENManager, configuration: ENExposureConfiguration, version: ENAPIVersion
    ) async throws(ENError) -> Result {
        try await manager.activate()
        try await manager.setExposureNotificationEnabled(true)
        let summary = try await manager.detectExposures(
            configuration: configuration, diagnosisKeyURLs: files.map { URL(fileURLWithPath: $0) })
        let properties = ScoreV1Output.Summary(
            matchedKeyCount: summary.matchedKeyCount, daysSinceLastExposure: summary.daysSinceLastExposure,
            maximumRiskScore: summary.maximumRiskScore, maximumRiskScoreFullRange: summary.maximumRiskScoreFullRange,
            riskScoreSumFullRange: summary.riskScoreSumFullRange, attenuationDurations: summary.attenuationDurations)
        var result = Result(
            summary: Result.Summary(
                properties: properties, daySummaries: summary.daySummaries.map(ScoreV2Output.Day.init)))
        switch version {
        case .version1:
            result.exposureInfo = try await manager.getExposureInfo(summary: summary, userExplanation: "")
                .map(ScoreV1Output.Info.init)
        case .version2:
            result.exposureWindows = try await manager.getExposureWindows(summary: summary)
                .map(ExposureWindowJSON.init)
        }
        return result
    }

    private func printText(_ result: Result) {
        if let infos = result.exposureInfo {
            ScoreV1Output(summary: result.summary.properties, exposureInfo: infos).printText()
        }
        if let windows = result.exposureWindows {
            print("exposure windows           \(windows.count)")
            for window in windows {
                let seconds = window.scanInstances.reduce(0) { $0 + $1.secondsSinceLastScan }
                print(
                    "\(window.date)  report type \(window.diagnosisReportType)  infectiousness "
                        + "\(window.infectiousness)  \(window.scanInstances.count) scans  \(seconds) s")
            }
            ScoreV2Output(daySummaries: result.summary.daySummaries).printText()
        }
    }
}
