import ArgumentParser
import ENHTTPServer
import Foundation

/// The options of `enserver serve` about the network: who may listen where. Closed by default: a public address
/// needs certificate verification and TLS (or a TLS proxy said to be in front).
struct ServeNetworkOptions: ParsableArguments {
    @Option(
        help: """
            The admin listener's address: /metrics and the --test-clock routes, never on the public listener. \
            Loopback unless you say otherwise.
            """)
    var adminHost: String = "127.0.0.1"

    @Option(help: "The admin listener's port (0: any free port, printed at start).")
    var adminPort: Int = 8081

    /// HTTPS, the connection limits and `--behind-tls-proxy`, as `enverify serve` has them.
    @OptionGroup var listener: ListenerOptions

    @Option(help: "Publish requests (chaff included) a client may send at once; 0 turns the rate limit off.")
    var publishBurst: Int = 60

    @Option(help: "Publish requests a client may send a minute once its burst is spent.")
    var publishRate: Double = 60

    @Option(
        name: .customLong("trusted-proxy"),
        help: "A proxy's address (repeat for several) whose X-Forwarded-For names the client for the rate limit.")
    var trustedProxy: [String] = []

    init() {}

    /// The listeners and their limits, from the options.
    func listeners(host: String, port: Int) throws(EnserverFailure) -> KeyServerListeners {
        for (value, option) in [(port, "--port"), (adminPort, "--admin-port")] where !(0...65_535).contains(value) {
            throw EnserverFailure("\(option) \(value): want a port from 0 to 65535")
        }
        return KeyServerListeners(
            host: host, port: port, adminHost: adminHost, adminPort: adminPort, limits: try listener.limits(),
            tls: try listener.tls())
    }

    /// The publish rate limiter, unless `--publish-burst 0` turns it off.
    func rateLimiter() throws(EnserverFailure) -> PublishRateLimiter? {
        guard publishBurst != 0 else { return nil }
        guard publishBurst > 0 else { throw EnserverFailure("--publish-burst \(publishBurst): want 0 or more") }
        guard publishRate.isFinite, publishRate > 0 else {
            throw EnserverFailure("--publish-rate \(publishRate): want a positive number of requests a minute")
        }
        return PublishRateLimiter(burst: publishBurst, ratePerMinute: publishRate)
    }

    /// Refuses what must not be served on `host` and ``adminHost``: accept-all verification off loopback, and plain
    /// HTTP off loopback on either listener unless a TLS proxy is said to be in front.
    func check(host: String, verifier: EnserverOptions.VerifierKind, tls: Bool) throws(EnserverFailure) {
        if verifier == .acceptAll && !ListenerOptions.isLoopback(host) {
            throw EnserverFailure(
                "--verifier accept-all lets anyone publish keys: it is only allowed on a loopback --host "
                    + "(127.0.0.1, ::1, localhost), not on \(host); use --verifier certificate")
        }
        try listener.checkPlainHTTP(host: host, tls: tls)
        try listener.checkPlainHTTP(host: adminHost, tls: tls, option: "--admin-host")
    }
}
