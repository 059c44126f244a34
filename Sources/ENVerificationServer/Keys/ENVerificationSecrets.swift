public import ENCore
internal import ENCrypto
public import Foundation

/// The HMAC keys Google's server keeps in its secret manager: one list for the codes in the database, one for the
/// API keys in the database, one for the API keys' own signature. Each list is newest first: new records use the
/// first key, lookups try every key, so a key can be rotated in by putting it first.
public struct ENVerificationSecrets: Sendable {
    /// Keys of the codes' HMACs (`VERIFICATION_CODE_DATABASE_KEY`).
    public var codeDatabaseKeys: [Data]
    /// Keys of the API keys' HMACs in the database (`API_KEY_DATABASE_KEY`).
    public var apiKeyDatabaseKeys: [Data]
    /// Keys of the API keys' signatures (`API_KEY_SIGNATURE_KEY`).
    public var apiKeySignatureKeys: [Data]

    /// Creates secrets from lists of keys, newest first.
    ///
    /// - Throws: `ENError.Code.badParameter` when a list is empty or a key is shorter than 32 bytes.
    public init(codeDatabaseKeys: [Data], apiKeyDatabaseKeys: [Data], apiKeySignatureKeys: [Data]) throws(ENError) {
        for (name, keys) in [
            ("code database", codeDatabaseKeys), ("API key database", apiKeyDatabaseKeys),
            ("API key signature", apiKeySignatureKeys),
        ] {
            guard !keys.isEmpty else { throw .badParameter("no \(name) HMAC key") }
            guard keys.allSatisfy({ $0.count >= 32 }) else {
                throw .badParameter("a \(name) HMAC key is shorter than 32 bytes")
            }
        }
        self.codeDatabaseKeys = codeDatabaseKeys
        self.apiKeyDatabaseKeys = apiKeyDatabaseKeys
        self.apiKeySignatureKeys = apiKeySignatureKeys
    }

    /// Derives one key of each kind from `masterKey` (at least 32 bytes) with HKDF-SHA256, each with its own label.
    ///
    /// - Throws: `ENError.Code.badParameter` when the master key is shorter than 32 bytes.
    public init(masterKey: Data) throws(ENError) {
        guard masterKey.count >= 32 else { throw .badParameter("the master key is shorter than 32 bytes") }
        func derive(_ label: String) throws(ENError) -> Data {
            try HKDF.deriveKey(
                inputKeyMaterial: masterKey, info: Data("ENVerificationServer \(label)".utf8), outputByteCount: 64)
        }
        try self.init(
            codeDatabaseKeys: [derive("code database")], apiKeyDatabaseKeys: [derive("API key database")],
            apiKeySignatureKeys: [derive("API key signature")])
    }

    /// The HMAC of `code` to store (Google's `GenerateVerificationCodeHMAC`).
    public func codeHMAC(_ code: String) -> String { Self.hmac(codeDatabaseKeys[0], code) }

    /// Every HMAC `code` may be stored under (Google's `generateVerificationCodeHMACs`).
    public func codeHMACs(_ code: String) -> [String] { codeDatabaseKeys.map { Self.hmac($0, code) } }

    /// HMAC-SHA512, base64url without padding (Google's `initialHMAC`).
    static func hmac(_ key: Data, _ text: String) -> String {
        base64URL(HMAC.sha512AuthenticationCode(for: Data(text.utf8), using: key))
    }

    /// Base64url without padding (Go's `base64.RawURLEncoding`).
    static func base64URL(_ data: Data) -> String {
        var text = data.base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }
}
