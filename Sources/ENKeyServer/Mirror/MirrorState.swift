import ENCore
import Foundation

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// What a mirror remembers between runs, as Google's mirror keeps its `MirrorFile` rows
/// (`internal/mirror/database/mirror.go`): for each source file it took, the local name it gave it. Kept as
/// `.enserver-mirror.json` in the mirror's directory, written atomically (``DurableFile``). A new file's local name
/// is recorded before the file is fetched, so a run killed after the file's rename names it the same on the rerun
/// (no duplicate under a second rewritten name).
struct MirrorState: Codable {
    /// One source file and its local name.
    struct Entry: Codable {
        var remote: String
        var local: String
    }

    /// The state file's name in the mirror's directory.
    static let fileName = ".enserver-mirror.json"
    /// The lock file's name in the mirror's directory.
    static let lockName = ".enserver-mirror.lock"
    /// The most bytes of state read.
    static let maximumBytes = 64 << 20

    var entries: [Entry] = []

    /// The state in `directory`, or none when there is no state file yet.
    ///
    /// - Throws: `badFormat` naming the file when it is there but unreadable.
    static func load(from directory: URL) throws(ENError) -> MirrorState {
        let path = directory.appendingPathComponent(fileName).path
        guard FileManager.default.fileExists(atPath: path) else { return MirrorState() }
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            let data = try handle.read(upToCount: maximumBytes + 1) ?? Data()
            guard data.count <= maximumBytes else {
                throw ENError(.badFormat, "the mirror state is over \(maximumBytes) bytes", context: .init(file: path))
            }
            let state = try JSONDecoder().decode(MirrorState.self, from: data)
            guard state.entries.allSatisfy({ MirrorIndex.isPlainName($0.remote) && MirrorIndex.isPlainName($0.local) })
            else {
                throw ENError(
                    .badFormat, "the mirror state names a file that is not a plain name", context: .init(file: path))
            }
            return state
        } catch let error as ENError {
            throw error
        } catch {
            throw ENError(.badFormat, "cannot read the mirror state: \(error)", context: .init(file: path))
        }
    }

    /// Writes the state to `directory` atomically and durably.
    func save(to directory: URL) throws(ENError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data: Data
        do { data = try encoder.encode(self) } catch {
            throw ENError(.internal, "cannot encode the mirror state: \(error)")
        }
        let path = directory.appendingPathComponent(Self.fileName).path
        let temporary = directory.appendingPathComponent(".\(Self.fileName).\(UUID().uuidString).partial").path
        try DurableFile.write(data, to: path, through: temporary, mode: 0o644, exclusive: true)
        try DurableFile.syncDirectory(directory.path)
    }
}

/// The lock one mirror run holds on its directory (`flock` on `.enserver-mirror.lock`), as Google's mirror holds a
/// database lock per mirror (`internal/mirror/mirror.go`, `processMirror`, `s.db.Lock`) and skips a mirror another
/// run holds. The system drops the lock when the process ends, however it ends.
final class MirrorLock {
    private let fd: Int32

    /// How long a taken lock is tried again before the run is skipped: a lock is also held, for the moment between
    /// `fork` and `exec`, by a child another thread of the process is starting (the child's copy of the descriptor
    /// keeps the lock until `exec` closes it), which a run that holds the directory for a whole mirror is not.
    static let retryTime: Duration = .milliseconds(500)

    /// Takes the lock in `directory`, or returns `nil` when another run holds it (still after ``retryTime``).
    ///
    /// - Throws: `dataInaccessible` naming the lock file when it cannot be opened.
    init?(directory: URL) throws(ENError) {
        let path = directory.appendingPathComponent(MirrorState.lockName).path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw DurableFile.error("cannot open the mirror's lock file", path: path) }
        let deadline = ContinuousClock.now + Self.retryTime
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard ContinuousClock.now < deadline else {
                close(fd)
                return nil
            }
            usleep(10_000)
        }
        self.fd = fd
    }

    deinit { close(fd) }
}
