import ArgumentParser
import ENCore
import ENCrypto
import ENHTTPServer
import ENVerificationServer
import Foundation
import Logging
import UnixSignals

/// `enverify serve`: the device API on `--host`:`--port` and the admin API on `--admin-host`:`--admin-port`, until
/// SIGTERM or SIGINT.
struct EnverifyServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the device API (verify, certificate) and, on its own listener, the admin API.")

    @OptionGroup var storage: EnverifyStorageOptions
    @OptionGroup var logging: LoggingOptions

    @Option(help: "The certificates' and tokens' issuer (iss), which the key server looks the health authority up by.")
    var issuer: String

    @Option(help: "The certificates' audience (aud), which the key server expects.")
    var audience: String

    @Option(help: "The PEM file of the P-256 private key certificates are signed with (owner-only; may be encrypted).")
    var certificateKey: String

    @Option(
        help: """
            A file holding the passphrase of an encrypted --certificate-key (or the environment variable \
            ENVERIFY_CERTIFICATE_KEY_PASSPHRASE). Never on the command line.
            """)
    var certificateKeyPassphraseFile: String?

    @Option(help: "The certificates' key ID (kid), the version the key server knows the public key by.")
    var certificateKeyId: String

    @Option(help: "The PEM file of the P-256 private key tokens are signed with (owner-only; may be encrypted).")
    var tokenKey: String

    @Option(
        help: """
            A file holding the passphrase of an encrypted --token-key (or the environment variable \
            ENVERIFY_TOKEN_KEY_PASSPHRASE). Never on the command line.
            """)
    var tokenKeyPassphraseFile: String?

    @Option(help: "The address the device API listens on.")
    var host: String = "127.0.0.1"

    @Option(help: "The device API's port (0: any free port, printed at start).")
    var port: Int = 8080

    @Option(help: "The address the admin API listens on.")
    var adminHost: String = "127.0.0.1"

    @Option(help: "The admin API's port (0: any free port, printed at start).")
    var adminPort: Int = 8081

    /// HTTPS, the connection limits and `--behind-tls-proxy`, as `enserver serve` has them.
    @OptionGroup var listener: ListenerOptions

    @Option(help: "The test types codes may be issued for, comma-separated (confirmed, likely, negative).")
    var allowedTestTypes: String = "confirmed,likely,negative"

    @Option(help: "Digits of a short code (6 to 18).")
    var codeLength: Int = 8

    @Option(help: "How long a short code is valid (s, m, h, d).")
    var codeDuration: String = "15m"

    @Option(help: "Characters of a long code (0: the long code is the short code; otherwise 6 to 255).")
    var longCodeLength: Int = 16

    @Option(help: "How long a long code is valid (s, m, h, d).")
    var longCodeDuration: String = "24h"

    @Option(help: "How long a token is valid (s, m, h, d).")
    var tokenDuration: String = "24h"

    @Option(help: "How long a certificate is valid (s, m, h, d).")
    var certificateDuration: String = "15m"

    @Option(help: "How old a symptom or test date may be (s, m, h, d).")
    var symptomDateMaxAge: String = "14d"

    @Option(
        help: ArgumentHelp(
            """
            Tests and simulations only: run on a clock that starts at this ISO 8601 date and moves only by \
            POST /api/test/clock on the admin listener.
            """))
    var testClock: String?

    /// The clock ``testClock`` asks for, or `nil` for the system's.
    ///
    /// - Throws: ``EnverifyFailure`` (exit 2) for a date that is not ISO 8601.
    func controlledClock() throws -> TestClock? {
        guard let testClock else { return nil }
        return TestClock(start: try OptionDate.date(testClock, option: "--test-clock"))
    }

    /// The realm's settings from the options.
    ///
    /// - Throws: ``EnverifyFailure`` (exit 2) naming the first bad option.
    func realmConfiguration() throws -> ENVerificationConfiguration {
        var configuration = ENVerificationConfiguration()
        guard !issuer.isEmpty else { throw EnverifyFailure("--issuer: must not be empty") }
        guard !audience.isEmpty else { throw EnverifyFailure("--audience: must not be empty") }
        guard !certificateKeyId.isEmpty else { throw EnverifyFailure("--certificate-key-id: must not be empty") }
        configuration.tokenIssuer = issuer
        configuration.certificateIssuer = issuer
        configuration.certificateAudience = audience
        configuration.certificateKeyID = certificateKeyId
        var types: Set<ENVerificationTestType> = []
        for name in allowedTestTypes.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = name.trimmingCharacters(in: .whitespaces)
            guard let type = ENVerificationTestType(rawValue: trimmed), type != .userReport else {
                throw EnverifyFailure(
                    "--allowed-test-types \(allowedTestTypes): \"\(trimmed)\" is not confirmed, likely or negative")
            }
            types.insert(type)
        }
        configuration.allowedTestTypes = types
        let lengths = ENVerificationCodeGenerator.minimumLength...ENVerificationCodeGenerator.maximumShortLength
        guard lengths.contains(codeLength) else {
            throw EnverifyFailure("--code-length \(codeLength): want \(lengths.lowerBound) to \(lengths.upperBound)")
        }
        configuration.codeLength = codeLength
        guard longCodeLength == 0 || (ENVerificationCodeGenerator.minimumLength...255).contains(longCodeLength) else {
            throw EnverifyFailure(
                "--long-code-length \(longCodeLength): want 0 or \(ENVerificationCodeGenerator.minimumLength) to 255")
        }
        configuration.longCodeLength = longCodeLength
        configuration.codeDuration = try OptionDuration.seconds(codeDuration, option: "--code-duration")
        configuration.longCodeDuration = try OptionDuration.seconds(longCodeDuration, option: "--long-code-duration")
        configuration.tokenDuration = try OptionDuration.seconds(tokenDuration, option: "--token-duration")
        configuration.certificateDuration = try OptionDuration.seconds(
            certificateDuration, option: "--certificate-duration")
        configuration.dateRule = ENVerificationDateRule(
            maximumAge: try OptionDuration.seconds(symptomDateMaxAge, option: "--symptom-date-max-age"))
        for (option, value) in [("--port", port), ("--admin-port", adminPort)] where !(0...65_535).contains(value) {
            throw EnverifyFailure("\(option) \(value): want 0 to 65535")
        }
        do {
            try configuration.validate()
        } catch {
            throw EnverifyFailure(error)
        }
        return configuration
    }

    /// Runs `body` with the service the options describe, its storage open while it runs.
    func withService<Value: Sendable>(
        clock: @escaping @Sendable () -> Date = { Date() }, logger: Logger,
        _ body: (ENVerificationService) async throws -> Value
    ) async throws -> Value {
        let configuration = try realmConfiguration()
        let environment = EnverifyEnvironment.current
        let certificate = try PrivateKeyFile(
            option: "--certificate-key", passphraseOption: "--certificate-key-passphrase-file",
            passphraseVariable: "ENVERIFY_CERTIFICATE_KEY_PASSPHRASE"
        ).read(certificateKey, passphraseFile: certificateKeyPassphraseFile, environment: environment)
        let token = try PrivateKeyFile(
            option: "--token-key", passphraseOption: "--token-key-passphrase-file",
            passphraseVariable: "ENVERIFY_TOKEN_KEY_PASSPHRASE"
        ).read(tokenKey, passphraseFile: tokenKeyPassphraseFile, environment: environment)
        return try await storage.withService(
            configuration: configuration, tokenKey: token, certificateKey: certificate, clock: clock, logger: logger,
            body)
    }

    /// The limits and HTTPS of both listeners, checked against where they listen: a non-loopback address serves
    /// HTTPS, or says a TLS proxy is in front (the admin API carries admin API keys, the device API codes and
    /// tokens).
    ///
    /// - Throws: ``EnverifyFailure`` (exit 2) naming the first bad option.
    func network() throws -> (limits: HTTPLimits, tls: ServerTLS?) {
        let limits = try listener.limits()
        let tls = try listener.tls()
        try listener.checkPlainHTTP(host: host, tls: tls != nil)
        try listener.checkPlainHTTP(host: adminHost, tls: tls != nil, option: "--admin-host")
        return (limits, tls)
    }

    func run() async throws {
        let logger = Logger(label: "enverify")
        let (limits, tls) = try network()
        let testClock = try controlledClock()
        var clock: @Sendable () -> Date = { Date() }
        if let testClock {
            logger.warning("running on a test clock that clients set: never use --test-clock in production")
            clock = { testClock.now }
        }
        _ = try await withService(clock: clock, logger: logger) { service in
            try await serve(service, testClock: testClock, limits: limits, tls: tls, logger: logger)
        }
    }

    /// Serves `service` on the two listeners, with `limits` and `tls`, until SIGTERM or SIGINT; the admin listener
    /// moves `testClock` when there is one.
    private func serve(
        _ service: ENVerificationService, testClock: TestClock?, limits: HTTPLimits, tls: ServerTLS?, logger: Logger
    ) async throws -> Bool {
        let device = VerificationHTTP(service: service, api: .device, logger: logger)
        let admin = VerificationHTTP(service: service, api: .admin, logger: logger, testClock: testClock)
        let (host, adminHost) = (host, adminHost)
        let scheme = tls == nil ? "http" : "https"
        return try await VerificationHTTP.withRunningServers(
            device: (device, host, port), admin: (admin, adminHost, adminPort), limits: limits, tls: tls,
            shutdownSignals: [.sigterm, .sigint], logger: logger
        ) { devicePort, adminPort in
            // The device listener's line first, then the admin listener's.
            EnverifyServeCommand.announce(scheme: scheme, host: host, port: devicePort)
            EnverifyServeCommand.announce(scheme: scheme, host: adminHost, port: adminPort)
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(3600))
                guard !Task.isCancelled else { break }
                do {
                    _ = try await service.deleteExpired()
                } catch {
                    logger.error("cleanup failed: \(error)")
                }
            }
            return true
        }
    }

    /// Prints `enverify listening on SCHEME://HOST:PORT` on standard output at once.
    static func announce(scheme: String = "http", host: String, port: Int) {
        FileHandle.standardOutput.write(Data("enverify listening on \(scheme)://\(host):\(port)\n".utf8))
    }
}
