internal import ENCore
internal import ENCrypto
internal import Foundation

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// Where a detection keeps the verified `export.bin` of the files beyond its memory budget
/// (``ENLimits/detectionMemoryBudget``): a private temporary directory, created on the first file and removed
/// with everything in it when the detection ends. Matching and caching read the bytes back from here instead of
/// unzipping the file again; what is read back must hash as it did when it was verified.
///
/// The directory's name carries the process's ID (`ExposureDetection-PID-UUID`). A process that ends during a
/// detection (a crash, a kill) cannot remove its directory, so each new directory's creation first removes those
/// of processes that no longer exist.
///
/// The files are temporary: they are written without being flushed to disk (Foundation's `Data.write(to:)` calls
/// `fsync`, which made the disk write 84 MB at 5 M keys that nobody reads after the detection), and removing the
/// directory, which takes tens of milliseconds for 100 MB of files, happens on another thread once the directory is
/// renamed out of the way.
final class ExportBinarySpill: Sendable {
    private let directory: URL
    private let created = Locked(false)

    /// The prefix of every spill directory's name.
    static let namePrefix = "ExposureDetection-"

    /// A spill in `parent` (the system's temporary directory by default).
    init(in parent: URL = FileManager.default.temporaryDirectory) {
        directory = parent.appendingPathComponent(
            "\(Self.namePrefix)\(getpid())-\(UUID().uuidString)", isDirectory: true)
    }

    deinit { remove() }

    /// Writes the `export.bin` of the `index`th file and returns where it is.
    func write(_ exportBinary: Data, index: Int) throws(ENError) -> URL {
        let url = directory.appendingPathComponent("\(index).bin")
        do {
            try created.withLock { created in
                if created { return }
                Self.removeAbandoned(in: directory.deletingLastPathComponent())
                try FileManager.default.createDirectory(
                    at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                created = true
            }
            try Self.writeFile(url.path, exportBinary)
        } catch {
            throw ENError(
                .dataInaccessible, "cannot keep a verified export.bin aside: \(error.localizedDescription)",
                context: ENError.Context(file: url.path))
        }
        return url
    }

    /// Reads back the `export.bin` written at `url`, which must hash to `hash`; errors name `file`.
    func read(_ url: URL, hash: Data, file: String) throws(ENError) -> Data {
        let exportBinary: Data
        do {
            exportBinary = try Data(contentsOf: url)
        } catch {
            throw ENError(
                .dataInaccessible, "a verified export.bin kept aside is gone: \(error.localizedDescription)",
                context: ENError.Context(file: file))
        }
        guard SHA256.hash(exportBinary) == hash else {
            throw ENError(.badFormat, "the file changed after it was verified", context: ENError.Context(file: file))
        }
        return exportBinary
    }

    /// Removes the spill directories in `parent` whose process no longer exists. Directories of live processes,
    /// names without a process ID, and anything that cannot be removed are left alone.
    static func removeAbandoned(in parent: URL) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: parent.path) else { return }
        for name in names where name.hasPrefix(namePrefix) {
            let rest = name.dropFirst(namePrefix.count)
            guard let dash = rest.firstIndex(of: "-"), let pid = pid_t(rest[..<dash]), pid > 0,
                UUID(uuidString: String(rest[rest.index(after: dash)...])) != nil,
                kill(pid, 0) != 0, errno == ESRCH
            else { continue }
            try? FileManager.default.removeItem(at: parent.appendingPathComponent(name, isDirectory: true))
        }
    }

    /// Removes the directory and everything in it: renames it at once (to another name of this process, which a
    /// later spill's sweep removes if this process ends first), then deletes it on another thread.
    func remove() {
        created.withLock { created in
            guard created else { return }
            created = false
            let parent = directory.deletingLastPathComponent()
            let renamed = parent.appendingPathComponent(
                "\(Self.namePrefix)\(getpid())-\(UUID().uuidString)", isDirectory: true)
            let doomed = rename(directory.path, renamed.path) == 0 ? renamed : directory
            DispatchQueue.global(qos: .utility).async { try? FileManager.default.removeItem(at: doomed) }
        }
    }

    /// Writes `contents` to a new file at `path`, without flushing it to disk.
    private static func writeFile(_ path: String, _ contents: Data) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SpillError(errno: errno) }
        defer { close(fd) }
        try contents.withUnsafeBytes { buffer in
            var done = 0
            while done < buffer.count {
                let n = systemWrite(fd, buffer.baseAddress! + done, buffer.count - done)
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { throw SpillError(errno: n < 0 ? errno : ENOSPC) }
                done += n
            }
        }
    }

    /// A failed system call while writing a file.
    private struct SpillError: Error, LocalizedError {
        var errno: Int32
        var errorDescription: String? { String(cString: strerror(errno)) }
    }
}

/// The system's `write`, outside the type, whose `write(_:index:)` would hide it.
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int { write(fd, buffer, count) }
