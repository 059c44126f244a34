public import ENCore
internal import ENCrypto
public import Foundation

/// The kind of an API key (Google's `APIKeyType`): device keys reach the device API (`/api/verify`,
/// `/api/certificate`), admin keys the admin API (`/api/issue` and the others).
public enum ENVerificationAPIKeyType: Int, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    /// An app's key.
    case device = 0
    /// A health authority's key.
    case admin = 1

    /// `device` or `admin`, as Google displays it.
    public var description: String {
        switch self {
        case .device: "device"
        case .admin: "admin"
        }
    }

    /// Reads `device` or `admin`.
    public init?(name: String) {
        guard let type = Self.allCases.first(where: { $0.description == name }) else { return nil }
        self = type
    }
}

/// A stored API key: its name, type, a preview of its first characters, and only the HMAC of its secret part.
public struct ENVerificationAPIKeyRecord: Hashable, Sendable {
    /// A database identifier (0 before it is stored).
    public var id: Int64
    /// The key's name, unique.
    public var name: String
    /// The key's type.
    public var type: ENVerificationAPIKeyType
    /// The first 6 characters of the key, to tell keys apart (Google's `APIKeyPreview`).
    public var preview: String
    /// The HMAC of the key's first part (Google's `APIKey` column).
    public var keyHMAC: String
    /// When it was created.
    public var createdAt: Date

    /// Creates a record.
    public init(
        id: Int64 = 0, name: String, type: ENVerificationAPIKeyType, preview: String, keyHMAC: String,
        createdAt: Date
    ) {
        self.id = id
        self.name = name
        self.type = type
        self.preview = preview
        self.keyHMAC = keyHMAC
        self.createdAt = createdAt
    }
}

/// API keys as Google's server forms and checks them (`pkg/database/authorized_app.go`):
/// `base64url(64 random bytes).realmID.base64url(HMAC-SHA512(signature key, "key.realmID"))`, shown once; the
/// database keeps HMAC-SHA512(database key, first part).
public enum ENVerificationAPIKey {
    /// The realm ID every key of this one-realm server carries.
    public static let realmID = 1

    /// A new key and the record to store for it.
    ///
    /// - Throws: `ENError.Code.badParameter` for an empty name (after trimming spaces) or one longer than 100
    ///   characters; an `ENError` when the random generator fails.
    public static func create(
        name: String, type: ENVerificationAPIKeyType, secrets: ENVerificationSecrets, now: Date
    ) throws(ENError) -> (key: String, record: ENVerificationAPIKeyRecord) {
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw .badParameter("the API key's name cannot be blank") }
        guard name.count <= 100 else { throw .badParameter("the API key's name is longer than 100 characters") }
        let secret = ENVerificationSecrets.base64URL(try SecureRandom.bytes(count: 64))
        let signed = "\(secret).\(realmID)"
        let signature = ENVerificationSecrets.hmac(secrets.apiKeySignatureKeys[0], signed)
        let key = "\(signed).\(signature)"
        let record = ENVerificationAPIKeyRecord(
            name: name, type: type, preview: String(key.prefix(6)),
            keyHMAC: ENVerificationSecrets.hmac(secrets.apiKeyDatabaseKeys[0], secret), createdAt: now)
        return (key, record)
    }

    /// The HMACs a presented key may be stored under, or `nil` when its form or signature is wrong (Google's
    /// `VerifyAPIKeySignature` and `generateAPIKeyHMACs`). Every signature key is tried, in constant time each.
    public static func lookupHMACs(of presented: String, secrets: ENVerificationSecrets) -> [String]? {
        let key = String(String.UnicodeScalarView(presented.unicodeScalars.filter { Self.isPrintable($0) }))
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = key.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[1] == "\(realmID)",
            let signature = Self.decodeBase64(String(parts[2]))
        else { return nil }
        let signed = Data("\(parts[0]).\(parts[1])".utf8)
        var found = false
        for signatureKey in secrets.apiKeySignatureKeys {
            let expected = HMAC.sha512AuthenticationCode(for: signed, using: signatureKey)
            if Self.constantTimeEqual(expected, signature) { found = true }
        }
        guard found else { return nil }
        return secrets.apiKeyDatabaseKeys.map { ENVerificationSecrets.hmac($0, String(parts[0])) }
    }

    private static func isPrintable(_ scalar: Unicode.Scalar) -> Bool {
        !(scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value))
    }

    /// Google's `base64util.DecodeString`: either alphabet, padding optional.
    static func decodeBase64(_ text: String) -> Data? {
        var normalized = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while normalized.hasSuffix("=") { normalized.removeLast() }
        guard normalized.utf8.count % 4 != 1 else { return nil }
        normalized += String(repeating: "=", count: (4 - normalized.utf8.count % 4) % 4)
        return Data(base64Encoded: normalized)
    }

    private static func constantTimeEqual(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }
}
