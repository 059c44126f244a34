import ArgumentParser
import ENCore
import ENCrypto
import ENKeyServer
import ENVerificationServer
import Foundation

/// `entool certificate`: signs a verification certificate for a publish request's keys with a health authority's
/// private key, as Google's verification server signs one at `/api/certificate`, and prints the publish request
/// with it (`verificationPayload`) and the HMAC key (`hmackey`): a body a key server with
/// `--verifier certificate` accepts. For tests and trials of a closed key server without a verification server.
struct CertificateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "certificate",
        abstract: "Sign a verification certificate for a publish request's keys; print the request with it.",
        discussion: """
            The certificate is an ES256 JWT with Google's claims (iss, aud, iat, nbf, exp, reportType, \
            symptomOnsetInterval, tekmac), its tekmac the HMAC-SHA256 of the request's keys under a fresh random \
            32-byte key. The request is printed as JSON with verificationPayload and hmackey set, its other fields \
            as they came.
            """
    )

    /// The longest publish request read: Google's publish API limit.
    static let maximumRequestBytes = 64_000

    @Argument(help: "The publish request (Google's JSON), a file or - for standard input.")
    var request: String

    @Option(name: .customLong("signing-key"), help: "The health authority's ECDSA P-256 private key (PEM).")
    var signingKey: String

    @Option(name: .customLong("key-id"), help: "The certificate's kid: the key version the key server knows.")
    var keyID: String

    @Option(help: "The certificate's iss: the issuer the key server looks the health authority up by.")
    var issuer: String

    @Option(help: "The certificate's aud: the audience the key server expects.")
    var audience: String

    @Option(name: .customLong("report-type"), help: "confirmed, likely, negative or user-report.")
    var reportType: String = "confirmed"

    @Option(
        name: .customLong("symptom-onset-interval"),
        help: "The symptom onset in 10-minute intervals (default: the request's symptomOnsetInterval, 0 for none).")
    var symptomOnsetInterval: UInt32?

    @Option(name: .customLong("lifetime"), help: "Seconds the certificate is valid from --now.")
    var lifetime: Int = 900

    @Option(help: "The moment the certificate is issued at, ISO 8601 (default: now).")
    var now: String?

    func run() throws {
        guard ["confirmed", "likely", "negative", "user-report"].contains(reportType) else {
            throw EntoolFailure.badInput(
                "--report-type \(reportType): want confirmed, likely, negative or user-report")
        }
        guard (1...86_400).contains(lifetime) else {
            throw EntoolFailure.badInput("--lifetime \(lifetime): want 1 to 86400 seconds")
        }
        guard !keyID.isEmpty, !issuer.isEmpty, !audience.isEmpty else {
            throw EntoolFailure.badInput("--key-id, --issuer and --audience must not be empty")
        }
        var issuedAt = Date()
        if let now {
            guard let date = RFC3339.date(from: now) else {
                throw EntoolFailure.badInput("--now \(now): want an ISO 8601 date such as 2026-11-24T12:00:00Z")
            }
            issuedAt = date
        }
        let key: P256SigningKey
        do {
            key = try P256SigningKey(pemRepresentation: try String(contentsOfFile: signingKey, encoding: .utf8))
        } catch let error as ENError {
            throw EntoolFailure.badInput("--signing-key \(signingKey): \(error.reason)")
        } catch {
            throw EntoolFailure.badInput("--signing-key \(signingKey): cannot read the file")
        }
        let body = try readRequest()
        let parsed: ENPublishRequest
        do {
            parsed = try ENPublishRequest(json: body)
        } catch {
            throw EntoolFailure(error.adding(ENError.Context(file: request)))
        }
        guard !parsed.temporaryExposureKeys.isEmpty else {
            throw EntoolFailure.badInput("\(request): the request has no temporaryExposureKeys to certify")
        }
        guard var object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw EntoolFailure.badInput("\(request): not a JSON object")
        }
        let hmacKey: Data
        do {
            hmacKey = try SecureRandom.bytes(count: 32)
        } catch {
            throw EntoolFailure(error, exitCode: 1)
        }
        let unix = Int64(issuedAt.timeIntervalSince1970.rounded(.down))
        let claims = ENVerificationCertificateClaims(
            audience: audience, expiresAt: unix + Int64(lifetime), issuedAt: unix, issuer: issuer, notBefore: unix,
            reportType: reportType,
            symptomOnsetInterval: symptomOnsetInterval ?? UInt32(clamping: max(0, parsed.symptomOnsetInterval)),
            tekmac: ENVerificationClient.exposureKeyHMAC(of: parsed.temporaryExposureKeys, key: hmacKey)
                .base64EncodedString())
        let certificate: String
        do {
            certificate = try claims.signed(keyID: keyID, key: key)
        } catch {
            throw EntoolFailure(error, exitCode: 1)
        }
        // Go matches field names case-insensitively: drop any other spelling of the two fields set here.
        for name in object.keys where ["verificationpayload", "hmackey"].contains(name.lowercased()) {
            object[name] = nil
        }
        object["verificationPayload"] = certificate
        object["hmackey"] = hmacKey.base64EncodedString()
        let output = try JSONSerialization.data(
            withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        FileHandle.standardOutput.write(output + Data("\n".utf8))
    }

    /// The request's bytes, at most ``maximumRequestBytes``.
    private func readRequest() throws -> Data {
        let handle: FileHandle
        if request == "-" {
            handle = .standardInput
        } else {
            guard let file = FileHandle(forReadingAtPath: request) else {
                throw EntoolFailure.badInput("\(request): cannot read the file")
            }
            handle = file
        }
        defer { if request != "-" { try? handle.close() } }
        let data = (try? handle.read(upToCount: Self.maximumRequestBytes + 1)) ?? Data()
        guard data.count <= Self.maximumRequestBytes else {
            throw EntoolFailure.badInput("\(request): longer than \(Self.maximumRequestBytes) bytes (Google's limit)")
        }
        return data
    }
}
