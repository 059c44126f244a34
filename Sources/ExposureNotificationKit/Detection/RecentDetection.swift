internal import ENCore
internal import ENStore
internal import Foundation

/// The result of a manager's last recorded detection, kept in memory while its store has not changed since, so
/// that reading it back (`getExposureWindows(summary:)`, `getExposureInfo(summary:)`, right after the detection
/// as apps do) needs neither the store nor decoding: the same result the store holds.
///
/// It is only used while the store's write generation (`ENDeviceStore.writeGeneration`) is the one the detection's
/// own write left: any later write that may change state (the retention sweep, an erase, another detection)
/// moves the generation, and the result is then read from the store as before, or found gone. It is kept only
/// when no other write was counted between the detection's write and the reading of the generation after it.
final class RecentDetection: Sendable {
    private struct Entry {
        weak var store: ENDeviceStore?
        var id: Int64
        var generation: UInt64
        var result: StoredDetection
    }

    private let entry = Locked<Entry?>(nil)

    /// Records `result` as detection `id` of `store`, written by the one write counted between generations
    /// `before` and `after`; forgets the previous one either way.
    func remember(_ result: StoredDetection, id: Int64, in store: ENDeviceStore, before: UInt64, after: UInt64) {
        entry.withLock {
            $0 = after == before &+ 1 ? Entry(store: store, id: id, generation: after, result: result) : nil
        }
    }

    /// The result of detection `id` of `store` when it is the one kept and the store has not changed since.
    func result(id: Int64, in store: ENDeviceStore) -> StoredDetection? {
        entry.withLock { entry in
            guard let kept = entry, kept.id == id, kept.store === store,
                store.writeGeneration == kept.generation
            else { return nil }
            return kept.result
        }
    }
}
