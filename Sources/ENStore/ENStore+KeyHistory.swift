public import ENCore
public import Foundation
internal import GRDB

/// The device's own temporary exposure keys: one current key per UTC day, kept for the retention period.
extension ENStore {
    /// The key to broadcast at `date`, creating it (with `makeKeyData`) when no stored key covers `date`.
    ///
    /// A new day's key starts at the day's first interval (a multiple of 144) and runs to its end. After
    /// `endCurrentKey(at:)` (keys released the same day), the next key starts at the current interval and
    /// runs to the end of the day.
    ///
    /// - Parameters:
    ///   - date: the moment; the configured clock's `now` by default.
    ///   - makeKeyData: returns 16 fresh random bytes (in the facade: `ENTemporaryExposureKey.generate`).
    /// - Throws: `ENError.Code.badParameter` when `makeKeyData` does not return 16 bytes.
    public func currentKey(
        at date: Date? = nil, makeKeyData: @escaping @Sendable () -> Data
    ) throws(ENError) -> ENTemporaryExposureKey {
        let interval = ENIntervalNumber(date: date ?? configuration.now())
        let (cipher, now) = (configuration.cipher, configuration.now())
        return try writeSync { db in try Self.currentKey(db, interval, now, cipher, makeKeyData) }
    }

    /// The key to broadcast at `date`, creating it when needed; see the synchronous form.
    public func currentKey(
        at date: Date? = nil, makeKeyData: @escaping @Sendable () -> Data
    ) async throws(ENError) -> ENTemporaryExposureKey {
        let interval = ENIntervalNumber(date: date ?? configuration.now())
        let (cipher, now) = (configuration.cipher, configuration.now())
        return try await write { db in try Self.currentKey(db, interval, now, cipher, makeKeyData) }
    }

    /// Ends the current key early (its rolling period stops before `date`'s interval), as when keys are
    /// released the same day, and returns the shortened key; `nil` when no key covers `date`.
    ///
    /// A key that started in `date`'s own interval keeps a period of 1. The next `currentKey(at:makeKeyData:)`
    /// creates a new key.
    public func endCurrentKey(at date: Date? = nil) throws(ENError) -> ENTemporaryExposureKey? {
        let interval = ENIntervalNumber(date: date ?? configuration.now())
        let cipher = configuration.cipher
        return try writeSync { db in try Self.endCurrentKey(db, interval, cipher) }
    }

    /// Ends the current key early; see the synchronous form.
    public func endCurrentKey(at date: Date? = nil) async throws(ENError) -> ENTemporaryExposureKey? {
        let interval = ENIntervalNumber(date: date ?? configuration.now())
        let cipher = configuration.cipher
        return try await write { db in try Self.endCurrentKey(db, interval, cipher) }
    }

    /// Every stored own key, oldest first (the current key included).
    public func ownKeys() throws(ENError) -> [ENTemporaryExposureKey] {
        let cipher = configuration.cipher
        return try readSync { db in try Self.ownKeys(db, cipher) }
    }

    /// Every stored own key, oldest first; see the synchronous form.
    public func ownKeys() async throws(ENError) -> [ENTemporaryExposureKey] {
        let cipher = configuration.cipher
        return try await read { db in try Self.ownKeys(db, cipher) }
    }

    /// Stores `key` as an own key (replacing a stored key with the same rolling start), for imports and tests.
    ///
    /// Only the key data, rolling start and rolling period are kept.
    /// - Throws: `ENError.Code.badParameter` when the key does not validate.
    public func saveOwnKey(_ key: ENTemporaryExposureKey) throws(ENError) {
        try key.validate()
        let (cipher, now) = (configuration.cipher, configuration.now())
        try writeSync { db in try Self.insertOwnKey(db, key, now, cipher) }
    }

    /// Stores `key` as an own key; see the synchronous form.
    public func saveOwnKey(_ key: ENTemporaryExposureKey) async throws(ENError) {
        try key.validate()
        let (cipher, now) = (configuration.cipher, configuration.now())
        try await write { db in try Self.insertOwnKey(db, key, now, cipher) }
    }

    // MARK: Implementation

    private static func currentKey(
        _ db: Database, _ interval: ENIntervalNumber, _ now: Date, _ cipher: (any ENAuthenticatedCipher)?,
        _ makeKeyData: () -> Data
    ) throws -> ENTemporaryExposureKey {
        let latest = try Row.fetchOne(
            db, sql: "SELECT * FROM own_keys WHERE rolling_start <= ? ORDER BY rolling_start DESC LIMIT 1",
            arguments: [Int64(interval)])
        var start = interval.rollingStart
        if let latest {
            let key = try ownKey(from: latest, cipher)
            if key.validityIntervals.contains(interval) { return key }
            // A key of today already ended (released early): the next one starts now.
            if key.rollingEndNumber > interval.rollingStart { start = interval }
        }
        let keyData = makeKeyData()
        guard keyData.count == ENTemporaryExposureKey.keyLength else {
            throw ENError.badParameter(
                "a new temporary exposure key needs \(ENTemporaryExposureKey.keyLength) bytes, got \(keyData.count)")
        }
        let period = UInt32(start.intervals(to: interval.rollingStart.adding(Int(ENIntervalNumber.intervalsPerDay))))
        let key = ENTemporaryExposureKey(keyData: keyData, rollingStartNumber: start, rollingPeriod: period)
        try insertOwnKey(db, key, now, cipher)
        return key
    }

    private static func endCurrentKey(
        _ db: Database, _ interval: ENIntervalNumber, _ cipher: (any ENAuthenticatedCipher)?
    ) throws -> ENTemporaryExposureKey? {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT * FROM own_keys WHERE rolling_start <= ? ORDER BY rolling_start DESC LIMIT 1",
                arguments: [Int64(interval)])
        else { return nil }
        var key = try ownKey(from: row, cipher)
        guard key.validityIntervals.contains(interval) else { return nil }
        key.rollingPeriod = UInt32(max(1, key.rollingStartNumber.intervals(to: interval)))
        try db.execute(
            sql: "UPDATE own_keys SET rolling_period = ? WHERE rolling_start = ?",
            arguments: [Int64(key.rollingPeriod), Int64(key.rollingStartNumber)])
        return key
    }

    private static func ownKeys(_ db: Database, _ cipher: (any ENAuthenticatedCipher)?) throws
        -> [ENTemporaryExposureKey]
    {
        try Row.fetchAll(db, sql: "SELECT * FROM own_keys ORDER BY rolling_start").map { row in
            try ownKey(from: row, cipher)
        }
    }

    private static func insertOwnKey(
        _ db: Database, _ key: ENTemporaryExposureKey, _ now: Date, _ cipher: (any ENAuthenticatedCipher)?
    ) throws {
        var stored = key.keyData
        if let cipher {
            stored = try cipher.seal(
                key.keyData, authenticating: StoreCodec.context("own_keys", key.rollingStartNumber))
        }
        try db.execute(
            sql: "INSERT OR REPLACE INTO own_keys (rolling_start, rolling_period, key, created_at) VALUES (?, ?, ?, ?)",
            arguments: [
                Int64(key.rollingStartNumber), Int64(key.rollingPeriod), stored, StoreCodec.column(now),
            ])
    }

    private static func ownKey(from row: Row, _ cipher: (any ENAuthenticatedCipher)?) throws -> ENTemporaryExposureKey {
        let start = UInt32(clamping: row["rolling_start"] as Int64)
        var keyData: Data = row["key"]
        if let cipher {
            keyData = try cipher.open(keyData, authenticating: StoreCodec.context("own_keys", start))
        }
        guard keyData.count == ENTemporaryExposureKey.keyLength else {
            throw ENError(.badFormat, "the stored own key starting at interval \(start) is \(keyData.count) bytes")
        }
        return ENTemporaryExposureKey(
            keyData: keyData, rollingStartNumber: ENIntervalNumber(start),
            rollingPeriod: UInt32(clamping: row["rolling_period"] as Int64))
    }
}
