package import ArgumentParser
package import Logging

/// `--log-level`: what a server (`enserver`, `enverify`) logs, to standard error, through ``ServerLogHandler``.
package struct LoggingOptions: ParsableArguments {
    /// swift-log's levels, by their names.
    package enum Level: String, ExpressibleByArgument, CaseIterable, Sendable {
        case trace, debug, info, notice, warning, error, critical

        /// The swift-log level of this name.
        package var level: Logger.Level { Logger.Level(rawValue: rawValue) ?? .info }
    }

    @Option(help: "What to log, to standard error.")
    package var logLevel: Level = .info

    package init() {}

    /// Sends the process's log lines to standard error through ``ServerLogHandler`` at `level` (info when `nil`);
    /// once a process, as `LoggingSystem` allows.
    package static func bootstrap(_ level: Level?) {
        let level = level?.level ?? .info
        LoggingSystem.bootstrap { label in ServerLogHandler(label: label, level: level) }
    }
}
