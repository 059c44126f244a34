import ArgumentParser
import ENCore
import ENCrypto
import ENExportFormat
import ENHTTPServer
import ENKeyServer
import Foundation
import Logging

/// `enserver import OPTIONS --import-name N --import-index URL --import-region R --import-public-key ID/V=PEM`:
/// imports the files of another key server's `index.txt` that are due (Google's `export-importer`), prints them, and
/// exits.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import another key server's export files (its index.txt), verified against its public keys.")

    @OptionGroup var options: EnserverOptions

    @OptionGroup var logging: LoggingOptions

    @OptionGroup var importing: ImportOptions

    @Option(help: "The time to import at (ISO 8601), instead of the clock.")
    var now: String?

    func run() async throws {
        let fixed = try now.map { try OptionDate.date($0, option: "--now") } ?? Date()
        guard let configuration = try importing.configuration(required: true) else { return }
        let result = try await options.withServer(clock: { fixed }, logger: Logger(label: "enserver")) {
            _, publish in
            do throws(ENError) {
                return try await ENExportImporter(
                    storage: publish.storage, configuration: configuration, clock: { fixed }
                ).run()
            } catch {
                throw EnserverFailure(error)
            }
        }
        for file in result.importedFiles { print(file) }
        FileHandle.standardError.write(
            Data(
                ("enserver: import \(configuration.name): \(result.newFiles) new files, \(result.importedFiles.count) "
                    + "imported, \(result.failedFiles.count) failed; \(result.insertedKeys) keys inserted, "
                    + "\(result.revisedKeys) revised, \(result.droppedKeys) dropped\n").utf8))
        if !result.failedFiles.isEmpty {
            let reasons = result.failedFiles.map { "\($0.url): \($0.error.reason)" }.joined(separator: "\n")
            throw EnserverFailure(
                "\(result.failedFiles.count) files failed and will be tried again:\n\(reasons)", exitCode: 1)
        }
    }
}
