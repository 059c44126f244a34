public import ENCore
public import Foundation

/// A key server's storage as its logic uses it: a few dialect-neutral, `async` primitives, each one
/// transaction, so that the same server runs on SQLite (`ENKeyServerSQLiteStore`) or PostgreSQL
/// (`ENKeyServerPostgresStore`). The export primitives are ``ENKeyServerExportStorage``'s, the import's
/// ``ENKeyServerImportStorage``'s; these are the publish API's.
///
/// Keys are identified by their key data alone, as Google's server identifies them. A publish reads the
/// stored keys it sends again with ``storedKeys(withKeyData:)``, applies the publish and revision rules, then
/// writes everything in one ``insertAndRevise(inserting:revising:)``, which is atomic: all or nothing. A publish
/// first tries the common case, every key new, as one write: ``insert(_:unlessAnyStored:)``.
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

    /// Inserts `insertions` (as ``insertAndRevise(inserting:revising:)`` inserts, with no revision) if none of the
    /// keys with key data `keyData` is stored; otherwise writes nothing and returns the stored ones. A publish whose
    /// keys are all new, the usual case, is then one write instead of a read and a write.
    ///
    /// The default implementation calls ``storedKeys(withKeyData:)``, then
    /// ``insertAndRevise(inserting:revising:)`` when it found nothing; a storage on the other side of a network
    /// (`ENKeyServerPostgresStore`) does both in one statement.
    ///
    /// - Parameters:
    ///   - insertions: the keys to insert when none of `keyData` is stored.
    ///   - keyData: the key data to look for: the publish's keys, those not inserted (negative reports) included.
    /// - Throws: an `ENError` when the database fails; nothing is written then.
    func insert(_ insertions: [ENKeyServerInsertion], unlessAnyStored keyData: [Data]) async throws(ENError)
        -> ENKeyServerNewKeysOutcome
}

extension ENKeyServerStorage {
    /// ``storedKeys(withKeyData:)``, then ``insertAndRevise(inserting:revising:)`` when it found nothing.
    public func insert(_ insertions: [ENKeyServerInsertion], unlessAnyStored keyData: [Data]) async throws(ENError)
        -> ENKeyServerNewKeysOutcome
    {
        try await lookUpThenInsert(insertions, unlessAnyStored: keyData)
    }

    /// The default of ``insert(_:unlessAnyStored:)``, for a storage's own implementation to fall back on.
    package func lookUpThenInsert(_ insertions: [ENKeyServerInsertion], unlessAnyStored keyData: [Data])
        async throws(ENError) -> ENKeyServerNewKeysOutcome
    {
        let stored = try await storedKeys(withKeyData: keyData)
        guard stored.isEmpty else { return .alreadyStored(stored) }
        guard !insertions.isEmpty else { return .inserted([]) }
        return .inserted(try await insertAndRevise(inserting: insertions, revising: []))
    }
}
