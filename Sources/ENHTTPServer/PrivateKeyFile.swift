import ENCore
package import ENCrypto
import Foundation

/// A server's P-256 private key option: a PEM file readable by its owner only, unencrypted or encrypted with a
/// passphrase that comes from a file (readable by its owner only) or the environment, never the command line.
package struct PrivateKeyFile: Sendable {
    /// The option naming the key file (`--signing-key`).
    package var option: String
    /// The option naming the passphrase file (`--signing-key-passphrase-file`).
    package var passphraseOption: String
    /// The environment variable holding the passphrase (`ENSERVER_SIGNING_KEY_PASSPHRASE`).
    package var passphraseVariable: String

    /// A key option and where its passphrase may come from.
    package init(option: String, passphraseOption: String, passphraseVariable: String) {
        self.option = option
        self.passphraseOption = passphraseOption
        self.passphraseVariable = passphraseVariable
    }

    /// The key in the file at `path`, decrypted with the passphrase of the file `passphraseFile` or else of
    /// `environment`'s ``passphraseVariable`` (a trailing newline removed), when there is one.
    ///
    /// - Throws: ``ServerFailure`` (exit 2) naming the option: a file readable by others, an encrypted key
    ///   without a passphrase, a passphrase that does not decrypt it, a key that is not P-256. The passphrase
    ///   never appears in a message.
    package func read(
        _ path: String, passphraseFile: String?, environment: [String: String]
    ) throws(ServerFailure) -> P256SigningKey {
        var passphrase: String?
        if let passphraseFile {
            let text = try OptionFile.text(passphraseFile, option: passphraseOption, maximumBytes: 4096)
            passphrase = text.hasSuffix("\n") ? String(text.dropLast()) : text
            if passphrase?.hasSuffix("\r") == true { passphrase?.removeLast() }
        } else if let value = environment[passphraseVariable], !value.isEmpty {
            passphrase = value
        }
        let (option, passphraseOption, passphraseVariable) = (option, passphraseOption, passphraseVariable)
        return try OptionFile.read(path, option: option) { pem throws(ENError) in
            if let passphrase { return try P256SigningKey(pemRepresentation: pem, passphrase: passphrase) }
            guard !P256SigningKey.isEncrypted(pemRepresentation: pem) else {
                throw ENError(
                    .badFormat,
                    "the private key is encrypted: give its passphrase in \(passphraseOption) FILE or "
                        + passphraseVariable)
            }
            return try P256SigningKey(pemRepresentation: pem)
        }
    }
}
