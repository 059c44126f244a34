internal import ENBoundedFetch
public import ENCore
internal import ENExportFormat
public import Foundation

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// Downloads the key files a key server lists in its `index.txt`, as apps of Google's exposure-notifications-server
/// did: fetch `ROOT/index.txt`, take the entries after the last one already processed, fetch each file, and hand
/// the local copies to ``ENManager/detectExposures(configuration:diagnosisKeyURLs:)``.
///
/// ```swift
/// let downloader = ENKeyFileDownloader(serverURL: URL(string: "https://cdn.example.org")!,
///                                      exportRoot: "exposureKeyExport-US")
/// let download = try await downloader.download(after: lastEntry, into: directory)
/// let summary = try await manager.detectExposures(configuration: configuration,
///                                                 diagnosisKeyURLs: download.fileURLs)
/// lastEntry = download.lastEntry  // only once the detection succeeded
/// ```
///
/// The index is one entry per line, each a path relative to ``serverURL`` (`ROOT/START-END-NNNNN.zip`), sorted;
/// Google's server and `enserver` list the files of the last 14 days. An entry is new when it sorts after the
/// last one processed (names start with the batch's start time, so this is time order), which still works when
/// older entries have been dropped from the index.
public struct ENKeyFileDownloader: Sendable {
    /// Fetches the bytes at a URL, refusing more than a given number of bytes.
    ///
    /// - Throws: an `ENError` naming the URL (`dataInaccessible` for a failed request or a status other than
    ///   200, `badFormat` for a body over the limit).
    public typealias Fetch = @Sendable (_ url: URL, _ maximumBytes: Int) async throws(ENError) -> Data

    /// The root the index's entries are relative to (a CDN, or `enserver` itself).
    public var serverURL: URL
    /// The folder of `index.txt` and the files below ``serverURL`` (`enserver --export-root`); empty for the root.
    public var exportRoot: String
    /// The largest `index.txt` accepted, in bytes (default 1 MiB: about 20,000 entries).
    public var maximumIndexBytes = 1 << 20
    /// The largest key file accepted, in bytes (default 64 MiB; a file of Google's 750,000-key limit is about
    /// 20 MB).
    public var maximumFileBytes = 64 << 20
    private let fetch: Fetch

    /// A downloader fetching over HTTP(S) with `session`.
    public init(serverURL: URL, exportRoot: String = "", session: URLSession = .shared) {
        self.init(serverURL: serverURL, exportRoot: exportRoot, fetch: Self.fetcher(session))
    }

    /// A downloader fetching with `fetch` (tests, or an app's own transport).
    public init(serverURL: URL, exportRoot: String = "", fetch: @escaping Fetch) {
        self.serverURL = serverURL
        self.exportRoot = exportRoot
        self.fetch = fetch
    }

    /// The URL of `index.txt`.
    public var indexURL: URL {
        exportRoot.isEmpty
            ? serverURL.appendingPathComponent("index.txt")
            : serverURL.appendingPathComponent(exportRoot)
                .appendingPathComponent("index.txt")
    }

    /// The index's entries, in its order.
    ///
    /// - Throws: `dataInaccessible` naming the index's URL when it cannot be fetched; `badFormat` naming the line
    ///   (`ENError.Context.index`, from 0) of an entry that is not a relative path to a `.zip` (an absolute URL,
    ///   `..`, characters outside letters, digits and `-_./`), and for an index over ``maximumIndexBytes``.
    public func entries() async throws(ENError) -> [String] {
        let data = try await fetch(indexURL, maximumIndexBytes)
        return try ExportIndex.entries(in: data, source: indexURL.absoluteString)
    }

    /// Downloads the files listed after `lastEntry` (all of them when `nil`) into `directory` (created if needed),
    /// in index order, each under its entry's file name.
    ///
    /// - Throws: as ``entries()``; `dataInaccessible` naming the URL of a file that cannot be fetched, or the
    ///   directory when a file cannot be written; `badFormat` for a file over ``maximumFileBytes``. Files written
    ///   before the failure are left in `directory`, and the caller's `lastEntry` stays as it was.
    public func download(after lastEntry: String?, into directory: URL) async throws(ENError) -> ENKeyFileDownload {
        let new = try await entries().filter { entry in lastEntry.map { entry > $0 } ?? true }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw ENError(
                .dataInaccessible, "cannot create the download directory", context: .init(file: directory.path))
        }
        var urls: [URL] = []
        for entry in new {
            let data = try await fetch(serverURL.appendingPathComponent(entry), maximumFileBytes)
            let url = directory.appendingPathComponent((entry as NSString).lastPathComponent)
            do {
                try data.write(to: url, options: .atomic)
            } catch {
                throw ENError(.dataInaccessible, "cannot write a downloaded key file", context: .init(file: url.path))
            }
            urls.append(url)
        }
        return ENKeyFileDownload(entries: new, fileURLs: urls, lastEntry: new.last ?? lastEntry)
    }

    /// Fetches with `session`'s configuration, streaming: the transfer stops as soon as the body goes over the
    /// limit, so a server that never ends its body costs at most the limit.
    static func fetcher(_ session: URLSession) -> Fetch {
        // URLSessionConfiguration is not Sendable; each fetch makes its own session from this copy and never
        // mutates it.
        let configuration = Unchecked(session.configuration)
        return { (url: URL, maximumBytes: Int) async throws(ENError) -> Data in
            try await BoundedFetch.fetch(url, maximumBytes: maximumBytes, configuration: configuration.value)
        }
    }
}

/// What ``ENKeyFileDownloader/download(after:into:)`` fetched.
public struct ENKeyFileDownload: Hashable, Sendable {
    /// The new index entries, in index order.
    public var entries: [String]
    /// The local copies, one per entry, in the same order: pass them to `detectExposures`.
    public var fileURLs: [URL]
    /// The last entry now processed: the last new one, or the one given when nothing was new. Keep it only once
    /// the detection on ``fileURLs`` succeeded.
    public var lastEntry: String?

    /// A download's result.
    public init(entries: [String], fileURLs: [URL], lastEntry: String?) {
        self.entries = entries
        self.fileURLs = fileURLs
        self.lastEntry = lastEntry
    }
}
