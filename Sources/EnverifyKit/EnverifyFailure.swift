package import ENHTTPServer

/// Why `enverify` stopped: a message for standard error and the exit status (2: bad options or input; 1: the
/// server or the storage failed). The failure type every server command shares.
package typealias EnverifyFailure = ServerFailure
