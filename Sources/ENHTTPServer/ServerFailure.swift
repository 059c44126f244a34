package import ENCore

/// Why a server command (`enserver`, `enverify`) stopped: a message for standard error and the exit status (2: bad
/// options or input; 1: the server, an export or the storage failed).
package struct ServerFailure: Error, Sendable, CustomStringConvertible {
    /// What went wrong, naming the option when an option was wrong.
    package var message: String
    /// The exit status.
    package var exitCode: Int32

    /// A failure with `message` and `exitCode` (2 unless told).
    package init(_ message: String, exitCode: Int32 = 2) {
        self.message = message
        self.exitCode = exitCode
    }

    /// A failure for `error`, after `option` when one is named: 2 for bad parameters and formats, 1 otherwise.
    package init(_ error: ENError, option: String? = nil) {
        let text = option.map { "\($0): \(error)" } ?? "\(error)"
        self.init(text, exitCode: error.code == .badParameter || error.code == .badFormat ? 2 : 1)
    }

    /// The message.
    package var description: String { message }
}
