public import ENCore
public import Foundation

/// A key server's storage as its logic uses it: a few dialect-neutral, `async` primitives, each one
/// transaction, so that the same server runs on SQLite (`ENKeyServerSQLiteStore`) or PostgreSQL
/// (`ENKeyServerPostgresStore`). The export primitives are ``ENKeyServerExportStorage``'s, the import's
/// ``ENKeyServerImportStorage``'s; these are the publish API's.
///
/// Keys are identified by their key data alone, as Google's server identifies them. A publish reads the
/// stored keys it sends again with ``storedKeys(withKeyData:)``, applies the publish and revision rules, then
/// writes everything in one ``insertAndRevise(inserting:revising:)``, which is atomic: all or nothing.
public protocol ENKeyServerStorage: ENKeyServerExportStorage, ENKeyServerImportStorage {
    /// The stored keys whose key data is one of `keyData` (one per key data: the first stored).
    func storedKeys(withKeyData keyData: [Data]) async throws(ENError) -> [ENStoredDiagnosisKey]

    /// In one transaction, inserts `insertions` (skipping, without failing, any whose key data is already
    /// stored, as `INSERT … ON CONFLICT DO NOTHING` does) and applies `revisions` (each to a stored key not yet
    /// revised).
    ///
    /// - Returns: the key data of the keys inserted, in the order given.
    /// - Throws: an `ENError` when the database fails, or when a key to revise is missing or already revised
    ///   (a concurrent publish revised it); nothing is written then.
    func insertAndRevise(
        inserting insertions: [ENKeyServerInsertion], revising revisions: [ENKeyServerRevision]
    ) async throws(ENError) -> [Data]
}
