internal import ENCore
internal import Foundation

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// Who may read the framework's state on disk: its owner only. The store's directory is mode 0700 and its
/// database, write-ahead log and shared-memory files 0600, whatever the process's umask.
extension FrameworkStorage {
    /// Creates `directory` (mode 0700) when needed, sets an existing one to 0700, and creates the database file
    /// at `databasePath` with mode 0600 before SQLite opens it: SQLite gives the write-ahead log and
    /// shared-memory files the database file's mode.
    ///
    /// - Throws: `insufficientStorage` naming the directory when it cannot be created; `dataInaccessible`
    ///   naming the file whose mode cannot be set.
    static func prepareOwnerOnly(directory: URL, databasePath: String) throws(ENError) {
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ENError(.insufficientStorage, "cannot create the store directory \(directory.path): \(error)")
        }
        try setOwnerOnly(directory.path, mode: 0o700)
        let descriptor = open(databasePath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw ENError(
                .dataInaccessible, "cannot create the store file: errno \(errno)", context: .init(file: databasePath))
        }
        close(descriptor)
        try setOwnerOnly(databasePath, mode: 0o600)
    }

    /// Sets the store's database, write-ahead log and shared-memory files (those that exist) to mode 0600.
    static func restrictToOwner(databasePath: String) throws(ENError) {
        for path in [databasePath, databasePath + "-wal", databasePath + "-shm"]
        where FileManager.default.fileExists(atPath: path) {
            try setOwnerOnly(path, mode: 0o600)
        }
    }

    private static func setOwnerOnly(_ path: String, mode: mode_t) throws(ENError) {
        guard chmod(path, mode) == 0 else {
            throw ENError(
                .dataInaccessible,
                "cannot set the mode of the store's file to \(String(mode, radix: 8)): errno \(errno)",
                context: .init(file: path))
        }
    }
}
