import ArgumentParser
import ENCore
import ENEvaluation
import EntoolInputs
import Foundation

/// `entool evaluate`: holds risk configurations against labelled encounters (`gaen-labelled-encounters`) and
/// reports who would have been notified. See `Documentation/entool.md` and `Documentation/Evaluation.md`.
struct EvaluateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate",
        abstract: "Evaluate risk configurations against labelled encounters.",
        discussion: """
            ENCOUNTERS.json is a gaen-labelled-encounters file; each CONFIG.json an evaluation configuration \
            (name, source, framework: the sample server's exposure configuration, app: the notification rule). \
            Key metadata missing from an encounter comes from --transmission-risk-level, --report-type, \
            --infectiousness and --days-since-exposure (Apple's raw values).
            Example: entool evaluate --encounters bus.json --config swisscovid.json --transmission-risk-level 1 \
            --days-since-exposure 0 --json
            """
    )

    /// The platform whose scoring is reproduced (`ENScoringPlatform`).
    enum Platform: String, ExpressibleByArgument, CaseIterable {
        case apple, android

        var scoring: ENScoringPlatform {
            switch self {
            case .apple: .apple
            case .android: .android
            }
        }
    }

    @Option(help: "The labelled encounters file.")
    var encounters: String

    @Option(help: "An evaluation configuration file (repeatable).")
    var config: [String] = []

    @Option(help: "Score as apple (default) or android.")
    var platform: Platform = .apple

    @Option(help: "Contact: within this many metres (default 2, inclusive).")
    var contactWithin: Double = 2

    @Flag(help: "Contact requires a distance strictly below --contact-within.")
    var contactExclusive = false

    @Option(help: "Contact: for at least this many minutes where the true duration is known (default 15).")
    var contactMinutes: Double = 15

    @Option(help: "Dates windows given by age, ISO 8601 (default: now).")
    var now: String?

    @Option(help: "Default transmission risk level, 0...8.")
    var transmissionRiskLevel: Int?

    @Option(help: "Default report type, Apple's raw value 0...5.")
    var reportType: Int?

    @Option(help: "Default infectiousness, Apple's raw value 0...2.")
    var infectiousness: Int?

    @Option(help: "Default days since exposure, for histograms.")
    var daysSinceExposure: Int?

    @Flag(help: "Sweep each configuration's threshold (ROC points, AUC).")
    var sweep = false

    @Option(help: "Search V2 thresholds and weights for the highest TPR with FPR at most this.")
    var optimize: Double?

    @Option(help: "Write a self-contained HTML report to this file.")
    var report: String?

    @Option(help: "Seeds the simulator's scan model that samples rssiSeries observations (default 1).")
    var seed: UInt64 = 1

    @OptionGroup var output: OutputOptions

    func run() throws {
        guard !config.isEmpty else { throw EntoolFailure.badInput("give at least one --config") }
        guard contactWithin >= 0, contactWithin.isFinite else {
            throw EntoolFailure.badInput("--contact-within must be at least 0")
        }
        guard contactMinutes >= 0, contactMinutes.isFinite else {
            throw EntoolFailure.badInput("--contact-minutes must be at least 0")
        }
        if let optimize, !(0...1).contains(optimize) {
            throw EntoolFailure.badInput("--optimize must be a false-positive rate in 0...1")
        }
        var date = Date()
        if let now {
            guard let parsed = ScoreInput.parseTimestamp(now) else {
                throw EntoolFailure.badInput("--now must be an ISO 8601 date and time, got '\(now)'")
            }
            date = parsed
        }
        let defaults = try defaultMetadata()
        let request = ENEvaluationRequest(
            contactRule: ENContactRule(
                withinMeters: contactWithin, exclusive: contactExclusive, minutes: contactMinutes),
            defaults: defaults, now: date, platform: platform.scoring)
        let set = try ENLabelledEncounterSet(
            jsonData: readInputFile(encounters, what: "encounters"), scanModel: .simulator(seed: seed))
        var configurations: [ENEvaluationConfiguration] = []
        for path in config {
            let file = URL(fileURLWithPath: path).lastPathComponent
            let configuration = try ENEvaluationConfiguration(
                jsonData: readInputFile(path, what: "configuration"), file: file)
            guard !configurations.contains(where: { $0.name == configuration.name }) else {
                throw EntoolFailure.badInput("configuration \(configuration.name) (\(file)): name is not unique")
            }
            configurations.append(configuration)
        }
        let results = try ENEvaluator.evaluate(set.encounters, configurations: configurations, request: request)
        let sweeps = sweep ? results.map { ENThresholdSweep($0.decisions) } : []
        var optimum: ENConfigurationSearch.Optimum?
        if let optimize {
            let base =
                configurations.first { if case .daySummary = $0.rule { true } else { false } } ?? configurations[0]
            optimum = try ENConfigurationSearch.optimize(
                set.encounters, base: base, request: request, maximumFalsePositiveRate: optimize)
        }
        if let report {
            let html = EvaluationReport.html(
                set: set, platform: platform.rawValue, request: request, configurations: configurations,
                results: results, sweeps: results.map { ENThresholdSweep($0.decisions) })
            do {
                try Data(html.utf8).write(to: URL(fileURLWithPath: report), options: .atomic)
            } catch {
                throw EntoolFailure.badInput("cannot write report '\(report)': \(error.localizedDescription)")
            }
        }
        if output.json {
            let object = try EvaluationJSON.object(
                set: set, platform: platform.rawValue, results: results, sweeps: sweeps, optimum: optimum,
                sweepRequested: sweep, optimizeRequested: optimize != nil)
            var data = try JSONSerialization.data(
                withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            data.append(0x0A)
            FileHandle.standardOutput.write(data)
        } else {
            printText(set: set, results: results, sweeps: sweeps, optimum: optimum)
        }
    }

    private func defaultMetadata() throws(EntoolFailure) -> ENKeyMetadata {
        var metadata = ENKeyMetadata()
        if let level = transmissionRiskLevel {
            guard (0...8).contains(level) else { throw .badInput("--transmission-risk-level must be in 0...8") }
            metadata.transmissionRiskLevel = ENRiskLevel(level)
        }
        if let reportType {
            guard let type = ENDiagnosisReportType(rawValue: UInt32(clamping: reportType)), reportType >= 0 else {
                throw .badInput("--report-type must be in 0...5")
            }
            metadata.reportType = type
        }
        if let infectiousness {
            guard let value = ENInfectiousness(rawValue: UInt32(clamping: infectiousness)), infectiousness >= 0 else {
                throw .badInput("--infectiousness must be in 0...2")
            }
            metadata.infectiousness = value
        }
        if let days = daysSinceExposure {
            guard days >= 0 else { throw .badInput("--days-since-exposure must be at least 0") }
            metadata.daysSinceExposure = days
        }
        return metadata
    }

    private func printText(
        set: ENLabelledEncounterSet, results: [ENEvaluator.Result], sweeps: [ENThresholdSweep],
        optimum: ENConfigurationSearch.Optimum?
    ) {
        let contacts = results.first?.metrics.contacts ?? 0
        print("\(set.name): \(set.encounters.count) encounters, \(contacts) contacts, platform \(platform.rawValue)")
        func rate(_ value: Double?) -> String { value.map { String(format: "%.3f", $0) } ?? "-" }
        for (index, result) in results.enumerated() {
            let m = result.metrics
            print(
                "\(result.name): notified \(m.notified) (\(m.notifiedRange.lowerBound)-\(m.notifiedRange.upperBound)), "
                    + "undetermined \(m.undetermined), TP \(m.truePositives) FP \(m.falsePositives) "
                    + "TN \(m.trueNegatives) FN \(m.falseNegatives), TPR \(rate(m.truePositiveRate)) "
                    + "FPR \(rate(m.falsePositiveRate)) precision \(rate(m.precision)) F1 \(rate(m.f1)) "
                    + "chance TPR \(rate(m.chanceTruePositiveRate))")
            if index < sweeps.count { print("  AUC \(rate(sweeps[index].areaUnderCurve))") }
        }
        if let optimum {
            print(
                "optimum: thresholds \(optimum.configuration.framework.attenuationDurationThresholds), TPR "
                    + "\(rate(optimum.truePositiveRate)) FPR \(rate(optimum.falsePositiveRate))")
        }
    }
}
