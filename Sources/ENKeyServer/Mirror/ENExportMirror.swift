internal import ENBoundedFetch
public import ENCore
public import ENExportFormat
public import Foundation

#if canImport(FoundationNetworking)
    internal import FoundationNetworking
#endif

/// Copies another key server's export files and `index.txt` into a directory (the export directory a static server
/// or CDN serves), as Google's mirror (`internal/mirror`, `cmd/mirror`) copies them into a bucket, and verifies
/// every file against the source's public keys, which Google's does not.
///
/// One ``run()``, like one pass of Google's `processMirror`:
///
/// 1. takes the directory's lock (another run holding it: nothing is done, as Google skips a locked mirror);
/// 2. fetches the source's `ROOT/index.txt` (at most ``maximumIndexBytes``) and checks every line is `ROOT/NAME`;
/// 3. fetches each file it does not have yet, in the index's order (at most ``maximumFileBytes`` each), verifies it
///    against ``trustedKeys`` (any trusted signature, Android's rule, so a source rotating its keys stays
///    mirrored), and writes it under its local name (the source's, or ``filenameRewrite``'s) atomically and
///    durably; a file that fails is refused, left out, and tried again next run (Google's mirror also skips a
///    failed download and retries it);
/// 4. writes `index.txt`, the files present in the source's order as `EXPORTROOT/NAME`, atomically;
/// 5. removes the files the source no longer lists.
///
/// Google deletes first and writes the index last; this mirror writes the index before removing, so that at every
/// moment (a kill -9 included) `index.txt` lists only whole files that are there, and a rerun converges.
///
/// ```swift
/// let mirror = try ENExportMirror(
///     source: URL(string: "https://keys.example.org")!, sourceRoot: "exposureKeyExport-US",
///     directory: URL(fileURLWithPath: "/srv/cdn"), trustedKeys: [key])
/// let report = try await mirror.run()
/// ```
public struct ENExportMirror: Sendable {
    /// The source's base URL: its index is `source/SOURCEROOT/index.txt` and each line `L` is fetched from
    /// `source/L` (Google's `IndexFile` and `ExportRoot`).
    public var source: URL
    /// The prefix of the names in the source's `index.txt`, e.g. `exposureKeyExport-US`; a line with another is
    /// refused.
    public var sourceRoot: String
    /// The directory the files and `index.txt` are written under.
    public var directory: URL
    /// The prefix of the names in the mirrored `index.txt` and the folder under ``directory`` the files go to
    /// (Google's `FilenameRoot`).
    public var exportRoot: String
    /// How files are renamed, or `nil` to keep the source's names (Google's `FilenameRewrite`).
    public var filenameRewrite: ENMirrorFilenameRewrite?
    /// The source's public keys; a file no signature of which verifies with one of them is refused.
    public var trustedKeys: [ENExportVerificationKey]
    /// The most bytes of `index.txt` read (Google's `MAX_INDEX_BYTES`, 1 MiB).
    public var maximumIndexBytes = 1 << 20
    /// The most bytes of one export file read (Google's `MAX_ZIP_BYTES`, 20 MiB).
    public var maximumFileBytes = 20 << 20
    /// How long one download may take, in seconds (Google's `EXPORT_FILE_DOWNLOAD_TIMEOUT`, 1 minute).
    public var downloadTimeout: TimeInterval = 60

    /// Creates a mirror.
    ///
    /// - Parameters:
    ///   - source: The source's base URL (`http` or `https`).
    ///   - sourceRoot: The prefix of the source's index names.
    ///   - directory: Where the mirror writes.
    ///   - exportRoot: The prefix of the mirrored names; `nil` keeps `sourceRoot`.
    ///   - filenameRewrite: How files are renamed; `nil` keeps their names.
    ///   - trustedKeys: The source's public keys (at least one).
    /// - Throws: `badParameter` naming what is wrong (and the parameter in its context's `field`): a URL that is
    ///   not `http(s)`, a root that is not plain names joined by `/`, no trusted key.
    public init(
        source: URL, sourceRoot: String, directory: URL, exportRoot: String? = nil,
        filenameRewrite: ENMirrorFilenameRewrite? = nil, trustedKeys: [ENExportVerificationKey]
    ) throws(ENError) {
        guard ["http", "https"].contains(source.scheme?.lowercased() ?? ""), source.host != nil else {
            throw ENError(
                .badParameter, "the source \(source.absoluteString) is not an http or https URL",
                context: .init(field: "source"))
        }
        guard MirrorIndex.isRoot(sourceRoot) else {
            throw ENError(
                .badParameter, "the source root \"\(sourceRoot)\" is not plain names joined by '/'",
                context: .init(field: "sourceRoot"))
        }
        let exportRoot = exportRoot ?? sourceRoot
        guard MirrorIndex.isRoot(exportRoot) else {
            throw ENError(
                .badParameter, "the export root \"\(exportRoot)\" is not plain names joined by '/'",
                context: .init(field: "exportRoot"))
        }
        guard !trustedKeys.isEmpty else {
            throw ENError(
                .badParameter, "a mirror needs the source's public keys to verify its files",
                context: .init(field: "trustedKeys"))
        }
        self.source = source
        self.sourceRoot = sourceRoot
        self.directory = directory
        self.exportRoot = exportRoot
        self.filenameRewrite = filenameRewrite
        self.trustedKeys = trustedKeys
    }

    /// The URL of the source's `index.txt`.
    public var indexURL: URL { url(of: sourceRoot.isEmpty ? "index.txt" : "\(sourceRoot)/index.txt") }

    /// Mirrors the source once (see the type's steps).
    ///
    /// - Returns: what was published, refused, removed and listed.
    /// - Throws: `dataInaccessible` or `badFormat` naming the index when it cannot be fetched or a line is not
    ///   `ROOT/NAME` (nothing in the directory changes then); a file system error naming the file that could not be
    ///   written. A refused file is in the report, not thrown.
    public func run() async throws(ENError) -> ENExportMirrorReport {
        var report = ENExportMirrorReport()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw ENError(
                .dataInaccessible, "cannot create the mirror's directory: \(error)",
                context: .init(file: directory.path))
        }
        guard let lock = try MirrorLock(directory: directory) else {
            report.skippedLocked = true
            return report
        }
        defer { withExtendedLifetime(lock) {} }
        let folder = ExportDirectory(
            folder: exportRoot.isEmpty ? directory : directory.appendingPathComponent(exportRoot), root: exportRoot)
        // The lock is held: any temporary file is a dead run's.
        folder.removeAbandonedTemporaryFiles(olderThan: -1)
        ExportDirectory(folder: directory, root: "").removeAbandonedTemporaryFiles(olderThan: -1)

        let index = try MirrorIndex(
            try await fetch(indexURL, maximumBytes: maximumIndexBytes), root: sourceRoot,
            source: indexURL.absoluteString)
        let state = try MirrorState.load(from: directory)

        // Local names: the ones given before, then new ones, recorded before any file is fetched.
        var local: [String: String] = [:]
        for entry in state.entries { local[entry.remote] = entry.local }
        let known = Set(local.keys)
        var used = Set(local.values)
        var rewrite = filenameRewrite
        var next = state
        for name in index.names where local[name] == nil {
            var given = name
            if rewrite != nil {
                repeat { given = rewrite!.name(at: Date()) } while used.contains(given)
            }
            local[name] = given
            used.insert(given)
            next.entries.append(MirrorState.Entry(remote: name, local: given))
        }
        if next.entries.count != state.entries.count { try next.save(to: directory) }

        // The files not there yet, in the index's order.
        let verifier = ENExportVerifier(trustedKeys: trustedKeys, rule: .anyTrustedSignature)
        for name in index.names {
            let given = local[name]!
            if known.contains(name) && folder.contains(given) { continue }
            let url = url(of: sourceRoot.isEmpty ? name : "\(sourceRoot)/\(name)")
            let data: Data
            do throws(ENError) {
                data = try await fetch(url, maximumBytes: maximumFileBytes)
                let result = try verifier.verify(try ENExportArchive(data: data))
                guard result.isVerified else {
                    throw ENError(.badFormat, result.description, context: .init(file: url.absoluteString))
                }
            } catch {
                report.refused.append(.init(name: name, error: error))
                continue
            }
            try folder.save(data, as: given)
            report.published.append(given)
        }

        // The index: what is there, in the source's order; then what the source dropped.
        report.listed = index.names.compactMap { name in folder.contains(local[name]!) ? local[name]! : nil }
        try folder.writeIndex(report.listed)
        let current = Set(index.names)
        for entry in next.entries where !current.contains(entry.remote) {
            if folder.contains(entry.local) { report.removed.append(entry.local) }
            try folder.remove(entry.local)
        }
        next.entries.removeAll { !current.contains($0.remote) }
        if !report.removed.isEmpty || next.entries.count != state.entries.count
            || !report.published.isEmpty
        {
            try next.save(to: directory)
        }
        return report
    }

    /// `source/path`.
    private func url(of path: String) -> URL {
        var base = source.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        // Every path is plain names joined by '/', so the URL is valid.
        return URL(string: base + "/" + path)!
    }

    /// One bounded `GET`, 200 required.
    private func fetch(_ url: URL, maximumBytes: Int) async throws(ENError) -> Data {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = downloadTimeout
        configuration.timeoutIntervalForResource = downloadTimeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return try await BoundedFetch.fetch(url, maximumBytes: maximumBytes, configuration: configuration)
    }
}
