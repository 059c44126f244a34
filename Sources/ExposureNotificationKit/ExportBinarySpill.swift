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
            try exportBinary.write(to: url)
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

    /// Removes the directory and everything in it.
    func remove() {
        created.withLock { created in
            if created { try? FileManager.default.removeItem(at: directory) }
            created = false
        }
    }
}
