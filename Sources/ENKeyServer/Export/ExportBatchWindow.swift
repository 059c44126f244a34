package import Foundation

/// An export batch to create: its window, in UTC seconds (the `START` and `END` of its file names), and which
/// keys it takes. One rule for every storage: backends ask ``ENKeyServerConfiguration/batchWindows(latestEnd:earliestWaiting:at:)``
/// and store what it answers.
package struct ExportBatchWindow: Hashable, Sendable {
    /// The batch's window in UTC seconds.
    package var window: Range<UInt64>
    /// The keys the batch takes arrived (or were revised) at or after this date; `nil` for no lower bound.
    package var keysFrom: Date?
    /// The keys the batch takes arrived (or were revised) before this date.
    package var keysUntil: Date

    /// Creates a window.
    package init(window: Range<UInt64>, keysFrom: Date?, keysUntil: Date) {
        self.window = window
        self.keysFrom = keysFrom
        self.keysUntil = keysUntil
    }

    /// `date` in whole UTC seconds since 1970 (0 before 1970), as export files and file names give times.
    package static func unixSeconds(_ date: Date) -> UInt64 {
        UInt64(max(0, date.timeIntervalSince1970.rounded(.down)))
    }
}

extension ENKeyServerConfiguration {
    /// The bound of what a batch without an ``exportPeriod`` takes at `date` (keys arrived or revised before it),
    /// when the storage must look for the earliest key waiting below it; `nil` when it need not (with a period,
    /// or while a batch is open).
    ///
    /// The bound is `date` plus one millisecond: everything stored at `date` is in, on every storage (SQLite keeps
    /// dates as doubles, PostgreSQL in microseconds).
    package func waitingKeysBound(openBatchExists: Bool, at date: Date) -> Date? {
        guard exportPeriod == nil, !openBatchExists else { return nil }
        return date.addingTimeInterval(0.001)
    }

    /// The batches to create at `date`, oldest first.
    ///
    /// With an ``exportPeriod``, Google's due windows (``dueBatchWindows(after:at:)``), each taking the keys of
    /// its window. Without one, when a key waits (`earliestWaiting`: the earliest arrival or revision waiting
    /// below ``waitingKeysBound(openBatchExists:at:)``, as the storage found it), one batch of everything
    /// waiting: its window starts at the earliest arrival waiting, never before the latest batch end even when
    /// the clock has not passed it (two publishes within a second), so that windows never overlap and names
    /// never repeat; and a batch after a long pause starts recently, so that `index.txt` lists it. It ends at
    /// `date`, at least one second after its start.
    ///
    /// - Parameters:
    ///   - latestEnd: the latest batch end in UTC seconds; `nil` before the first batch.
    ///   - earliestWaiting: the earliest arrival or revision waiting; `nil` when none (or not looked for).
    ///   - date: now.
    package func batchWindows(latestEnd: UInt64?, earliestWaiting: Date?, at date: Date) -> [ExportBatchWindow] {
        if exportPeriod != nil {
            return dueBatchWindows(after: latestEnd, at: date).map {
                ExportBatchWindow(
                    window: $0, keysFrom: Date(timeIntervalSince1970: TimeInterval($0.lowerBound)),
                    keysUntil: Date(timeIntervalSince1970: TimeInterval($0.upperBound)))
            }
        }
        guard let earliestWaiting, let until = waitingKeysBound(openBatchExists: false, at: date) else { return [] }
        let now = ExportBatchWindow.unixSeconds(date)
        let start = max(latestEnd ?? 0, min(ExportBatchWindow.unixSeconds(earliestWaiting), now))
        return [ExportBatchWindow(window: start..<max(now, start + 1), keysFrom: nil, keysUntil: until)]
    }
}
