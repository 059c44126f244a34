public import ENCore
internal import ENSQLite
public import Foundation
internal import GRDB

/// Sightings: what the radio heard, kept for the retention period and loaded by the matcher.
extension ENStoreUpdate where Store == ENDeviceStore {
    /// Adds sightings in one transaction (all of them or none).
    ///
    /// Each sighting is kept as one row indexed by its interval; with a cipher the row's identifier,
    /// metadata, RSSI and exact time are sealed and only the 10-minute interval stays in the clear.
    public static func addSightings(_ sightings: [ENSighting]) -> ENStoreUpdate<ENDeviceStore, Void> {
        // Sightings change nothing a reader keeps between operations (the broadcast's current key): they leave the
        // write generation alone, so that a radio receiving does not make the broadcast look its key up again.
        ENStoreUpdate<ENDeviceStore, Void> { store, db in
            let cipher = store.configuration.cipher
            let statement = try db.cachedStatement(sql: "INSERT INTO sightings (interval, payload) VALUES (?, ?)")
            for sighting in sightings {
                let interval = sighting.interval
                var payload = SQLiteCodec.sightingPayload(sighting)
                if let cipher {
                    payload = try cipher.seal(payload, authenticating: SQLiteCodec.context("sightings", interval))
                }
                try statement.execute(arguments: [Int64(interval), payload])
            }
        }
        .keepingGeneration()
    }
}

extension ENStoreQuery where Store == ENDeviceStore {
    /// The sightings received in `start ..< end` (to the present when `end` is `nil`), in arrival order:
    /// the matcher's input.
    ///
    /// The range is selected by interval through the index, then trimmed to the exact timestamps.
    public static func sightings(from start: Date, to end: Date? = nil) -> ENStoreQuery<ENDeviceStore, [ENSighting]> {
        .init { store, db in try fetchSightings(db, start, end, store.configuration.cipher) }
    }

    /// The sightings of the retention period (the last 14 days by default) before the configured clock's `now`.
    public static var retainedSightings: ENStoreQuery<ENDeviceStore, [ENSighting]> {
        .init { store, db in
            let configuration = store.configuration
            let start = configuration.now().addingTimeInterval(-configuration.retentionPeriod)
            return try fetchSightings(db, start, nil, configuration.cipher, scanning: true)
        }
    }

    /// The sightings in `start ..< end`, selected through the interval index and sorted; with `scanning`, read in
    /// `id` order with the interval as a filter (`+interval` keeps SQLite from the index): for the retention period,
    /// which holds nearly every row, that skips a look-up in the table for each row and the sort.
    private static func fetchSightings(
        _ db: Database, _ start: Date, _ end: Date?, _ cipher: (any ENAuthenticatedCipher)?, scanning: Bool = false
    ) throws -> [ENSighting] {
        let first = Int64(ENIntervalNumber(date: start))
        let last = end.map { Int64(ENIntervalNumber(date: $0)) } ?? Int64(UInt32.max)
        let filter = scanning ? "+interval" : "interval"
        let cursor = try Row.fetchCursor(
            db.cachedStatement(
                sql: "SELECT interval, payload FROM sightings WHERE \(filter) BETWEEN ? AND ? ORDER BY id"),
            arguments: [first, last])
        var result: [ENSighting] = []
        while let row = try cursor.next() {
            let sighting: ENSighting
            if let cipher {
                let interval = UInt32(clamping: (try row.stored(at: 0, as: Int64.self)))
                let sealed: Data = try row.stored(at: 1)
                let payload = try cipher.open(sealed, authenticating: SQLiteCodec.context("sightings", interval))
                sighting = try SQLiteCodec.sighting(fromPayload: payload)
            } else {
                // Decode in place, without copying the blob out of SQLite.
                sighting = try row.withUnsafeData(atIndex: 1) { payload in
                    try SQLiteCodec.sighting(fromPayload: payload ?? Data())
                }
            }
            if sighting.timestamp >= start, end.map({ sighting.timestamp < $0 }) ?? true {
                result.append(sighting)
            }
        }
        return result
    }
}
