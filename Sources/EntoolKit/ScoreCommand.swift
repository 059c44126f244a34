import ArgumentParser
package import ENCore
import ENRiskV1
import ENRiskV2
package import Foundation

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

/// Parsing, checking and scoring of `entool score` input, apart from the command so that it reads as one unit.
package enum ScoreInput {
    struct V1Input: Decodable {
        struct Exposure: Decodable {
            var date: String
            var transmissionRiskLevel: Int
            var attenuationSegments: [Segment]
        }
        struct Segment: Decodable {
            var attenuation: Int
            var seconds: Double
        }
        var exposures: [Exposure]
    }

    struct V2Input: Decodable {
        var windows: [ExposureWindowJSON]
    }

    package static func scoreV1(input: Data, configuration: ENExposureConfiguration, now: Date) throws -> ScoreV1Output
    {
        let decoded = try decode(V1Input.self, from: input)
        var exposures: [ENScoringV1.Exposure] = []
        for (index, exposure) in decoded.exposures.enumerated() {
            let path = "exposures[\(index)]"
            var segments: [ENScoringV1.AttenuationSegment] = []
            for (segmentIndex, segment) in exposure.attenuationSegments.enumerated() {
                let segmentPath = "\(path).attenuationSegments[\(segmentIndex)]"
                guard segment.seconds >= 0, segment.seconds <= 1e9 else {
                    throw ENError.badParameter("\(segmentPath).seconds must be 0...1e9, got \(segment.seconds)")
                }
                segments.append(
                    ENScoringV1.AttenuationSegment(
                        attenuation: try attenuation(segment.attenuation, "\(segmentPath).attenuation"),
                        duration: segment.seconds))
            }
            guard (0...8).contains(exposure.transmissionRiskLevel) else {
                throw ENError.badParameter(
                    "\(path).transmissionRiskLevel must be 0...8, got \(exposure.transmissionRiskLevel)")
            }
            exposures.append(
                ENScoringV1.Exposure(
                    date: try day(exposure.date, "\(path).date"),
                    transmissionRiskLevel: ENRiskLevel(exposure.transmissionRiskLevel), attenuationSegments: segments))
        }
        let result = ENScoringV1.evaluate(exposures, configuration: configuration, now: now)
        return ScoreV1Output(result)
    }

    package static func scoreV2(input: Data, configuration: ENExposureConfiguration, now: Date) throws -> ScoreV2Output
    {
        let decoded = try decode(V2Input.self, from: input)
        let windows = try decoded.windows.enumerated().map { (index, window) throws(ENError) in
            try window.window(where: "windows[\(index)]")
        }
        return ScoreV2Output(ENScoringV2.daySummaries(for: windows, configuration: configuration, now: now))
    }

    // MARK: Helpers

    /// Decodes JSON input; a decoding error becomes `badFormat` naming the path of what was wrong, with `file`
    /// (the input's name) as its context.
    static func decode<T: Decodable>(_ type: T.Type, from data: Data, file: String = "input") throws(ENError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch let error as DecodingError {
            throw ENError.badFormat(describe(error), context: ENError.Context(file: file))
        } catch {
            throw ENError.badFormat("\(error)", context: ENError.Context(file: file))
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
                .trimmingCharacters(in: CharacterSet(charactersIn: "."))
        }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = path(context.codingPath)
            return "missing \(parent.isEmpty ? "" : parent + ".")\(key.stringValue)"
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath).isEmpty ? "top level" : path(context.codingPath)) must be \(type)"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)) must be \(type), got null"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON" : "\(path(context.codingPath)) is invalid"
        @unknown default:
            return "not valid input"
        }
    }

    static func attenuation(_ value: Int, _ path: String) throws(ENError) -> ENAttenuation {
        guard let attenuation = ENAttenuation(exactly: value) else {
            throw ENError.badParameter("\(path) must be 0...255 dB, got \(value)")
        }
        return attenuation
    }

    /// Parses `YYYY-MM-DD` as the UTC midnight that starts the day.
    static func day(_ text: String, _ path: String) throws(ENError) -> Date {
        guard let date = parseDay(text) else {
            throw ENError.badParameter("\(path) must be a date YYYY-MM-DD, got '\(text)'")
        }
        return date
    }

    static func parseDay(_ text: String) -> Date? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: year, month: month, day: day)
        guard let date = calendar.date(from: components),
            calendar.dateComponents([.year, .month, .day], from: date) == components
        else { return nil }
        return date
    }

    /// Formats the UTC day of `date` as `YYYY-MM-DD`.
    static func formatDay(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0)
    }

    /// Parses an ISO 8601 date and time (with or without fractional seconds), or a bare date as UTC midnight.
    static func parseTimestamp(_ text: String) -> Date? {
        RFC3339.date(from: text) ?? parseDay(text)
    }
}

/// The JSON shape of `entool score v1 --json`.
package struct ScoreV1Output: Encodable {
    struct Summary: Encodable {
        var matchedKeyCount: UInt64
        var daysSinceLastExposure: Int
        var maximumRiskScore: ENRiskScore
        var maximumRiskScoreFullRange: Double
        var riskScoreSumFullRange: Double
        var attenuationDurations: [Double]
    }
    struct Info: Encodable {
        var date: String
        var duration: Double
        var attenuationValue: ENAttenuation
        var attenuationDurations: [Double]
        var totalRiskScore: ENRiskScore
        var totalRiskScoreFullRange: Double
        var transmissionRiskLevel: ENRiskLevel

        init(_ info: ENExposureInfo) {
            date = ScoreInput.formatDay(info.date)
            duration = info.duration
            attenuationValue = info.attenuationValue
            attenuationDurations = info.attenuationDurations
            totalRiskScore = info.totalRiskScore
            totalRiskScoreFullRange = info.totalRiskScoreFullRange
            transmissionRiskLevel = info.transmissionRiskLevel
        }
    }
    var summary: Summary
    var exposureInfo: [Info]
}

extension ScoreV1Output {
    init(_ result: ENScoringV1.Result) {
        let s = result.summary
        summary = Summary(
            matchedKeyCount: s.matchedKeyCount, daysSinceLastExposure: s.daysSinceLastExposure,
            maximumRiskScore: s.maximumRiskScore, maximumRiskScoreFullRange: s.maximumRiskScoreFullRange,
            riskScoreSumFullRange: s.riskScoreSumFullRange, attenuationDurations: s.attenuationDurations)
        exposureInfo = result.exposureInfo.map(Info.init)
    }

    /// Prints the result for a person.
    func printText() {
        print("matched keys               \(summary.matchedKeyCount)")
        print("days since last exposure   \(summary.daysSinceLastExposure)")
        print(
            "maximum risk score         \(summary.maximumRiskScore) (full range \(summary.maximumRiskScoreFullRange))")
        print("risk score sum (full)      \(summary.riskScoreSumFullRange)")
        print(
            "attenuation durations (s)  \(summary.attenuationDurations.map { String(Int($0)) }.joined(separator: " "))")
        for info in exposureInfo {
            print(
                "\(info.date)  duration \(Int(info.duration)) s  attenuation value \(info.attenuationValue)  "
                    + "score \(info.totalRiskScore) (full range \(info.totalRiskScoreFullRange))")
        }
    }
}

/// The JSON shape of `entool score v2 --json`; absent per-type items print as `null`.
package struct ScoreV2Output: Encodable {
    struct Item: Encodable {
        var maximumScore: Double
        var scoreSum: Double
        var weightedDurationSum: Double

        init(_ item: ENExposureSummaryItem) {
            maximumScore = item.maximumScore
            scoreSum = item.scoreSum
            weightedDurationSum = item.weightedDurationSum
        }
    }
    struct Day: Encodable {
        var date: String
        var daySummary: Item
        var confirmedTestSummary: Item?
        var confirmedClinicalDiagnosisSummary: Item?
        var selfReportedSummary: Item?
        var recursiveSummary: Item?

        init(_ summary: ENExposureDaySummary) {
            date = ScoreInput.formatDay(summary.date)
            daySummary = Item(summary.daySummary)
            confirmedTestSummary = summary.confirmedTestSummary.map(Item.init)
            confirmedClinicalDiagnosisSummary = summary.confirmedClinicalDiagnosisSummary.map(Item.init)
            selfReportedSummary = summary.selfReportedSummary.map(Item.init)
            recursiveSummary = summary.recursiveSummary.map(Item.init)
        }

        enum CodingKeys: String, CodingKey {
            case date, daySummary, confirmedTestSummary, confirmedClinicalDiagnosisSummary, selfReportedSummary
            case recursiveSummary
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(date, forKey: .date)
            try container.encode(daySummary, forKey: .daySummary)
            try container.encode(confirmedTestSummary, forKey: .confirmedTestSummary)
            try container.encode(confirmedClinicalDiagnosisSummary, forKey: .confirmedClinicalDiagnosisSummary)
            try container.encode(selfReportedSummary, forKey: .selfReportedSummary)
            try container.encode(recursiveSummary, forKey: .recursiveSummary)
        }
    }
    var daySummaries: [Day]
}

extension ScoreV2Output {
    init(_ summaries: [ENExposureDaySummary]) {
        daySummaries = summaries.map(Day.init)
    }

    /// Prints the day summaries for a person.
    func printText() {
        if daySummaries.isEmpty { print("no scored windows") }
        for day in daySummaries {
            let item = day.daySummary
            print(
                "\(day.date)  maximum score \(Int(item.maximumScore)) s  score sum \(Int(item.scoreSum)) s  "
                    + "weighted duration \(Int(item.weightedDurationSum)) s")
        }
    }
}
