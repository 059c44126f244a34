public import ENCore
public import ENCrypto
public import Foundation

/// The AES-256-GCM keys that seal and open revision tokens, by numeric key ID, as Google's server keeps them:
/// new tokens are sealed with the current key; tokens sealed with any key still listed open.
///
/// Rotate by adding a new key, making it current, and removing an old key once its tokens no longer matter
/// (Google keeps a key as long as a token may be revised: the 15 days of a key's acceptance).
public struct ENRevisionTokenKeys: Sendable {
    /// The key ID of the key that seals new tokens; it must be in ``keys``.
    public var currentKeyID: Int64
    /// Every key whose tokens are accepted, by key ID, the current one included.
    public var keys: [Int64: AESGCM.Key]
    /// The additional authenticated data of every token (`REVISION_TOKEN_AAD`), empty by default.
    public var additionalData: Data
    /// The fewest entries in a token, padded with zero keys so that its size hides how many keys it lists
    /// (`REVISION_TOKEN_MIN_LENGTH`): 28.
    public var minimumEntries: Int

    /// Creates the key set.
    public init(currentKeyID: Int64, keys: [Int64: AESGCM.Key], additionalData: Data = Data(), minimumEntries: Int = 28)
    {
        self.currentKeyID = currentKeyID
        self.keys = keys
        self.additionalData = additionalData
        self.minimumEntries = minimumEntries
    }

    /// One new random key, current, with ID 1: for tests and simulations (tokens do not survive a restart).
    public static func generate() throws(ENError) -> ENRevisionTokenKeys {
        ENRevisionTokenKeys(currentKeyID: 1, keys: [1: try AESGCM.Key.generate()])
    }
}
