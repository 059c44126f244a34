import ArgumentParser
import ENCore
import ENCrypto
import Foundation

/// `entool keygen`: a new ECDSA P-256 signing key pair for export files.
struct KeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Generate an ECDSA P-256 key pair for signing export files, as PEM files.",
        discussion: """
            The private key is written as PKCS#8 PEM with permissions 0600, the public key as a PEM \
            SubjectPublicKeyInfo. Existing files are not overwritten unless --force is given.
            """
    )

    @Option(name: .customLong("private-key"), help: "Where to write the private key (PEM).")
    var privateKeyPath: String

    @Option(name: .customLong("public-key"), help: "Where to write the public key (PEM).")
    var publicKeyPath: String

    @Flag(help: "Overwrite existing files.")
    var force = false

    @OptionGroup var output: OutputOptions

    /// The JSON shape of `entool keygen --json`.
    struct Result: Encodable {
        var privateKey: String
        var publicKey: String
        /// The base64 SubjectPublicKeyInfo, the form health authorities publish.
        var publicKeyBase64: String
    }

    func run() throws {
        guard privateKeyPath != publicKeyPath else {
            throw EntoolFailure.badInput("--private-key and --public-key must be different files")
        }
        let fileManager = FileManager.default
        if !force {
            for path in [privateKeyPath, publicKeyPath] where fileManager.fileExists(atPath: path) {
                throw EntoolFailure.badInput("'\(path)' exists; pass --force to overwrite it")
            }
        }
        let key = try P256SigningKey()
        let publicKey = try key.publicKey
        do {
            let privateURL = URL(fileURLWithPath: privateKeyPath)
            try? fileManager.removeItem(at: privateURL)
            guard
                fileManager.createFile(
                    atPath: privateKeyPath, contents: Data(try key.pemRepresentation.utf8),
                    attributes: [.posixPermissions: 0o600])
            else {
                throw EntoolFailure.badInput("cannot write the private key to '\(privateKeyPath)'")
            }
            try Data(try publicKey.pemRepresentation.utf8).write(to: URL(fileURLWithPath: publicKeyPath))
        } catch let failure as EntoolFailure {
            throw failure
        } catch let error as ENError {
            throw error
        } catch {
            throw EntoolFailure.badInput("cannot write the key files: \(error.localizedDescription)")
        }
        let result = Result(
            privateKey: privateKeyPath, publicKey: publicKeyPath,
            publicKeyBase64: try publicKey.derRepresentation.base64EncodedString())
        if output.json {
            try printJSON(result)
        } else {
            print("private key: \(privateKeyPath)")
            print("public key:  \(publicKeyPath)")
            print("public key (base64 SubjectPublicKeyInfo): \(result.publicKeyBase64)")
        }
    }
}
