import ArgumentParser
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

    @Option(help: "Serve HTTPS with this PEM certificate chain (the server's certificate first); needs --tls-key.")
    var tlsCertificate: String?

    @Option(help: "The PEM private key of --tls-certificate (a file only its owner may read).")
    var tlsKey: String?

    @Flag(
        name: .customLong("behind-tls-proxy"),
        help: "A non-loopback --host is served in plain HTTP because a TLS proxy in front terminates TLS.")
    var behindTLSProxy = false

    @Option(help: "Close a connection with nothing read or written for this long (e.g. 60s, 2m).")
    var idleTimeout: String = "60s"

    @Option(help: "Close a connection whose request, head and body, has not arrived this long after its first byte.")
    var readTimeout: String = "30s"

    @Option(help: "The most connections open at once; more wait to be accepted.")
    var maxConnections: Int = 1024

    @Option(help: "The largest request body in bytes; past it nothing more is read and the connection is closed.")
    var maxBodySize: Int = 64_000

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
        for (value, option) in [(maxConnections, "--max-connections"), (maxBodySize, "--max-body-size")]
        where value < 1 {
            throw EnserverFailure("\(option) \(value): want a positive number")
        }
        let limits = HTTPLimits(
            idleTimeout: .seconds(try EnserverOptions.duration(idleTimeout, option: "--idle-timeout")),
            readTimeout: .seconds(try EnserverOptions.duration(readTimeout, option: "--read-timeout")),
            maximumConnections: maxConnections, maximumBodyBytes: maxBodySize)
        return KeyServerListeners(
            host: host, port: port, adminHost: adminHost, adminPort: adminPort, limits: limits, tls: try tls())
    }

    /// The HTTPS certificate and key, read and checked, when the options name them.
    func tls() throws(EnserverFailure) -> KeyServerTLS? {
        switch (tlsCertificate, tlsKey) {
        case (nil, nil): return nil
        case (.some, nil): throw EnserverFailure("--tls-certificate needs --tls-key")
        case (nil, .some): throw EnserverFailure("--tls-key needs --tls-certificate")
        case (.some(let certificate), .some(let key)):
            #if TLS
                let files = KeyServerTLS(
                    certificateChainPEM: try EnserverOptions.read(
                        certificate, option: "--tls-certificate", secret: false
                    ) { $0 },
                    privateKeyPEM: try EnserverOptions.read(key, option: "--tls-key") { $0 })
                _ = try files.configuration()
                return files
            #else
                _ = (certificate, key)
                throw EnserverFailure(
                    "--tls-certificate, --tls-key: this enserver was built without the TLS trait; serve behind a TLS "
                        + "proxy (--behind-tls-proxy)")
            #endif
        }
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

    /// Whether `host` names the loopback interface: `localhost`, `::1` or an address in 127.0.0.0/8.
    static func isLoopback(_ host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name == "localhost" || name == "::1" { return true }
        var ipv6 = in6_addr()
        if inet_pton(AF_INET6, name, &ipv6) == 1 {
            // ::1 in any spelling, or an IPv4-mapped loopback address (::ffff:127.x.y.z).
            let bytes = withUnsafeBytes(of: ipv6) { Array($0) }
            if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }
            return bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff && bytes[12] == 127
        }
        var ipv4 = in_addr()
        guard inet_pton(AF_INET, name, &ipv4) == 1 else { return false }
        return withUnsafeBytes(of: ipv4) { $0[0] } == 127
    }

    /// Refuses what must not be served on `host`: accept-all verification off loopback, and plain HTTP off
    /// loopback unless a TLS proxy is said to be in front.
    func check(host: String, verifier: EnserverOptions.VerifierKind, tls: Bool) throws(EnserverFailure) {
        if verifier == .acceptAll && !Self.isLoopback(host) {
            throw EnserverFailure(
                "--verifier accept-all lets anyone publish keys: it is only allowed on a loopback --host "
                    + "(127.0.0.1, ::1, localhost), not on \(host); use --verifier certificate")
        }
        if !tls && !behindTLSProxy && !Self.isLoopback(host) {
            throw EnserverFailure(
                "--host \(host) is not loopback: serve HTTPS with --tls-certificate and --tls-key, or say "
                    + "--behind-tls-proxy when a TLS proxy in front terminates TLS")
        }
    }
}
