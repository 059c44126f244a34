public import ENCore
public import ENSQLite
internal import GRDB

/// A store on one SQLite database, with its operations written once as typed requests and run through one
/// generic accessor, synchronously or `async`.
///
/// ``ENDeviceStore`` (the device's framework state) conforms, in a file and schema of its own (a key server's
/// `ENKeyServerSQLiteStore` shares its SQLite layer, not this protocol). An operation is a value: an
/// ``ENStoreQuery`` reads, an ``ENStoreUpdate`` writes in one transaction. Each store's operations are static
/// members constrained to that store, so a request meant for one store does not compile against another:
///
/// ```swift
/// let keys = try store.read(.ownKeys)                         // synchronous
/// try await store.write(.addSightings(sightings))            // async
/// for try await counts in store.observe(.recordCounts) { show(counts) }
/// ```
///
/// The synchronous forms block the calling thread until the database answers: call them from threads,
/// dispatch queues or command-line code. From Swift concurrency use the `async` forms (the compiler selects
/// them there); they run on the database's own dispatch queues through GRDB's async accesses and never block
/// the caller's thread, so they cannot starve the cooperative thread pool.
///
/// Conforming is reserved to this package's stores.
public protocol ENPersistentStore: AnyObject, Sendable {
    /// The database the store's requests run against.
    var database: ENSQLiteDatabase { get }
}

extension ENPersistentStore {
    /// The file the store lives in, or `nil` for an in-memory store.
    public var path: String? { database.path }

    /// Runs `query` on a consistent snapshot of the store and returns its value.
    ///
    /// - Throws: the query's `ENError`, or the database's mapped to one.
    public func read<Value>(_ query: ENStoreQuery<Self, Value>) throws(ENError) -> Value {
        try database.read { db in try query.fetch(self, db) }
    }

    /// Runs `query` on a consistent snapshot of the store; see the synchronous form. Does not block.
    public func read<Value>(_ query: ENStoreQuery<Self, Value>) async throws(ENError) -> Value {
        try await database.read { db in try query.fetch(self, db) }
    }

    /// Runs `update` in one transaction: all of its writes are stored, or none (when it throws, or the process
    /// dies first). Readers never see a part of it.
    ///
    /// - Returns: the update's value.
    /// - Throws: the update's `ENError` (nothing is written), or the database's mapped to one.
    @discardableResult
    public func write<Value>(_ update: ENStoreUpdate<Self, Value>) throws(ENError) -> Value {
        try database.write(update.mode) { db in try update.apply(self, db) }
    }

    /// Runs `update` in one transaction; see the synchronous form. Does not block.
    @discardableResult
    public func write<Value>(_ update: ENStoreUpdate<Self, Value>) async throws(ENError) -> Value {
        try await database.write(update.mode) { db in try update.apply(self, db) }
    }

    /// Observes `query`: an asynchronous sequence of its value, the current one first, then one after each
    /// change of the tables it read (consecutive equal values are delivered once).
    public func observe<Value: Equatable>(_ query: ENStoreQuery<Self, Value>) -> ENStoreObservation<Value> {
        ENStoreObservation(database: database, ValueObservation.tracking { db in try query.fetch(self, db) })
    }

    /// Runs SQLite's `PRAGMA integrity_check` over the whole database.
    ///
    /// - Throws: `ENError.Code.badFormat` listing the first problems when the file is damaged.
    public func checkIntegrity() throws(ENError) { try database.checkIntegrity() }

    /// Closes the database connections. Any later use of the store throws.
    public func close() throws(ENError) { try database.close() }
}
