import ArgumentParser
import Logging

/// `--log-level`: what `enserver` logs, to standard error.
struct LoggingOptions: ParsableArguments {
    /// swift-log's levels, by their names.
    enum Level: String, ExpressibleByArgument, CaseIterable {
        case trace, debug, info, notice, warning, error, critical

        var level: Logger.Level { Logger.Level(rawValue: rawValue) ?? .info }
    }

    @Option(help: "What to log, to standard error.")
    var logLevel: Level = .info

    init() {}
}
