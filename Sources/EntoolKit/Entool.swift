package import ArgumentParser
import ENCore
import Foundation

/// `entool`: the package's command-line tool. See `Documentation/entool.md`.
///
/// Exit codes: 0 success; 1 a check failed (e.g. a signature did not verify); 2 bad input or usage.
package struct Entool: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "entool",
        abstract: "Exposure Notification tool: derive identifiers, manage signing keys, and more.",
        discussion: """
            Every subcommand takes --json for machine-readable output on standard output. Errors go to standard \
            error; the exit status is 1 when a check fails and 2 for bad input or usage. Hex is lower-case and \
            dates are UTC YYYY-MM-DD.
            """,
        version: "0.1.0",
        subcommands: [
            DeriveCommand.self,
            KeygenCommand.self,
            InspectCommand.self,
            VerifyCommand.self,
            ExportCommand.self,
            CertificateCommand.self,
            ScoreCommand.self,
            DemoCommand.self,
            DetectCommand.self,
            EvaluateCommand.self,
        ]
    )

    package init() {}

    /// Parses, runs, and maps every failure to the documented exit codes.
    package static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let failure as EntoolFailure {
            standardError(failure.message)
            Foundation.exit(failure.exitCode)
        } catch let error as ENError {
            let failure = EntoolFailure(error)
            standardError(failure.message)
            Foundation.exit(failure.exitCode)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                exit(withError: error)  // --help, --version: printed on standard output
            }
            standardError(fullMessage(for: error))
            Foundation.exit(
                code == .validationFailure ? EntoolFailure.badInputExitCode : EntoolFailure.checkFailedExitCode)
        }
    }
}
