internal import ENCore
internal import ENSQLite
internal import Foundation
internal import GRDB

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// Where an ``ENDeviceStore`` keeps the `export.bin` of its cached key files (sealed with the store's cipher when it has
/// one): for a file store, one file each in a directory beside the database (``ENDeviceStore/cachedKeyFilesDirectory``),
/// named by the file's hash in hexadecimal; for an in-memory store, the `key_file_contents` table, or, when the store
/// shares its files (``ENSharedKeyFiles``), an empty row there whose bytes are the shared copy's. A file store
/// written by an earlier version may still hold some in that table: they are read from there until they expire.
///
/// Outside SQLite, a 1 MB `export.bin` is written once (SQLite writes a blob into its log, then again into the
/// database, page by page, each page with a checksum), and the database keeps SQLite's 4 KiB pages, which suit
/// its many small writes (a sighting at a time).
///
/// Contents are data only while a `cached_key_files` row refers to their hash, as before: a file is written and
/// flushed to disk (written under a temporary name, `fdatasync`ed, renamed, the directory flushed) before the
/// transaction that refers to it commits, and the files whose rows a transaction deletes are removed only once it
/// has committed. A file no row refers to (staged by a detection that did not finish) is removed by every sweep.
/// Every call runs inside one of the store's write or read accesses, so the store's single writer orders them.
struct KeyFileContents: Sendable {
    /// The directory of a file store's contents, or `nil` for an in-memory store.
    let directory: String?
    /// Where an in-memory store that shares its files keeps their bytes, or `nil`.
    let shared: ENSharedKeyFiles?

    /// The contents of the store whose database is at `storePath` (`nil` in memory), whose bytes are in `shared`
    /// (in memory only).
    init(storePath: String?, shared: ENSharedKeyFiles? = nil) {
        directory = storePath.map(Self.directory(forStoreAt:))
        self.shared = storePath == nil ? shared : nil
    }

    /// The contents directory of the store whose database is at `path`.
    static func directory(forStoreAt path: String) -> String { path + "-keyfiles" }

    private func path(of hash: Data) -> String? { directory.map { $0 + "/" + hash.hexString } }

    /// Whether the contents of `hash` are stored (referred to or staged).
    func contains(_ db: Database, _ hash: Data) throws -> Bool {
        if let path = path(of: hash), access(path, F_OK) == 0 { return true }
        let statement = try db.cachedStatement(sql: "SELECT 1 FROM key_file_contents WHERE hash = ?")
        return try Int.fetchOne(statement, arguments: [hash]) != nil
    }

    /// The stored contents of `hash`, or `nil` when there are none.
    func read(_ db: Database, _ hash: Data) throws -> Data? {
        if let path = path(of: hash), let contents = try Self.readFile(path) { return contents }
        let stored = try Data.fetchOne(
            db, sql: "SELECT export_binary FROM key_file_contents WHERE hash = ?", arguments: [hash])
        // An empty row stands for the shared copy.
        if let stored, stored.isEmpty, let shared { return shared.contents(of: hash) }
        return stored
    }

    /// Stores the contents of `hash` without reading them when the shared copy holds them already; returns
    /// whether it did.
    func writeFromShared(_ db: Database, _ hash: Data) throws -> Bool {
        guard let shared, shared.contains(hash) else { return false }
        // Cached: every detection of a simulated phone caches the day's file this way.
        try db.cachedStatement(sql: "INSERT INTO key_file_contents (hash, export_binary) VALUES (?, X'')")
            .execute(arguments: [hash])
        return true
    }

    /// Stores `contents` for `hash`, durably before the calling transaction commits: a file store's file is
    /// written under a temporary name, flushed and renamed (call ``syncDirectory()`` once after a batch).
    func write(_ db: Database, _ hash: Data, _ contents: Data) throws {
        guard let directory, let path = path(of: hash) else {
            shared?.add(hash, contents)
            try db.execute(
                sql: "INSERT INTO key_file_contents (hash, export_binary) VALUES (?, ?)",
                arguments: [hash, shared == nil ? contents : Data()])
            return
        }
        try Self.createDirectory(directory)
        do {
            try DurableFile.write(contents, to: path, through: path + ".tmp", mode: 0o600)
        } catch {
            throw ENError(error.code, "a cached key file: \(error.reason)", context: error.context)
        }
    }

    /// Moves the bytes of the rows that hold their own (a snapshot's) into the shared copy, leaving empty rows.
    ///
    /// - Throws: `ENError.Code.badFormat` when a file differs from the shared one with the same hash.
    func moveToShared(_ db: Database) throws {
        guard let shared else { return }
        let rows = try Row.fetchAll(
            db, sql: "SELECT hash, export_binary FROM key_file_contents WHERE length(export_binary) > 0")
        for row in rows {
            let (hash, contents): (Data, Data) = (try row.stored(at: 0), try row.stored(at: 1))
            try shared.adopt(hash, contents)
        }
        if !rows.isEmpty { try db.execute(sql: "UPDATE key_file_contents SET export_binary = X'' WHERE 1") }
    }

    /// Fills the empty rows of a copy of the store (a snapshot being written) with the shared bytes, so that the
    /// copy holds its own.
    func copyShared(into db: Database) throws {
        guard let shared else { return }
        for hash in try Data.fetchAll(db, sql: "SELECT hash FROM key_file_contents WHERE length(export_binary) = 0") {
            guard let contents = shared.contents(of: hash) else {
                throw ENError(
                    .dataInaccessible, "the shared export.bin of cached key file \(hash.hexString) is gone",
                    context: ENError.Context(section: "cachedKeyFiles"))
            }
            try db.execute(
                sql: "UPDATE key_file_contents SET export_binary = ? WHERE hash = ?", arguments: [contents, hash])
        }
    }

    /// Flushes the directory's entries (the names of the files just written) to disk.
    func syncDirectory() throws {
        guard let directory else { return }
        try DurableFile.syncDirectory(directory)
    }

    /// Deletes the contents that no `cached_key_files` row refers to (staged by a detection that did not record
    /// its result), and, once the calling transaction has committed, those of `released` (hashes whose rows it
    /// deleted); returns how many were deleted now.
    @discardableResult
    func deleteUnreferenced(_ db: Database, released: [Data] = []) throws -> Int {
        try db.execute(sql: "DELETE FROM key_file_contents WHERE hash NOT IN (SELECT hash FROM cached_key_files)")
        var deleted = db.changesCount
        guard let directory else { return deleted }
        let referenced = Set(try Data.fetchAll(db, sql: "SELECT hash FROM cached_key_files").map(\.hexString))
        let releasedNames = Set(released.map(\.hexString)).subtracting(referenced)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        where !referenced.contains(name) && !releasedNames.contains(name) {
            if unlink(directory + "/" + name) == 0, !name.hasSuffix(".tmp") { deleted += 1 }
        }
        if !releasedNames.isEmpty {
            // Removed only if the deletion of their rows commits: a rolled-back transaction keeps them.
            db.afterNextTransaction { _ in
                for name in releasedNames { unlink(directory + "/" + name) }
            }
        }
        return deleted
    }

    // MARK: Files

    /// The bytes of the file at `path`, or `nil` when there is none.
    private static func readFile(_ path: String) throws -> Data? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw fileError("cannot open a cached key file", path: path)
        }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw fileError("cannot read a cached key file", path: path) }
        let size = Int(status.st_size)
        var contents = Data(count: size)
        let got = contents.withUnsafeMutableBytes { buffer -> Int in
            var done = 0
            while done < size {
                let n = systemRead(fd, buffer.baseAddress! + done, size - done)
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return n < 0 ? -1 : done }
                done += n
            }
            return done
        }
        guard got == size else { throw fileError("cannot read a cached key file (short read)", path: path) }
        return contents
    }

    private static func createDirectory(_ path: String) throws {
        if mkdir(path, 0o700) == 0 || errno == EEXIST { return }
        throw fileError("cannot create the cached key files' directory", path: path)
    }

    private static func fileError(_ message: String, path: String) -> ENError {
        DurableFile.error(message, path: path)
    }
}

// The system call, outside the type, whose `read` would hide it.
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int { read(fd, buffer, count) }
