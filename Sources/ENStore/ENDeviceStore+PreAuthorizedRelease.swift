internal import ENCore
public import Foundation
internal import GRDB

/// The one release a pre-authorization of diagnosis-key release allows, checked and marked in one transaction.
extension ENStoreUpdate where Store == ENDeviceStore {
    /// Claims the release of the keys under the stored pre-authorization, in one transaction: the checks, the
    /// same-day end of the current key and the "released" mark are written together, so that concurrent requests
    /// release the keys once, ever, per pre-authorization.
    ///
    /// The checks, in order: Exposure Notification is authorized (``ENPreAuthorizedRelease/notAuthorized(_:)``)
    /// and enabled (``ENPreAuthorizedRelease/notEnabled``); a pre-authorization is stored
    /// (``ENPreAuthorizedRelease/notPreAuthorized``) and not yet released
    /// (``ENPreAuthorizedRelease/alreadyReleased``); `date` is not earlier than the pre-authorization
    /// (``ENPreAuthorizedRelease/beforeAuthorization(authorizedAt:)``) and at most `validity` after it
    /// (``ENPreAuthorizedRelease/expired(authorizedAt:)``). An expired pre-authorization, or one dated after
    /// `date`, is deleted, so that no later clock can make it valid again.
    ///
    /// - Parameters:
    ///   - date: the moment of the request.
    ///   - validity: how long a pre-authorization lasts (Apple: 5 days).
    ///   - sameDay: whether the key current at `date` is released too (API version 2): its rolling period is ended
    ///     at `date` and its successor started, as ``endCurrentKey(at:makeKeyData:)`` does.
    ///   - makeKeyData: returns 16 fresh random bytes for the successor of a key released the same day.
    public static func releasePreAuthorizedKeys(
        at date: Date, validity: TimeInterval, sameDay: Bool, makeKeyData: @escaping @Sendable () -> Data
    ) -> ENStoreUpdate<ENDeviceStore, ENPreAuthorizedRelease> {
        let endCurrentKey = ENStoreUpdate<ENDeviceStore, ENTemporaryExposureKey?>.endCurrentKey(
            at: date, makeKeyData: makeKeyData)
        return .init { store, db in
            func setPreAuthorization(_ preAuthorization: ENPreAuthorization?) throws {
                try ENStoreUpdate<ENDeviceStore, Void>.setPreAuthorization(preAuthorization).apply(store, db)
            }
            let state = try ENStoreQuery<ENDeviceStore, ENManagerState>.managerState.fetch(store, db)
            guard state.authorizationStatus == .authorized else { return .notAuthorized(state.authorizationStatus) }
            guard state.exposureNotificationEnabled else { return .notEnabled }
            guard let preAuthorization = state.preAuthorization else { return .notPreAuthorized }
            guard !preAuthorization.isReleased else { return .alreadyReleased }
            guard date >= preAuthorization.authorizedAt else {
                try setPreAuthorization(nil)
                return .beforeAuthorization(authorizedAt: preAuthorization.authorizedAt)
            }
            guard date.timeIntervalSince(preAuthorization.authorizedAt) <= validity else {
                try setPreAuthorization(nil)
                return .expired(authorizedAt: preAuthorization.authorizedAt)
            }
            let shortened = sameDay ? try endCurrentKey.apply(store, db) : nil
            let keys = try OwnKeyTable.all(db, store.configuration.cipher)
            try setPreAuthorization(ENPreAuthorization(authorizedAt: preAuthorization.authorizedAt, releasedAt: date))
            return .released(keys: keys, shortened: shortened)
        }
    }
}
