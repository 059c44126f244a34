public import ENCore
internal import ENSQLite
public import Foundation
internal import GRDB

/// The device's own temporary exposure keys: one current key per UTC day, kept for the retention period.
extension ENStoreQuery where Store == ENDeviceStore {
    /// Every stored own key, oldest first (the current key included).
    public static var ownKeys: ENStoreQuery<ENDeviceStore, [ENTemporaryExposureKey]> {
        .init { store, db in try OwnKeyTable.all(db, store.configuration.cipher) }
    }
}

extension ENStoreUpdate where Store == ENDeviceStore {
    /// The key to broadcast at `date`, creating it (with `makeKeyData`) when no stored key covers `date`.
    ///
    /// A new day's key starts at the day's first interval (a multiple of 144) and runs to its end. After
    /// ``endCurrentKey(at:makeKeyData:)`` (keys released the same day) the next key has already started.
    ///
    /// - Parameters:
    ///   - date: the moment; the configured clock's `now` by default.
    ///   - makeKeyData: returns 16 fresh random bytes (in the facade: `ENTemporaryExposureKey.generate`).
    /// - Throws: `ENError.Code.badParameter` when `makeKeyData` does not return 16 bytes (nothing is written).
    public static func currentKey(
        at date: Date? = nil, makeKeyData: @escaping @Sendable () -> Data
    ) -> ENStoreUpdate<ENDeviceStore, ENTemporaryExposureKey> {
        .init { store, db in
            let now = store.configuration.now()
            let interval = ENIntervalNumber(date: date ?? now)
            let cipher = store.configuration.cipher
            if let latest = try OwnKeyTable.latest(db, startingAtOrBefore: interval, cipher) {
                if latest.validityIntervals.contains(interval) { return latest }
                // A key of today already ended (released early): the next one starts now.
                if latest.rollingEndNumber > interval.rollingStart {
                    return try OwnKeyTable.insertNewKey(db, startingAt: interval, now, cipher, makeKeyData)
                }
            }
            return try OwnKeyTable.insertNewKey(db, startingAt: interval.rollingStart, now, cipher, makeKeyData)
        }
    }

    /// ``currentKey(at:makeKeyData:)`` and the intervals for which it stays the current key, read in the same
    /// transaction, with the own-key generation it was read in; this update leaves the generations alone (it only
    /// adds the key the store would make anyway).
    package static func currentKeySpan(
        at date: Date, makeKeyData: @escaping @Sendable () -> Data
    ) -> ENStoreUpdate<ENDeviceStore, ENCurrentKeySpan> {
        let current = currentKey(at: date, makeKeyData: makeKeyData)
        return ENStoreUpdate<ENDeviceStore, ENCurrentKeySpan> { store, db in
            let key = try current.apply(store, db)
            let start = key.rollingStartNumber
            let next = try Int64.fetchOne(
                try db.cachedStatement(sql: "SELECT MIN(rolling_start) FROM own_keys WHERE rolling_start > ?"),
                arguments: [Int64(start)])
            let end = min(Int64(start) + Int64(key.rollingPeriod), next ?? Int64.max)
            return ENCurrentKeySpan(
                key: key, intervals: UInt32(start)..<UInt32(clamping: max(Int64(start), end)),
                generation: store.keyGeneration)
        }
        .keepingGeneration()
    }

    /// Shortens the rolling period of the key that covers `date` and starts its successor at once, in one
    /// transaction: same-day release, where the current key is released with its shortened period and is never
    /// broadcast again. Returns the shortened key; `nil` when no key covers `date` (nothing is written).
    ///
    /// The shortened key's period stops before `date`'s interval, where the new key (from `makeKeyData`)
    /// starts and runs to the end of its day. A key that started in `date`'s own interval keeps a period of 1
    /// (the shortest Apple allows) and its successor starts at the next interval.
    ///
    /// - Throws: `ENError.Code.badParameter` when `makeKeyData` does not return 16 bytes (nothing is written).
    public static func endCurrentKey(
        at date: Date? = nil, makeKeyData: @escaping @Sendable () -> Data
    ) -> ENStoreUpdate<ENDeviceStore, ENTemporaryExposureKey?> {
        .init { store, db in
            let now = store.configuration.now()
            let interval = ENIntervalNumber(date: date ?? now)
            let cipher = store.configuration.cipher
            guard var key = try OwnKeyTable.latest(db, startingAtOrBefore: interval, cipher),
                key.validityIntervals.contains(interval)
            else { return nil }
            key.rollingPeriod = UInt32(max(1, key.rollingStartNumber.intervals(to: interval)))
            try OwnKeyTable.insert(db, key, now, cipher)
            _ = try OwnKeyTable.insertNewKey(db, startingAt: key.rollingEndNumber, now, cipher, makeKeyData)
            return key
        }
    }

    /// Stores `key` as an own key (replacing a stored key with the same rolling start), for imports and tests.
    ///
    /// Only the key data, rolling start and rolling period are kept.
    /// - Throws: `ENError.Code.badParameter` when the key does not validate.
    public static func saveOwnKey(_ key: ENTemporaryExposureKey) -> ENStoreUpdate<ENDeviceStore, Void> {
        .init { store, db in
            try key.validate()
            try OwnKeyTable.insert(db, key, store.configuration.now(), store.configuration.cipher)
        }
    }
}

/// The `own_keys` table: key data sealed with the store's cipher when it has one, bound to the rolling start.
enum OwnKeyTable {
    static func all(_ db: Database, _ cipher: (any ENAuthenticatedCipher)?) throws -> [ENTemporaryExposureKey] {
        try Row.fetchAll(db, sql: "SELECT * FROM own_keys ORDER BY rolling_start").map { row in
            try key(from: row, cipher)
        }
    }

    static func latest(
        _ db: Database, startingAtOrBefore interval: ENIntervalNumber, _ cipher: (any ENAuthenticatedCipher)?
    ) throws -> ENTemporaryExposureKey? {
        // Cached: the radio asks for the current key at every advertisement.
        let statement = try db.cachedStatement(
            sql: "SELECT * FROM own_keys WHERE rolling_start <= ? ORDER BY rolling_start DESC LIMIT 1")
        return try Row.fetchOne(statement, arguments: [Int64(interval)]).map { row in try key(from: row, cipher) }
    }

    /// Creates and stores a key from `start` to the end of its day.
    static func insertNewKey(
        _ db: Database, startingAt start: ENIntervalNumber, _ now: Date, _ cipher: (any ENAuthenticatedCipher)?,
        _ makeKeyData: () -> Data
    ) throws -> ENTemporaryExposureKey {
        let keyData = makeKeyData()
        guard keyData.count == ENTemporaryExposureKey.keyLength else {
            throw ENError.badParameter(
                "a new temporary exposure key needs \(ENTemporaryExposureKey.keyLength) bytes, got \(keyData.count)")
        }
        let period = UInt32(start.intervals(to: start.rollingStart.adding(Int(ENIntervalNumber.intervalsPerDay))))
        let key = ENTemporaryExposureKey(keyData: keyData, rollingStartNumber: start, rollingPeriod: period)
        try insert(db, key, now, cipher)
        return key
    }

    static func insert(
        _ db: Database, _ key: ENTemporaryExposureKey, _ now: Date, _ cipher: (any ENAuthenticatedCipher)?
    ) throws {
        var stored = key.keyData
        if let cipher {
            stored = try cipher.seal(
                key.keyData, authenticating: SQLiteCodec.context("own_keys", key.rollingStartNumber))
        }
        // Cached: a phone makes a key every day.
        try db.cachedStatement(
            sql: "INSERT OR REPLACE INTO own_keys (rolling_start, rolling_period, key, created_at) VALUES (?, ?, ?, ?)"
        ).execute(arguments: [Int64(key.rollingStartNumber), Int64(key.rollingPeriod), stored, SQLiteCodec.column(now)])
    }

    private static func key(from row: Row, _ cipher: (any ENAuthenticatedCipher)?) throws -> ENTemporaryExposureKey {
        let start = UInt32(clamping: (try row.stored("rolling_start", as: Int64.self)))
        var keyData: Data = try row.stored("key")
        if let cipher {
            keyData = try cipher.open(keyData, authenticating: SQLiteCodec.context("own_keys", start))
        }
        guard keyData.count == ENTemporaryExposureKey.keyLength else {
            throw ENError(.badFormat, "the stored own key starting at interval \(start) is \(keyData.count) bytes")
        }
        return ENTemporaryExposureKey(
            keyData: keyData, rollingStartNumber: ENIntervalNumber(start),
            rollingPeriod: UInt32(clamping: (try row.stored("rolling_period", as: Int64.self))))
    }
}
