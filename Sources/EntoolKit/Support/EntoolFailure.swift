import ENCore
import Foundation

/// A failure that ends `entool` with a documented exit status and a message on standard error.
struct EntoolFailure: Error {
    /// The exit status when a check failed (a signature did not verify, an expected match was absent).
    static let checkFailedExitCode: Int32 = 1
    /// The exit status for bad input or usage.
    static let badInputExitCode: Int32 = 2

    /// The message printed on standard error.
    var message: String
    /// The exit status.
    var exitCode: Int32

    /// A check failed: exit status 1.
    static func checkFailed(_ message: String) -> EntoolFailure {
        EntoolFailure(message: message, exitCode: checkFailedExitCode)
    }

    /// Bad input or usage: exit status 2.
    static func badInput(_ message: String) -> EntoolFailure {
        EntoolFailure(message: "error: \(message)", exitCode: badInputExitCode)
    }
}

extension EntoolFailure {
    /// `error` with its code, context and reason (`error: badFormat: a.zip: export.sig: ...`), ending `entool`
    /// with `exitCode` (bad input unless told otherwise).
    init(_ error: ENError, exitCode: Int32 = badInputExitCode) {
        let place = error.context.description
        self.init(
            message: "error: \(error.code): " + (place.isEmpty ? "" : "\(place): ") + error.reason, exitCode: exitCode)
    }
}

/// Writes a line to standard error.
func standardError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
