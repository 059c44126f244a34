public import ENCore
public import ENCrypto
public import Foundation

/// A verification server in process: Google's handlers for issuing, verifying, certifying, checking and
/// expiring codes, on a storage, for one realm. An HTTP layer routes requests to
/// ``respond(to:apiKey:contentType:body:bodyExceedsLimit:chaff:)`` and copies its answer.
///
/// ```swift
/// let service = try ENVerificationService(
///     configuration: ENVerificationConfiguration(), secrets: ENVerificationSecrets(masterKey: secret),
///     tokenKey: tokenKey, certificateKey: certificateKey, storage: try ENVerificationSQLiteStore(path: path))
/// let adminKey = try await service.createAPIKey(name: "lab", type: .admin)
/// ```
public struct ENVerificationService: Sendable {
    /// The realm's settings.
    public let configuration: ENVerificationConfiguration
    /// The HMAC keys.
    public let secrets: ENVerificationSecrets
    /// The key tokens are signed with.
    public let tokenKey: P256SigningKey
    /// The key certificates are signed with.
    public let certificateKey: P256SigningKey
    /// Where codes, tokens and API keys are kept.
    public let storage: any ENVerificationStorage
    /// The time now.
    public let clock: @Sendable () -> Date

    /// The public key of ``tokenKey``, to check tokens with.
    let tokenVerifyingKey: P256VerifyingKey

    /// Creates a service.
    ///
    /// - Throws: `ENError.Code.badParameter` for settings out of range (``ENVerificationConfiguration/validate()``).
    public init(
        configuration: ENVerificationConfiguration, secrets: ENVerificationSecrets, tokenKey: P256SigningKey,
        certificateKey: P256SigningKey, storage: any ENVerificationStorage,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) throws(ENError) {
        try configuration.validate()
        self.configuration = configuration
        self.secrets = secrets
        self.tokenKey = tokenKey
        self.certificateKey = certificateKey
        self.storage = storage
        self.clock = clock
        tokenVerifyingKey = try tokenKey.publicKey
    }

    // MARK: API keys

    /// Creates and stores an API key and returns it: the only time it is shown.
    ///
    /// - Throws: `ENError.Code.badParameter` for a blank or taken name; a storage error.
    public func createAPIKey(name: String, type: ENVerificationAPIKeyType) async throws(ENError) -> String {
        let (key, record) = try ENVerificationAPIKey.create(name: name, type: type, secrets: secrets, now: clock())
        guard try await storage.insertAPIKey(record) else {
            throw .badParameter("an API key named \(record.name) exists already")
        }
        return key
    }

    /// The stored key of `apiKey` (the `X-API-Key` header), if it is of `type`.
    ///
    /// - Returns: the key, or 401 `unauthorized` for a missing, unknown or wrongly typed key (Google's
    ///   `RequireAPIKey`), 500 when the storage fails.
    public func authenticate(apiKey: String?, allowing type: ENVerificationAPIKeyType) async
        -> Result<ENVerificationAPIKeyRecord, ENVerificationAPIError>
    {
        let presented = (apiKey ?? "").trimmingCharacters(in: .whitespaces)
        guard !presented.isEmpty, let hmacs = ENVerificationAPIKey.lookupHMACs(of: presented, secrets: secrets) else {
            return .failure(.unauthorized)
        }
        do {
            guard let record = try await storage.apiKey(hmacs: hmacs), record.type == type else {
                return .failure(.unauthorized)
            }
            return .success(record)
        } catch {
            return .failure(.internalError)
        }
    }

    // MARK: Shared helpers

    /// Unix seconds, as Go's `Time.Unix()` (rounded down).
    static func unix(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }

    /// RFC 1123 in UTC, as Go's `time.RFC1123` of a UTC time (`Mon, 02 Jan 2006 15:04:05 UTC`).
    static func rfc1123(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'UTC'"
        return formatter.string(from: Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)))
    }

    /// A UUID as PostgreSQL's `uuid` type reads one (any case, optional braces), written lower-case; `nil` when
    /// it is not one (Google's server then fails with a database error).
    static func normalizedUUID(_ text: String) -> String? {
        var inner = Substring(text)
        if inner.hasPrefix("{") && inner.hasSuffix("}") { inner = inner.dropFirst().dropLast() }
        if let uuid = UUID(uuidString: String(inner)) { return uuid.uuidString.lowercased() }
        let hex = inner.filter { $0 != "-" }
        guard hex.count == 32, hex.allSatisfy(\.isHexDigit) else { return nil }
        var dashed = String(hex)
        for offset in [8, 13, 18, 23] { dashed.insert("-", at: dashed.index(dashed.startIndex, offsetBy: offset)) }
        return UUID(uuidString: dashed)?.uuidString.lowercased()
    }
}
