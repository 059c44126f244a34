package import ENCore
public import Foundation

/// One copy of each cached key file's `export.bin` for many in-memory ``ENDeviceStore``s of a process, by the file's
/// hash (its SHA-256): what a simulation of thousands of phones gives them, since every phone caches the same files
/// the key server published.
///
/// An in-memory store opened with a shared copy (``ENDeviceStore/init(inMemoryWith:sharedKeyFiles:)``) keeps each
/// cached file's row, and the row of its contents, in its own database as always, so that what it caches, stages,
/// expires and erases is its own; only the bytes live here, once for all the stores. A store that caches a file
/// whose hash is already here does not read the file again (``ENCachedKeyFile/exportBinary`` is not called): the
/// hash identifies the contents, as ``ENCachedKeyFile/hash`` promises. A snapshot of such a store
/// (`ENDeviceStore.writeSnapshot(to:)`) holds its own copy of every file it caches, as any snapshot does, and a
/// store opened from one (`ENDeviceStore(inMemoryCopyOf:configuration:sharedKeyFiles:)`) moves the snapshot's
/// copies here, refusing one that differs from the copy already here under the same hash.
///
/// The copy keeps every file any of its stores has stored for as long as it lives (files are not counted per
/// store): give one to the stores of one simulation, and release it with them. Stores with a cipher cannot share
/// their files (each seals its own), and files on disk never do: a file store keeps its own beside its database.
///
/// ```swift
/// let keyFiles = ENSharedKeyFiles()
/// let phones = try (0..<10_000).map { _ in try ENDeviceStore(inMemoryWith: configuration, sharedKeyFiles: keyFiles) }
/// ```
public final class ENSharedKeyFiles: Sendable {
    private let files = Locked<[Data: Data]>([:])

    /// Creates an empty shared copy.
    public init() {}

    /// How many files it holds.
    public var count: Int { files.withLock { $0.count } }

    /// The bytes of every file it holds, added up.
    public var byteCount: Int { files.withLock { $0.values.reduce(0) { $0 + $1.count } } }

    /// Whether it holds the file whose hash is `hash`.
    public func contains(_ hash: Data) -> Bool { files.withLock { $0[hash] != nil } }

    /// The `export.bin` of the file whose hash is `hash`, or `nil` when it holds none.
    public func contents(of hash: Data) -> Data? { files.withLock { $0[hash] } }

    /// Adds `contents` under `hash` unless a file with that hash is here already (then nothing changes).
    package func add(_ hash: Data, _ contents: Data) {
        files.withLock { files in
            if files[hash] == nil { files[hash] = contents }
        }
    }

    /// Adds `contents`, read from outside the process (a snapshot), under `hash`: accepted when no file with that
    /// hash is here yet or the one here is byte for byte the same.
    ///
    /// - Throws: `ENError.Code.badFormat` when another file is here under the same hash.
    package func adopt(_ hash: Data, _ contents: Data) throws(ENError) {
        let conflict = files.withLock { files -> Bool in
            guard let existing = files[hash] else {
                files[hash] = contents
                return false
            }
            return existing != contents
        }
        if conflict {
            throw ENError(
                .badFormat,
                "cached key file \(hash.hexString) differs from the shared copy of the file with the same hash",
                context: ENError.Context(section: "cachedKeyFiles"))
        }
    }
}
