package import ArgumentParser
import ENCore
import ENHTTPServer
import ENKeyServer
import Foundation
import Logging
import UnixSignals

/// `enserver`: a key server over HTTP that behaves as Google's exposure-notifications-server does. See
/// `Documentation/enserver.md`.
///
/// Exit status: 0 done; 1 the server or an export failed; 2 bad options or input.
package struct Enserver: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "enserver",
        abstract: "Exposure Notification key server: Google's publish API v1, signed export files, index.txt.",
        version: "0.1.0",
        subcommands: [ServeCommand.self, ExportCommand.self, ImportCommand.self, MirrorCommand.self],
        defaultSubcommand: ServeCommand.self
    )

    package init() {}

    /// Parses `arguments` (without the program's name) with the options the environment and the configuration file
    /// add (``EnserverConfigurationSources``).
    package static func parse(_ arguments: [String], environment: [String: String]) throws -> any ParsableCommand {
        try parseAsRoot(try EnserverConfigurationSources.arguments(arguments, environment: environment))
    }

    /// Parses, runs, and maps every failure to the documented exit status.
    package static func main() async {
        do {
            var command = try parse(Array(CommandLine.arguments.dropFirst()), environment: EnserverEnvironment.current)
            bootstrapLogging(for: command)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let failure as EnserverFailure {
            FileHandle.standardError.write(Data("enserver: \(failure.message)\n".utf8))
            Foundation.exit(failure.exitCode)
        } catch {
            let status = exitStatus(for: error)
            if status == 2 {
                FileHandle.standardError.write(Data("\(fullMessage(for: error))\n".utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }

    /// Logs to standard error from `--log-level` on; once a process.
    private static func bootstrapLogging(for command: any ParsableCommand) {
        LoggingOptions.bootstrap(
            (command as? ServeCommand)?.logging.logLevel ?? (command as? ExportCommand)?.logging.logLevel
                ?? (command as? ImportCommand)?.logging.logLevel ?? (command as? MirrorCommand)?.logging.logLevel)
    }

    /// The exit status of an error `parseAsRoot` or a command threw: 2 for bad options (an unknown option, a
    /// missing or malformed value; ArgumentParser's own status for them is 64), 0 for `--help` and `--version`,
    /// otherwise ArgumentParser's status (1 for a failure).
    package static func exitStatus(for error: any Error) -> Int32 {
        if let failure = error as? EnserverFailure { return failure.exitCode }
        let code = exitCode(for: error)
        return code == .validationFailure ? 2 : code.rawValue
    }
}

/// `enserver [serve] OPTIONS --host H --port P`: serves until stopped, and cuts due batches every
/// `--export-interval`.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Serve the publish API, the export files and index.txt over HTTP.")

    @OptionGroup var options: EnserverOptions

    @OptionGroup var network: ServeNetworkOptions

    @OptionGroup var logging: LoggingOptions

    @Option(help: "The address to listen on.")
    var host: String = "127.0.0.1"

    @Option(help: "The port to listen on (0: any free port, printed at start).")
    var port: Int = 8080

    @Option(help: "How often this instance cuts the batches that are due (e.g. 5m); 0 leaves it to `enserver export`.")
    var exportInterval: String = "5m"

    @Option(
        help: """
            Tests and simulations only: run on a clock that starts at this ISO 8601 date and moves only by \
            POST /v1/test/clock; POST /v1/test/export cuts what is due. Implies --export-interval 0.
            """)
    var testClock: String?

    @Option(
        help: """
            How long index.txt (and /health) is answered from memory before the storage is read again (e.g. 5s); \
            files another instance exports are listed after at most this long.
            """)
    var indexRefresh: String = "5s"

    @Option(help: "The most bytes of export files kept in memory (the least recently used go first).")
    var fileCacheBytes: Int = 256 << 20

    @OptionGroup var importing: ImportOptions

    @Option(help: "With --import-name: how often this instance imports the other server's new files (e.g. 5m).")
    var importInterval: String = "5m"

    func run() async throws {
        let listeners = try network.listeners(host: host, port: port)
        try network.check(host: host, verifier: options.verifier, tls: listeners.tls != nil)
        let rateLimiter = try network.rateLimiter()
        let logger = Logger(label: "enserver")
        if !ListenerOptions.isLoopback(network.adminHost) {
            logger.warning(
                "--admin-host \(network.adminHost) is not loopback: /metrics and any --test-clock routes are reachable from the network"
            )
        }
        var controlled: TestClock?
        if let testClock {
            controlled = TestClock(start: try OptionDate.date(testClock, option: "--test-clock"))
            logger.warning("running on a test clock that clients set: never use --test-clock in production")
        }
        let interval =
            exportInterval == "0" || controlled != nil
            ? 0 : try OptionDuration.seconds(exportInterval, option: "--export-interval")
        let refresh = try OptionDuration.seconds(indexRefresh, option: "--index-refresh")
        let importConfiguration = try importing.configuration(required: false)
        let importEvery = try OptionDuration.seconds(importInterval, option: "--import-interval")
        guard fileCacheBytes >= 0 else {
            throw EnserverFailure("--file-cache-bytes \(fileCacheBytes): want 0 or more bytes")
        }
        let clock: @Sendable () -> Date
        if let controlled { clock = { controlled.now } } else { clock = { Date() } }
        if options.ephemeralRevisionTokens {
            logger.warning(
                "--ephemeral-revision-tokens: revision tokens this process issues break after a restart and on other instances"
            )
        }
        try await options.withExportGroup(clock: clock, logger: logger, requiresRevisionTokenKeys: true) {
            group, publish in
            // One cache per export configuration, sharing --file-cache-bytes.
            let caches = group.exporters.map {
                ExportFileCache(
                    exporter: $0, indexLifetime: .milliseconds(Int64(refresh * 1000)),
                    capacityBytes: fileCacheBytes / group.exporters.count)
            }
            let http = KeyServerHTTP(
                exporter: group.exporters[0], publish: publish, logger: logger, testClock: controlled,
                cache: caches[0], rateLimiter: rateLimiter,
                clientAddress: ClientAddress(trustedProxies: network.trustedProxy),
                additionalCaches: Array(caches.dropFirst()))
            _ = try await http.withRunningServers(listeners, shutdownSignals: [.sigterm, .sigint]) { bound in
                // The lines scripts and tests read the ports from, whatever the log level.
                Self.announce(
                    "enserver listening on \(listeners.tls == nil ? "http" : "https")://\(host):\(bound.port)")
                Self.announce(
                    "enserver admin listening on \(listeners.tls == nil ? "http" : "https")://\(network.adminHost):"
                        + "\(bound.adminPort ?? 0)")
                await withTaskGroup(of: Void.self) { group in
                    if let importConfiguration {
                        let importer = ENExportImporter(
                            storage: publish.storage, configuration: importConfiguration, clock: clock)
                        group.addTask { await http.importLoop(importer, every: importEvery) }
                    }
                    group.addTask {
                        if interval > 0 {
                            await http.exportLoop(every: interval)
                        } else {
                            while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
                        }
                    }
                }
                return true
            }
        }
    }
}

extension ServeCommand {
    /// Prints a line on standard output at once.
    static func announce(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

/// `enserver export OPTIONS [--now ISO8601]`: cuts every batch that is due, prints the new files, and exits.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Cut every export batch that is due, write its files, and exit.")

    @OptionGroup var options: EnserverOptions

    @OptionGroup var logging: LoggingOptions

    @Option(help: "The time to export at (ISO 8601), instead of the clock.")
    var now: String?

    func run() async throws {
        let fixed = try now.map { try OptionDate.date($0, option: "--now") } ?? Date()
        let files = try await options.withExportGroup(clock: { fixed }, logger: Logger(label: "enserver")) {
            group, _ in
            do throws(ENError) {
                let names = try await group.publishNames()
                try await group.deleteExpired()
                return names
            } catch {
                throw EnserverFailure(error)
            }
        }
        for name in files { print(name) }
    }
}

extension KeyServerHTTP {
    /// Imports the other server's new files every `interval` seconds until cancelled; a failure is logged and retried
    /// next time (a file that failed waits its retry interval).
    func importLoop(_ importer: ENExportImporter, every interval: TimeInterval) async {
        while !Task.isCancelled {
            do {
                let result = try await importer.run()
                if !result.importedFiles.isEmpty || !result.failedFiles.isEmpty {
                    logger.info(
                        "imported",
                        metadata: [
                            "import": "\(importer.configuration.name)", "files": "\(result.importedFiles.count)",
                            "failed": "\(result.failedFiles.count)", "keys": "\(result.insertedKeys)",
                            "revised": "\(result.revisedKeys)",
                        ])
                }
                for failure in result.failedFiles {
                    logger.error("import of \(failure.url) failed: \(failure.error.reason)")
                }
            } catch {
                logger.error("import \(importer.configuration.name) failed: \(error)")
            }
            try? await Task.sleep(for: .seconds(interval))
        }
    }

    /// Cuts due batches and drops expired keys and files every `interval` seconds until cancelled; a failure is
    /// logged and retried next time (a batch another instance holds under lease is skipped, one whose exporter died
    /// is redone after the lease).
    func exportLoop(every interval: TimeInterval) async {
        while !Task.isCancelled {
            do {
                let files = try await exportAll()
                if !files.isEmpty {
                    metrics.exported(files: files.count)
                    logger.info("exported", metadata: ["files": "\(files.count)"])
                }
                let dropped = try await exportGroup.deleteExpired()
                if !files.isEmpty || dropped > 0 { invalidateCaches() }
                if dropped > 0 { logger.info("retention", metadata: ["keys dropped": "\(dropped)"]) }
            } catch {
                logger.error("export failed: \(error)")
            }
            try? await Task.sleep(for: .seconds(interval))
        }
    }
}
