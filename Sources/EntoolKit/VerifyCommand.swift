import ArgumentParser
import ENCore
import ENCrypto
import ENExportFormat
import Foundation

/// `entool verify`: checks an export file's signature.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify the signature of a diagnosis-key export file against a public key.",
        discussion: """
            iOS's rule applies: the first signature in export.sig must verify. Without --key-id or --key-version \
            the public key is trusted for any key id or version the file names. Exit status: 0 verified, 1 not \
            verified (wrong key, altered file, unknown key id, unsupported algorithm, no export.sig), 2 malformed \
            file or bad usage. The whole of export.bin is parsed too, so a malformed file never verifies.
            """
    )

    @Argument(help: "The export file: a zip with export.bin and export.sig.")
    var file: String

    @OptionGroup var trustedKey: TrustedKeyOptions

    @OptionGroup var output: OutputOptions

    /// The JSON shape of `entool verify --json`.
    struct Result: Encodable {
        /// Whether the file verified.
        var verified: Bool
        /// `verified`, `missingSignatureFile`, `noSignatures`, `unknownKey`, `unsupportedAlgorithm` or
        /// `signatureMismatch`.
        var result: String
        /// A sentence for a person.
        var reason: String
        var verificationKeyId: String?
        var verificationKeyVersion: String?
        var signatureAlgorithm: String?
        var keyCount: Int
        var revisedKeyCount: Int
    }

    func run() throws {
        let trusted = try trustedKey.verificationKey()
        let archive = try ENExportArchive(contentsOf: URL(fileURLWithPath: file))
        // Parse every key, so that a malformed file exits 2 rather than verifying.
        let scanner = try archive.keyScanner()
        for section in ENExportKeySection.allCases {
            var chunks = scanner.chunks(ofSize: 65_536, in: section)
            while try chunks.next() != nil {}
        }
        let verifier = ENExportVerifier(trustedKeys: [trusted])
        let outcome = try verifier.verify(archive)
        let (name, info): (String, ENExportSignatureInfo?) =
            switch outcome {
            case .verified(let info): ("verified", info)
            case .missingSignatureFile: ("missingSignatureFile", nil)
            case .noSignatures: ("noSignatures", nil)
            case .unknownKey(let info): ("unknownKey", info)
            case .unsupportedAlgorithm(let info): ("unsupportedAlgorithm", info)
            case .signatureMismatch(let info): ("signatureMismatch", info)
            case .signatureCountMismatch: ("signatureCountMismatch", nil)
            }
        let result = Result(
            verified: outcome.isVerified, result: name, reason: outcome.description,
            verificationKeyId: info?.verificationKeyID, verificationKeyVersion: info?.verificationKeyVersion,
            signatureAlgorithm: info?.signatureAlgorithm, keyCount: scanner.keyCount,
            revisedKeyCount: scanner.revisedKeyCount)
        if output.json {
            try printJSON(result)
        } else if outcome.isVerified {
            print("\(file): \(outcome.description) (\(scanner.keyCount) keys, \(scanner.revisedKeyCount) revised)")
        }
        guard outcome.isVerified else { throw EntoolFailure.checkFailed("\(file): \(outcome.description)") }
    }
}
