public import ENCore
internal import ENSQLite
internal import GRDB

/// An asynchronous sequence of one stored value: the current value first, then every change. Made by
/// ``ENPersistentStore/observe(_:)``.
///
/// The signal an app gets from a notification when stored data changes, as an `AsyncSequence` (Combine is not
/// available on every platform). Consecutive equal values are delivered once. The observation stops when the
/// iteration ends or its task is cancelled.
///
/// ```swift
/// for try await state in store.observe(.managerState) {
///     updateUI(state)
/// }
/// ```
public struct ENStoreObservation<Element: Sendable>: AsyncSequence, Sendable {
    /// Errors are `ENError`s.
    public typealias Failure = ENError

    let values: AsyncValueObservation<Element>
    let path: String

    init<Reducer: ValueReducer>(database: ENSQLiteDatabase, _ observation: ValueObservation<Reducer>)
    where Reducer.Value == Element, Element: Equatable {
        self.values = observation.removeDuplicates().values(in: database.writer)
        self.path = database.displayPath
    }

    /// Starts observing.
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: values.makeAsyncIterator(), path: path)
    }

    /// The iterator of an ``ENStoreObservation``.
    public struct Iterator: AsyncIteratorProtocol {
        /// Errors are `ENError`s.
        public typealias Failure = ENError

        var base: AsyncValueObservation<Element>.Iterator
        let path: String

        /// The next value: the current one on the first call, then the next change.
        public mutating func next() async throws(ENError) -> Element? {
            do { return try await base.next() } catch { throw ENError.store(error, path: path) }
        }
    }
}
