import ArgumentParser
import ENCore
import ENRiskV1
import ENRiskV2
import EntoolInputs
import Foundation

/// `entool score v1|v2`: scores pre-built exposures (version 1) or exposure windows (version 2) with a
/// configuration in the sample app server's JSON. Input and output use Apple's property names; see
/// `Documentation/RiskScoring.md`.
struct ScoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "score",
        abstract: "Score pre-built exposures (v1) or exposure windows (v2) with an exposure configuration.",
        discussion: """
            v2 input:  {"windows": [{"date": "YYYY-MM-DD", "diagnosisReportType": 1, "infectiousness": 1,
                        "calibrationConfidence": 3, "scanInstances": [{"minimumAttenuation": 40,
                        "typicalAttenuation": 45, "secondsSinceLastScan": 300}]}]}
            v1 input:  {"exposures": [{"date": "YYYY-MM-DD", "transmissionRiskLevel": 4,
                        "attenuationSegments": [{"attenuation": 45, "seconds": 600}]}]}
            Enums are Apple's raw numbers. CONFIG.json is the exposure-configuration JSON of the sample app's
            server (current or earlier format).
            Example: entool score v2 --config config.json --input windows.json --now 2020-07-10T12:00:00Z --json
            """
    )

    /// The scoring version.
    enum Version: String, ExpressibleByArgument, CaseIterable {
        case v1, v2
    }

    @Argument(help: "The scoring version: v1 or v2.")
    var version: Version

    @Option(help: "The exposure configuration JSON file.")
    var config: String

    @Option(help: "The exposures (v1) or windows (v2) JSON file.")
    var input: String

    @Option(help: "The time of scoring, ISO 8601 (e.g. 2020-07-10T12:00:00Z).")
    var now: String

    @OptionGroup var output: OutputOptions

    func run() throws {
        let configuration = try ENExposureConfiguration(jsonData: readInputFile(config, what: "configuration"))
        let inputData = try readInputFile(input, what: "input")
        guard let date = ScoreInput.parseTimestamp(now) else {
            throw EntoolFailure.badInput(
                "--now must be an ISO 8601 date and time such as 2020-07-10T12:00:00Z, got '\(now)'")
        }
        switch version {
        case .v1:
            let result = try ScoreInput.scoreV1(input: inputData, configuration: configuration, now: date)
            if output.json { try printJSON(result) } else { result.printText() }
        case .v2:
            let result = try ScoreInput.scoreV2(input: inputData, configuration: configuration, now: date)
            if output.json { try printJSON(result) } else { result.printText() }
        }
    }
}
