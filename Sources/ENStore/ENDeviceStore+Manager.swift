public import ENCore
internal import ENSQLite
internal import Foundation
internal import GRDB

/// What an `ENManager` keeps across restarts: one row, `manager_state`.
extension ENStoreQuery where Store == ENDeviceStore {
    /// The manager state.
    ///
    /// Reading throws `ENError.Code.badFormat` when the stored authorization status is not one of Apple's.
    public static var managerState: ENStoreQuery<ENDeviceStore, ENManagerState> {
        .init { _, db in
            guard
                let row = try Row.fetchOne(
                    try db.cachedStatement(
                        sql: """
                            SELECT exposure_notification_enabled, authorization_status, preauthorized_at,
                            preauthorization_released_at FROM manager_state WHERE id = 1
                            """))
            else { return ENManagerState() }
            let rawStatus: Int64 = try row.stored(at: 1)
            guard let status = ENAuthorizationStatus(rawValue: Int(clamping: rawStatus)) else {
                throw ENError(.badFormat, "the stored authorization status is \(rawStatus), expected 0...3")
            }
            let authorizedAt: Double? = try row.stored(at: 2)
            let releasedAt: Double? = try row.stored(at: 3)
            return ENManagerState(
                exposureNotificationEnabled: try row.stored(at: 0), authorizationStatus: status,
                preAuthorization: authorizedAt.map {
                    ENPreAuthorization(authorizedAt: SQLiteCodec.date($0), releasedAt: releasedAt.map(SQLiteCodec.date))
                })
        }
    }
}

extension ENStoreUpdate where Store == ENDeviceStore {
    /// Sets whether Exposure Notification is enabled.
    public static func setExposureNotificationEnabled(_ enabled: Bool) -> ENStoreUpdate<ENDeviceStore, Void> {
        .init { _, db in
            try db.execute(
                sql: "UPDATE manager_state SET exposure_notification_enabled = ? WHERE id = 1", arguments: [enabled])
        }
    }

    /// Sets the app's authorization status.
    public static func setAuthorizationStatus(_ status: ENAuthorizationStatus) -> ENStoreUpdate<ENDeviceStore, Void> {
        .init { _, db in
            try db.execute(
                sql: "UPDATE manager_state SET authorization_status = ? WHERE id = 1", arguments: [status.rawValue])
        }
    }

    /// Sets the pre-authorization of diagnosis-key release (`nil` removes it).
    ///
    /// - Throws: `ENError.Code.badParameter` when the release date is before the authorization date.
    public static func setPreAuthorization(_ preAuthorization: ENPreAuthorization?) -> ENStoreUpdate<
        ENDeviceStore, Void
    > {
        .init { _, db in
            if let preAuthorization, let releasedAt = preAuthorization.releasedAt,
                releasedAt < preAuthorization.authorizedAt
            {
                throw ENError.badParameter(
                    "keys released at \(releasedAt) cannot be released under a pre-authorization given later, at \(preAuthorization.authorizedAt)"
                )
            }
            try db.execute(
                sql: "UPDATE manager_state SET preauthorized_at = ?, preauthorization_released_at = ? WHERE id = 1",
                arguments: [
                    preAuthorization.map { SQLiteCodec.column($0.authorizedAt) },
                    preAuthorization?.releasedAt.map(SQLiteCodec.column),
                ])
        }
    }
}
