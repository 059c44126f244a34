internal import ENCore
internal import ENStore
internal import Foundation

/// Writes a detection's verified new key files into the store while matching still runs
/// (`ENStoreUpdate.stageCachedKeyFiles(_:)`), so that the detection's final transaction only adopts them instead of
/// writing every `export.bin` (140 MB at 5 million keys) after matching, on one core, with two disk flushes.
///
/// One thread of its own writes the files queued so far, in one transaction per turn (for a store on disk only). Staging is an optimisation
/// only: a file it did not write (a write failed, or the detection finished first) is written by the final
/// transaction, and what it wrote for a detection that does not finish is deleted
/// (`ENStoreUpdate.discardStagedKeyFiles`). Nothing it writes is visible as stored data before the detection's
/// transaction refers to it.
final class KeyFileStager: Sendable {
    private struct State {
        var queue: [ENCachedKeyFile] = []
        var closed = false
        var running = true
    }

    private let state = Locked(State())
    private let store: ENDeviceStore

    /// Whether it stages at all: an in-memory store writes its files fast enough in the final transaction (it keeps
    /// one shared copy of each), so no thread is started for it.
    private let active: Bool

    /// Starts the writing thread, for a store on disk.
    init(store: ENDeviceStore) {
        self.store = store
        active = store.path != nil
        guard active else {
            state.withLock { $0.running = false }
            return
        }
        let thread = Thread { [self] in run() }
        thread.start()
    }

    /// Queues a file to be written; ignored once ``finish(discardingQueued:)`` was called, and by an in-memory store.
    func stage(_ file: ENCachedKeyFile) {
        guard active else { return }
        state.withLockNotifyingAll { state in
            if !state.closed { state.queue.append(file) }
        }
    }

    /// Takes no more files and waits until the writing thread has ended: after writing every queued file, or
    /// (`discardingQueued`) only the turn already under way.
    func finish(discardingQueued: Bool) {
        state.withLockNotifyingAll { state in
            state.closed = true
            if discardingQueued { state.queue.removeAll() }
        }
        state.withLock(when: { !$0.running }) { _ in }
    }

    private func run() {
        while true {
            let batch = state.withLock(when: { !$0.queue.isEmpty || $0.closed }) { state -> [ENCachedKeyFile]? in
                guard !state.queue.isEmpty else { return nil }
                defer { state.queue.removeAll() }
                return state.queue
            }
            guard let batch else { break }
            // A failure here only means the final transaction writes these files itself (and reports its error).
            _ = try? store.write(.stageCachedKeyFiles(batch))
        }
        state.withLockNotifyingAll { $0.running = false }
    }
}
