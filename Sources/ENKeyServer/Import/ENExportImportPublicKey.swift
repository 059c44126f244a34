public import ENExportFormat
public import Foundation

/// A public key of the files an ``ENExportImporter`` imports, with the moment it stops being trusted (Google's
/// `ImportFilePublicKey`, `internal/exportimport/model`).
///
/// During the other server's signing-key rotation, give both keys: the new one as soon as it is known, and the old
/// one with ``thru`` set to the end of the overlap. As in Google's `AllowedKeys`
/// (`internal/exportimport/database/exportimport.go`: `thru_timestamp IS NULL OR thru_timestamp > now`), a key is
/// trusted until ``thru`` (exclusive) and from the moment it is configured: Google's `from_timestamp` only orders the
/// keys, so there is no start here.
public struct ENExportImportPublicKey: Sendable {
    /// The key, with the key id and version the other server's files name it by.
    public var verificationKey: ENExportVerificationKey
    /// When the key stops being trusted (exclusive); `nil` for never.
    public var thru: Date?

    /// Creates an import's public key, trusted until `thru` (exclusive; `nil`, the default, for never).
    public init(_ verificationKey: ENExportVerificationKey, thru: Date? = nil) {
        self.verificationKey = verificationKey
        self.thru = thru
    }

    /// Whether the key is trusted at `date`.
    public func isTrusted(at date: Date) -> Bool {
        thru.map { date < $0 } ?? true
    }
}
