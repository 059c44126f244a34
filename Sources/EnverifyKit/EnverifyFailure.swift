package import ENCore

/// Why `enverify` stopped: a message for standard error and the exit status (2: bad options or input; 1: the
/// server or the storage failed).
package struct EnverifyFailure: Error, Sendable {
    /// What went wrong, naming the option when an option was wrong.
    package var message: String
    /// The exit status.
    package var exitCode: Int32

    /// A failure with `message` and `exitCode` (2 unless told).
    package init(_ message: String, exitCode: Int32 = 2) {
        self.message = message
        self.exitCode = exitCode
    }

    /// A failure for `error`: 2 for bad parameters and formats, 1 otherwise.
    package init(_ error: ENError, option: String? = nil) {
        let text = option.map { "\($0): \(error)" } ?? "\(error)"
        self.init(text, exitCode: error.code == .badParameter || error.code == .badFormat ? 2 : 1)
    }
}
