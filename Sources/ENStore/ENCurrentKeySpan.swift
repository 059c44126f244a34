package import ENCore

/// The key current at a moment, with every interval for which the store would give the same key as long as its
/// write generation stays at ``generation``: what a radio's broadcast source keeps between advertisements instead of
/// asking the store at each one (`ENStoreUpdate.currentKeySpan(at:makeKeyData:)`).
package struct ENCurrentKeySpan: Sendable {
    /// The current key.
    package var key: ENTemporaryExposureKey
    /// The intervals, from the key's start, for which the store gives ``key`` as the current key: up to the key's
    /// end, or to the start of a later stored key if that comes first.
    package var intervals: Range<UInt32>
    /// The store's own-key generation in which this was read (`ENDeviceStore.keyGeneration`).
    package var generation: UInt64
}
