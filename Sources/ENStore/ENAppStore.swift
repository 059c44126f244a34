public import ENCore
public import ENSQLite

/// The app's own data: the sample app's `LocalStore` (onboarding, test results, exposures, the next
/// diagnosis-key file index, the last detection date and error), in its own SQLite file and schema.
///
/// On a phone the app keeps this beside the operating system's Exposure Notification state, which lives in an
/// ``ENStore``; the two share no table and no file, and nothing the framework store does writes these fields.
/// Operations are request values run through ``ENPersistentStore``'s accessors, and every value is observable:
///
/// ```swift
/// let appStore = try ENAppStore(path: documents.appendingPathComponent("app.sqlite").path)
/// try appStore.write(.setOnboarded(true))
/// for try await results in appStore.observe(.testResults) { show(results) }
/// ```
///
/// App data never expires; `eraseAll` deletes it. Data an older version kept in the framework
/// store's file is imported with ``ENStoreUpdate/importLegacyData(_:)`` (see <doc:Migration>).
public final class ENAppStore: ENPersistentStore {
    /// The store's database.
    public let database: ENStoreDatabase

    /// Opens (creating if needed) the app store in the file at `path`.
    ///
    /// An existing file is checked read-only first; one that is not an app store, or was written by a newer
    /// version of this package, is left exactly as it was.
    ///
    /// - Throws: `ENError.Code.badFormat` when the file is not an SQLite database or not an app store (an
    ///   ``ENStore`` file included); `ENError.Code.unsupported` when a newer schema wrote it;
    ///   `ENError.Code.dataInaccessible` when it cannot be opened.
    public init(path: String) throws(ENError) {
        database = try ENStoreDatabase(path: path, schema: AppSchema.schema)
    }

    /// Opens an empty app store in memory, for tests and previews.
    public init() throws(ENError) {
        database = try ENStoreDatabase(inMemory: AppSchema.schema)
    }
}
