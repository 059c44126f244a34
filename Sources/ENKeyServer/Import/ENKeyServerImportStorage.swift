public import ENCore
public import Foundation

/// The storage primitives of imports (Google's `ImportFile` table, `internal/exportimport/database`): the files an
/// import found in the other server's `index.txt`, and whether each was imported. Each is one transaction.
public protocol ENKeyServerImportStorage: Sendable {
    /// Records the files of import `importName` not recorded yet (discovered at `date`), and closes as failed the
    /// files still open that the index no longer lists (Google's `CreateNewFilesAndFailOld`).
    ///
    /// - Returns: how many files were new, and how many were closed.
    func scheduleImportFiles(_ importName: String, files: [String], at date: Date) async throws(ENError) -> (
        new: Int, closed: Int
    )

    /// Marks a file imported, or counts a failed try (it stays open and is tried again later).
    func finishImportFile(_ importName: String, file: String, imported: Bool, at date: Date) async throws(ENError)

    /// Every file of import `importName`, in discovery order.
    func importFiles(_ importName: String) async throws(ENError) -> [ENKeyServerImportFile]
}

extension ENKeyServerImportStorage {
    /// The open files of import `importName` due at `date`: never tried, or tried `retries` times and discovered at
    /// least `retries × retryInterval` ago (Google's `ImportFile.ShouldTry`), in discovery order.
    public func importFilesDue(_ importName: String, retryInterval: TimeInterval, at date: Date) async throws(ENError)
        -> [ENKeyServerImportFile]
    {
        try await importFiles(importName).filter {
            $0.status == .open && $0.discoveredAt.addingTimeInterval(Double($0.retries) * retryInterval) <= date
        }
    }
}

/// A file an import found in another server's `index.txt` (Google's `ImportFile`).
public struct ENKeyServerImportFile: Hashable, Sendable {
    /// Where a file is.
    public enum Status: String, Hashable, Sendable {
        /// Not imported yet (never tried, or every try failed).
        case open
        /// Imported.
        case complete
        /// No longer listed by the index before it could be imported.
        case failed
    }

    /// The file's URL.
    public var url: String
    /// When the index first listed it.
    public var discoveredAt: Date
    /// When it was last tried; `nil` before the first try.
    public var processedAt: Date?
    /// Where it is.
    public var status: Status
    /// How many tries failed.
    public var retries: Int

    /// Creates a record.
    public init(url: String, discoveredAt: Date, processedAt: Date? = nil, status: Status = .open, retries: Int = 0) {
        self.url = url
        self.discoveredAt = discoveredAt
        self.processedAt = processedAt
        self.status = status
        self.retries = retries
    }
}
