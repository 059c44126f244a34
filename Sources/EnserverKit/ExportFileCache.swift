import ENCore
import ENCrypto
package import ENKeyServer
import Foundation
package import Hummingbird

/// What `GET` of the export files and `index.txt` is answered from: memory, not a database round trip per request.
///
/// Millions of phones poll `index.txt` and download each new file once; both are the same bytes for everyone.
///
/// - The **index** is read from the storage at most once per ``indexLifetime`` (by one request; the others wait for
///   it), and at once after this instance cut or dropped files (``invalidate()``). `/health` rides on the same
///   read, so that it touches the database at most as often.
/// - A **file** is read once, when first asked for, and kept (its bytes never change once exported) while the
///   cache holds less than ``capacityBytes``; the least recently used files go first. Only names in the current
///   index are served: any other name answers 404 without touching the storage, and a file that retention dropped
///   stops being served when the index is next read.
/// - Each entry carries a strong `ETag` (the hex SHA-256 of its bytes, quoted) and a prebuilt body, so that a hit
///   copies nothing.
package final class ExportFileCache: Sendable {
    /// One cached answer: its bytes, ready to send, and its entity tag.
    package struct Entry: Sendable {
        /// The body.
        package let body: ByteBuffer
        /// The strong entity tag, quoted: `"` + hex SHA-256 of the body + `"`.
        package let etag: String

        init(_ data: Data) {
            body = ByteBuffer(bytes: data)
            etag = "\"" + SHA256.hash(data).map { String(format: "%02x", $0) }.joined() + "\""
        }
    }

    /// The index as last read: its answer and the names it lists (without the root prefix).
    package struct Index: Sendable {
        /// `index.txt`.
        package let entry: Entry
        /// The file names it lists, without the export root.
        package let names: Set<String>
    }

    private struct State {
        var index: Index?
        var indexReadAt: ContinuousClock.Instant?
        var refresh: (task: Task<Index, any Error>, generation: Int)?
        var generation = 0
        var files: [String: (entry: Entry, lastUse: UInt64)] = [:]
        var bytes = 0
        var uses: UInt64 = 0
    }

    /// The exporter the index and files are read from.
    package let exporter: ENKeyServerExporter
    /// How long an index read is served before the storage is asked again.
    package let indexLifetime: Duration
    /// The most bytes of files kept in memory; a larger file is served without being kept.
    package let capacityBytes: Int
    private let state = Locked(State())
    private let now: @Sendable () -> ContinuousClock.Instant

    /// A cache over `exporter`'s files; `now` tells the index's age (the continuous clock; tests move their own).
    package init(
        exporter: ENKeyServerExporter, indexLifetime: Duration = .seconds(5), capacityBytes: Int = 256 << 20,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        self.now = now
        self.exporter = exporter
        self.indexLifetime = indexLifetime
        self.capacityBytes = max(0, capacityBytes)
    }

    /// The current index: from memory while younger than ``indexLifetime``, otherwise read again (one read for
    /// all the requests waiting on it).
    package func index() async throws -> Index {
        let now = now()
        let lifetime = indexLifetime
        let exporter = exporter
        let (fresh, task, generation): (Index?, Task<Index, any Error>?, Int) = state.withLock { state in
            if let index = state.index, let readAt = state.indexReadAt, now - readAt < lifetime {
                return (index, nil, state.generation)
            }
            if let refresh = state.refresh { return (nil, refresh.task, refresh.generation) }
            let refresh = Task<Index, any Error> {
                let text = try await exporter.indexText()
                let root = exporter.configuration.exportRoot
                let prefix = root.isEmpty ? "" : root + "/"
                let names = text.split(separator: "\n").map { line in
                    line.hasPrefix(prefix) ? String(line.dropFirst(prefix.count)) : String(line)
                }
                return Index(entry: Entry(Data(text.utf8)), names: Set(names))
            }
            state.refresh = (refresh, state.generation)
            return (nil, refresh, state.generation)
        }
        if let fresh { return fresh }
        do {
            let index = try await task!.value
            state.withLock { state in
                // An invalidation while reading: this read may predate it; the next request reads again.
                guard state.generation == generation else { return }
                state.refresh = nil
                state.index = index
                state.indexReadAt = now
                state.files = state.files.filter { index.names.contains($0.key) }
                state.bytes = state.files.values.reduce(0) { $0 + $1.entry.body.readableBytes }
            }
            return index
        } catch {
            state.withLock { state in
                if state.generation == generation { state.refresh = nil }
            }
            throw error
        }
    }

    /// The file called `name` (without the export root), or `nil` when the current index does not list it.
    package func file(named name: String) async throws -> Entry? {
        let index = try await index()
        guard index.names.contains(name) else { return nil }
        let hit: Entry? = state.withLock { state in
            state.uses += 1
            guard var cached = state.files[name] else { return nil }
            cached.lastUse = state.uses
            state.files[name] = cached
            return cached.entry
        }
        if let hit { return hit }
        guard let file = try await exporter.file(named: name) else { return nil }
        let entry = Entry(file.data)
        keep(entry, named: name)
        return entry
    }

    /// Forgets the index (and the files it no longer lists at the next read): this instance cut or dropped files.
    package func invalidate() {
        state.withLock { state in
            state.index = nil
            state.indexReadAt = nil
            state.refresh = nil
            state.generation += 1
        }
    }

    private func keep(_ entry: Entry, named name: String) {
        let size = entry.body.readableBytes
        let capacity = capacityBytes
        guard size <= capacity else { return }
        state.withLock { state in
            guard state.files[name] == nil else { return }
            while state.bytes + size > capacity,
                let oldest = state.files.min(by: { $0.value.lastUse < $1.value.lastUse })
            {
                state.bytes -= oldest.value.entry.body.readableBytes
                state.files[oldest.key] = nil
            }
            state.uses += 1
            state.files[name] = (entry, state.uses)
            state.bytes += size
        }
    }
}
