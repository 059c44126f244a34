package import Foundation

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// Files written whole or not at all, and on disk before the call returns: the one implementation behind the
/// store's cached key files (ENStore) and a key server's export folder (ENKeyServer).
///
/// A file is written under a temporary name in its own folder, flushed (`fdatasync`: its bytes and what is needed
/// to read them back), then renamed over its name; a crash leaves the old file or the new one, never a part. The
/// rename itself is durable once the folder is flushed (``syncDirectory(_:)``), which a caller writing many files
/// does once after the last. A full disk or quota is `insufficientStorage`, anything else `dataInaccessible`; both
/// name the file and say what the system said.
package enum DurableFile {
    /// Writes `contents` as the file at `path`, through the temporary file `temporary` (in the same folder), with
    /// permissions `mode`. With `exclusive`, a temporary file that exists already is an error (writers that may run
    /// at once give each write a name of its own); without, it is replaced. On an error nothing is left at
    /// `temporary` and `path` is as before.
    package static func write(
        _ contents: Data, to path: String, through temporary: String, mode: Int, exclusive: Bool = false
    ) throws(ENError) {
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (exclusive ? O_EXCL : O_TRUNC)
        let fd = open(temporary, flags, mode_t(mode))
        guard fd >= 0 else { throw error("cannot create the file", path: temporary) }
        var failure: ENError?
        contents.withUnsafeBytes { buffer in
            var done = 0
            while done < buffer.count {
                let n = systemWrite(fd, buffer.baseAddress! + done, buffer.count - done)
                if n < 0, errno == EINTR { continue }
                guard n > 0 else {
                    failure = error("cannot write the file", path: temporary)
                    return
                }
                done += n
            }
        }
        if failure == nil, fdatasync(fd) != 0 { failure = error("cannot flush the file", path: temporary) }
        close(fd)
        if failure == nil, rename(temporary, path) != 0 { failure = error("cannot name the file", path: path) }
        if let failure {
            unlink(temporary)
            throw failure
        }
    }

    /// Flushes the entries of the folder at `path` (the names just renamed into it) to disk.
    package static func syncDirectory(_ path: String) throws(ENError) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw error("cannot open the folder", path: path) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw error("cannot flush the folder", path: path) }
    }

    /// The error of a failed system call on `path` (from `errno`): `insufficientStorage` for a full disk or quota,
    /// `dataInaccessible` otherwise.
    package static func error(_ message: String, path: String) -> ENError {
        let code = errno
        return ENError(
            code == ENOSPC || code == EDQUOT ? .insufficientStorage : .dataInaccessible,
            "\(message): \(String(cString: strerror(code)))", context: ENError.Context(file: path))
    }
}

// The system call, outside the type.
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int { write(fd, buffer, count) }
