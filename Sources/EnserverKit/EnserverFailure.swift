package import ENHTTPServer

/// Why `enserver` stopped: a message for standard error and the exit status (2: bad options or input; 1: the
/// server or an export failed). The failure type every server command shares.
package typealias EnserverFailure = ServerFailure
