public import ENCore
public import Foundation

/// What ``ENStoreUpdate/releasePreAuthorizedKeys(at:validity:sameDay:makeKeyData:)`` decided, in the transaction
/// that claimed (or refused) the one release a pre-authorization allows.
public enum ENPreAuthorizedRelease: Hashable, Sendable {
    /// The keys are released now, and the pre-authorization is marked released in the same transaction: every
    /// own key stored (the current key with its rolling period already ended when the release was same-day), and
    /// the key the release shortened (`nil` without a same-day release, or when no key covered the moment).
    case released(keys: [ENTemporaryExposureKey], shortened: ENTemporaryExposureKey?)
    /// The keys were already released under this pre-authorization: nothing is released again.
    case alreadyReleased
    /// No pre-authorization is stored.
    case notPreAuthorized
    /// The pre-authorization given at `authorizedAt` expired (it is deleted in the same transaction, so that a
    /// clock set back later cannot revive it).
    case expired(authorizedAt: Date)
    /// The moment of the request is earlier than the pre-authorization (the clock was set back): the
    /// pre-authorization is deleted in the same transaction and nothing is released.
    case beforeAuthorization(authorizedAt: Date)
    /// Exposure Notification is not authorized (or restricted) any more: nothing is released.
    case notAuthorized(ENAuthorizationStatus)
    /// Exposure Notification is not enabled: nothing is released.
    case notEnabled
}
