package import ArgumentParser
import ENCore
import ENHTTPServer
import ENVerificationServer
import Foundation

/// `enverify`: a verification server over HTTP that behaves as Google's exposure-notifications-verification-server
/// does, for one realm. See `Documentation/enverify.md`.
///
/// Exit status: 0 done; 1 the server or the storage failed; 2 bad options or input.
package struct Enverify: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "enverify",
        abstract: "Exposure Notification verification server: Google's device API (verify, certificate) and admin API.",
        version: "0.1.0",
        subcommands: [APIKeyCommand.self, EnverifyServeCommand.self]
    )

    package init() {}

    /// Parses, runs, and maps every failure to the documented exit status: 2 for bad options (ArgumentParser's
    /// errors included), 1 for a failing server or storage.
    package static func main() async {
        let command: any ParsableCommand
        do {
            command = try parseAsRoot(Array(CommandLine.arguments.dropFirst()))
        } catch {
            if exitCode(for: error) == .success { exit(withError: error) }
            FileHandle.standardError.write(Data("enverify: \(fullMessage(for: error))\n".utf8))
            Foundation.exit(2)
        }
        LoggingOptions.bootstrap((command as? EnverifyServeCommand)?.logging.logLevel)
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                var command = command
                try command.run()
            }
        } catch let failure as EnverifyFailure {
            FileHandle.standardError.write(Data("enverify: \(failure.message)\n".utf8))
            Foundation.exit(failure.exitCode)
        } catch {
            if exitCode(for: error) == .success { exit(withError: error) }
            FileHandle.standardError.write(Data("enverify: \(fullMessage(for: error))\n".utf8))
            Foundation.exit(exitCode(for: error) == .validationFailure ? 2 : 1)
        }
    }
}

/// `enverify apikey create`: API keys.
struct APIKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apikey", abstract: "Manage API keys.", subcommands: [APIKeyCreateCommand.self])
}

/// `enverify apikey create (--database FILE | --postgres URL) --type device|admin --name NAME`: prints the new key
/// on standard output, the only time it is shown.
struct APIKeyCreateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create", abstract: "Create an API key and print it on standard output (shown only once).")

    @OptionGroup var storage: EnverifyStorageOptions

    @Option(help: "The key's type: device (apps: verify, certificate) or admin (issue, check and expire codes).")
    var type: String

    @Option(help: "The key's name (unique).")
    var name: String

    func run() async throws {
        let keyType: ENVerificationAPIKeyType
        switch type {
        case "device": keyType = .device
        case "admin": keyType = .admin
        default: throw EnverifyFailure("--type \(type): want device or admin")
        }
        let key = try await storage.withService(configuration: ENVerificationConfiguration()) { service in
            do throws(ENError) {
                return try await service.createAPIKey(name: name, type: keyType)
            } catch {
                throw EnverifyFailure(error, option: error.code == .badParameter ? "--name" : nil)
            }
        }
        print(key)
    }
}
