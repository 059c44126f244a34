internal import ENCore
internal import ENCrypto
internal import ENStore
internal import Foundation

/// What the framework does while it runs, not only when its store opens: retention, the day's key, and the
/// store's cipher from the app's key provider.
extension FrameworkStorage {
    /// Deletes what is older than the retention period (own keys, sightings, cached key files, results) and,
    /// while Exposure Notification is enabled and authorized, makes the key of `date`'s day if there is none yet
    /// (as Apple's framework has a key from the moment it is enabled, whether or not the radio asked for one).
    ///
    /// The manager runs it when it is enabled, periodically while it is activated, and before every release of
    /// keys and every detection.
    ///
    /// Neither step moves the store's write generation when it changes nothing the broadcast or a reader keeps:
    /// the sweep is asked for first (most sweeps find nothing), and the day's key is the key the store would make
    /// anyway (as `ENStoreUpdate.currentKeySpan(at:makeKeyData:)` makes it).
    ///
    /// An in-memory store maintained at the same moment before, with no write the generation counts since, is left
    /// as it is (a periodic run and the detection it starts maintain at the same moment): the sweep would find
    /// nothing and today's key is there.
    func maintain(at date: Date) throws(ENError) {
        let store = try store()
        let generation = store.writeGeneration
        if isInMemory, let last = maintained.withLock({ $0 }), last.generation == generation, last.date == date {
            return
        }
        if try store.read(.hasExpiredRecords(now: date)) {
            try store.write(.deleteExpiredRecords(now: date))
        }
        let state = try managerState()
        if state.exposureNotificationEnabled, state.authorizationStatus == .authorized {
            _ = try store.write(.currentKey(at: date, makeKeyData: Self.makeKeyData).keepingGeneration())
        }
        if isInMemory, store.writeGeneration == generation { maintained.withLock { $0 = (generation, date) } }
    }

    /// The store's cipher: AES-GCM under the provider's key, or `nil` without a provider.
    ///
    /// - Throws: the provider's error; `badParameter` when the key is not 16 or 32 bytes.
    static func cipher(_ provider: (any ENStoreKeyProvider)?) throws(ENError) -> (any ENAuthenticatedCipher)? {
        guard let provider else { return nil }
        var key = try provider.storeKey()
        defer { key.resetBytes(in: 0..<key.count) }
        do {
            return try AESGCM.Key(data: key)
        } catch {
            throw ENError(.badParameter, "the store key provider's key is \(key.count) bytes; it must be 16 or 32")
        }
    }
}
