package import ArgumentParser
import Foundation

/// The options of a server's public listener that `enserver serve` and `enverify serve` share: HTTPS, the limits
/// every connection is held to, and whether a non-loopback address may serve plain HTTP.
package struct ListenerOptions: ParsableArguments {
    @Option(help: "Serve HTTPS with this PEM certificate chain (the server's certificate first); needs --tls-key.")
    package var tlsCertificate: String?

    @Option(help: "The PEM private key of --tls-certificate (a file only its owner may read).")
    package var tlsKey: String?

    @Flag(
        name: .customLong("behind-tls-proxy"),
        help: "A non-loopback --host is served in plain HTTP because a TLS proxy in front terminates TLS.")
    package var behindTLSProxy = false

    @Option(help: "Close a connection with nothing read or written for this long (e.g. 60s, 2m).")
    package var idleTimeout: String = "60s"

    @Option(help: "Close a connection whose request, head and body, has not arrived this long after its first byte.")
    package var readTimeout: String = "30s"

    @Option(help: "The most connections open at once; more wait to be accepted.")
    package var maxConnections: Int = 1024

    @Option(help: "The largest request body in bytes; past it nothing more is read and the connection is closed.")
    package var maxBodySize: Int = 64_000

    package init() {}

    /// The limits the options set.
    ///
    /// - Throws: ``ServerFailure`` (exit 2) naming the first bad option.
    package func limits() throws(ServerFailure) -> HTTPLimits {
        for (value, option) in [(maxConnections, "--max-connections"), (maxBodySize, "--max-body-size")]
        where value < 1 {
            throw ServerFailure("\(option) \(value): want a positive number")
        }
        return HTTPLimits(
            idleTimeout: .seconds(try OptionDuration.seconds(idleTimeout, option: "--idle-timeout")),
            readTimeout: .seconds(try OptionDuration.seconds(readTimeout, option: "--read-timeout")),
            maximumConnections: maxConnections, maximumBodyBytes: maxBodySize)
    }

    /// The HTTPS certificate and key, read and checked, when the options name them.
    ///
    /// - Throws: ``ServerFailure`` (exit 2): one without the other, a file that cannot be read (or a key file
    ///   others may read), not PEM, or a build without the `TLS` trait.
    package func tls() throws(ServerFailure) -> ServerTLS? {
        switch (tlsCertificate, tlsKey) {
        case (nil, nil): return nil
        case (.some, nil): throw ServerFailure("--tls-certificate needs --tls-key")
        case (nil, .some): throw ServerFailure("--tls-key needs --tls-certificate")
        case (.some(let certificate), .some(let key)):
            #if TLS
                let files = ServerTLS(
                    certificateChainPEM: try OptionFile.text(certificate, option: "--tls-certificate", secret: false),
                    privateKeyPEM: try OptionFile.text(key, option: "--tls-key"))
                _ = try files.configuration()
                return files
            #else
                _ = (certificate, key)
                throw ServerFailure(
                    "--tls-certificate, --tls-key: this server was built without the TLS trait; serve behind a TLS "
                        + "proxy (--behind-tls-proxy)")
            #endif
        }
    }

    /// Refuses plain HTTP on a non-loopback `host`, which `option` gave, unless a TLS proxy is said to be in front.
    ///
    /// - Throws: ``ServerFailure`` (exit 2) naming `option`.
    package func checkPlainHTTP(host: String, tls: Bool, option: String = "--host") throws(ServerFailure) {
        if !tls && !behindTLSProxy && !Self.isLoopback(host) {
            throw ServerFailure(
                "\(option) \(host) is not loopback: serve HTTPS with --tls-certificate and --tls-key, or say "
                    + "--behind-tls-proxy when a TLS proxy in front terminates TLS")
        }
    }

    /// Whether `host` names the loopback interface: `localhost`, `::1` or an address in 127.0.0.0/8.
    package static func isLoopback(_ host: String) -> Bool {
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
}
