internal import ENSQLite
package import GRDB

/// A write to a store of type `Store`, producing a `Value`: one operation, written once, that
/// `write(_:)` runs in one transaction, synchronously or
/// `async`.
///
/// The updates are static members constrained to their store, for example `ENStoreUpdate.addSightings(_:)`
/// for an ``ENDeviceStore``; write them with a leading
/// dot: `try store.write(.addSightings(sightings))`. An update that throws writes nothing.
public struct ENStoreUpdate<Store: ENPersistentStore, Value: Sendable>: Sendable {
    let apply: @Sendable (Store, Database) throws -> Value
    var mode: ENSQLiteWriteMode

    /// An update that runs `apply` in one transaction; with `truncatesLog`, the write-ahead log is truncated
    /// after the commit (erasing: no erased page stays in the log).
    package init(truncatesLog: Bool = false, _ apply: @escaping @Sendable (Store, Database) throws -> Value) {
        self.apply = apply
        self.mode = ENSQLiteWriteMode(transactional: true, truncatesLog: truncatesLog)
    }

    /// The same update run without a transaction, each statement committing on its own.
    ///
    /// For tests only: they prove that concurrent readers would see half of an update written this way, and so
    /// that their check of the transactional form can fail.
    /// The same update, leaving the database's write generation where it is: for updates that change nothing a
    /// reader keeps between operations (see `ENSQLiteWriteMode.advancesGeneration`).
    package func keepingGeneration() -> Self {
        var update = self
        update.mode.advancesGeneration = false
        update.mode.advancesKeyGeneration = false
        return update
    }

    /// The same update, leaving the database's own-key generation where it is: for updates that write nothing to
    /// the own keys (see `ENSQLiteWriteMode.advancesKeyGeneration`).
    package func leavingOwnKeys() -> Self {
        var update = self
        update.mode.advancesKeyGeneration = false
        return update
    }

    package func withoutTransaction() -> Self {
        var update = self
        update.mode.transactional = false
        return update
    }
}
