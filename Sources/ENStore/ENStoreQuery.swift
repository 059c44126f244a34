package import GRDB

/// A read of a store of type `Store`, producing a `Value`: one operation, written once, that
/// `read(_:)` runs synchronously or `async` and
/// ``ENPersistentStore/observe(_:)`` observes.
///
/// The queries are static members constrained to their store, for example `ENStoreQuery.ownKeys` for an
/// ``ENDeviceStore``; write them with a leading dot:
/// `try store.read(.ownKeys)`. A query reads one consistent snapshot, however many tables it reads.
public struct ENStoreQuery<Store: ENPersistentStore, Value: Sendable>: Sendable {
    let fetch: @Sendable (Store, Database) throws -> Value

    /// A query that runs `fetch` in a read access (the store gives its configuration, such as its cipher).
    package init(_ fetch: @escaping @Sendable (Store, Database) throws -> Value) {
        self.fetch = fetch
    }
}
