import ENCore

/// Why `enserver` stopped: a message for standard error and the exit status (2: bad options or input; 1: the
/// server or an export failed).
package struct EnserverFailure: Error, Sendable {
    package var message: String
    package var exitCode: Int32

    init(_ message: String, exitCode: Int32 = 2) {
        self.message = message
        self.exitCode = exitCode
    }

    init(_ error: ENError) {
        self.init("\(error)", exitCode: error.code == .badParameter || error.code == .badFormat ? 2 : 1)
    }
}
