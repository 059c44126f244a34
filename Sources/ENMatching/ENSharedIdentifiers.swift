package import ENCore
package import Foundation

/// Every identifier of each key file's keys, derived once for all the matchers of a process that match the same
/// files, by the file's hash: what a simulation of thousands of phones gives them, since every phone matches every
/// file the key server published against its own sightings.
///
/// A phone's matcher (``ENMatcher``) derives up to 144 identifiers for every key of a file and looks each up among
/// its sightings: the same derivation in every phone. With the identifiers of a file derived once and sorted
/// (``ENFileIdentifiers``), a phone looks its sightings up among them instead, a few hundred binary searches, and
/// finds the same hits: a hit depends only on the key, the sighting's identifier and the sighting's interval
/// (within ``ENFileIdentifiers/toleranceIntervals`` of the identifier's).
///
/// The files are kept while their identifiers take at most `byteBudget` bytes together, the least recently used
/// dropped first (about 3.8 MB for a file of 1,100 keys of 144 intervals).
package final class ENSharedIdentifiers: Sendable {
    private struct State {
        var files: [Data: ENFileIdentifiers] = [:]
        var lastUse: [Data: UInt64] = [:]
        var clock: UInt64 = 0
        var bytes = 0
    }

    private let state = Locked(State())
    private let building = Locked(())
    /// The most bytes the identifiers kept may take.
    package let byteBudget: Int

    /// An empty set, keeping at most `byteBudget` bytes of identifiers (256 MiB by default).
    package init(byteBudget: Int = 256 << 20) { self.byteBudget = byteBudget }

    /// How many files' identifiers are kept.
    package var count: Int { state.withLock { $0.files.count } }

    /// The identifiers of the file whose hash is `hash`, derived from `chunks` when not kept: the file's keys
    /// encoded (every key, whatever its age; ``ENFileIdentifiers/occurrences(for:sightings:oldest:ordinalBase:)``
    /// leaves out the old ones), in the order matching numbers them, and the file's reach (see
    /// ``ENFileIdentifiers/reach``).
    ///
    /// - Throws: what `chunks` throws; `ENError.Code.internal` when the kernel fails.
    package func identifiers(
        of hash: Data,
        chunks: () throws(ENError) -> (chunks: [any ENEncodedKeyChunk], reach: ClosedRange<UInt32>?)
    ) throws(ENError) -> ENFileIdentifiers {
        if let kept = use(hash) { return kept }
        // One file is derived at a time (a few milliseconds), so that matchers asking for the same new file at once
        // wait for one derivation instead of each making its own.
        return try building.withLock { (_) throws(ENError) -> ENFileIdentifiers in
            if let kept = use(hash) { return kept }
            let (encoded, reach) = try chunks()
            return keep(try ENFileIdentifiers(chunks: encoded, reach: reach), as: hash)
        }
    }

    private func keep(_ made: ENFileIdentifiers, as hash: Data) -> ENFileIdentifiers {
        state.withLock { state in
            state.clock += 1
            if let kept = state.files[hash] {
                state.lastUse[hash] = state.clock
                return kept
            }
            state.files[hash] = made
            state.lastUse[hash] = state.clock
            state.bytes += made.byteCount
            while state.bytes > byteBudget, state.files.count > 1,
                let oldest = state.lastUse.filter({ $0.key != hash }).min(by: { $0.value < $1.value })?.key
            {
                state.bytes -= state.files.removeValue(forKey: oldest)?.byteCount ?? 0
                state.lastUse[oldest] = nil
            }
            return made
        }
    }

    private func use(_ hash: Data) -> ENFileIdentifiers? {
        state.withLock { state in
            guard let kept = state.files[hash] else { return nil }
            state.clock += 1
            state.lastUse[hash] = state.clock
            return kept
        }
    }
}

/// Every identifier of one key file's keys, sorted, with each key's validity: found by a sighting's identifier.
package final class ENFileIdentifiers: Sendable {
    /// One derived identifier: its 16 bytes as ``RollingProximityIdentifier``'s words, its key's position in the
    /// file and the interval it was derived for.
    private struct Entry {
        var high: UInt64
        var low: UInt64
        var position: UInt32
        var interval: UInt32
    }

    /// ENMatcher's tolerance: a key matches a sighting up to 12 intervals from the derived interval.
    package static let toleranceIntervals: UInt32 = 12

    private let entries: [Entry]
    /// Each key's rolling start and period (0: a key matching ignores).
    private let starts: [UInt32]
    private let periods: [UInt32]
    /// The chunks the keys came from, and the position of each chunk's first key, to decode a matched key.
    private let chunks: [any ENEncodedKeyChunk]
    private let chunkStarts: [Int]
    /// The intervals of sightings any of the file's keys can match, as the caller measured them.
    package let reach: ClosedRange<UInt32>?

    /// The number of keys in the file (ignored ones included).
    package var keyCount: Int { starts.count }

    /// About how many bytes the identifiers take.
    package var byteCount: Int {
        entries.count * MemoryLayout<Entry>.stride + starts.count * 8 + chunks.count * 64
    }

    init(chunks: [any ENEncodedKeyChunk], reach: ClosedRange<UInt32>?) throws(ENError) {
        self.chunks = chunks
        self.reach = reach
        var chunkStarts: [Int] = []
        var total = 0
        for chunk in chunks {
            chunkStarts.append(total)
            total += chunk.count
        }
        self.chunkStarts = chunkStarts
        var records = [UInt8](repeating: 0, count: total * ENKeyRecord.stride)
        records.withUnsafeMutableBytes { buffer in
            for (chunk, start) in zip(chunks, chunkStarts) where chunk.count > 0 {
                _ = chunk.writeRecords(0..<chunk.count, to: buffer.baseAddress! + start * ENKeyRecord.stride)
            }
        }
        var starts = [UInt32](repeating: 0, count: total)
        var periods = [UInt32](repeating: 0, count: total)
        var usable: [Int] = []
        var keyData: [UInt8] = []
        records.withUnsafeBytes { buffer in
            for position in 0..<total {
                let record = buffer.baseAddress! + position * ENKeyRecord.stride
                let period = record.loadUnaligned(fromByteOffset: ENKeyRecord.periodOffset, as: UInt32.self)
                starts[position] = record.loadUnaligned(fromByteOffset: ENKeyRecord.startOffset, as: UInt32.self)
                // As the matcher's batches: a period outside 1...144 marks a key to ignore.
                guard (1...ENTemporaryExposureKey.defaultRollingPeriod).contains(period) else { continue }
                periods[position] = period
                usable.append(position)
                keyData.append(contentsOf: UnsafeRawBufferPointer(start: record, count: 16))
            }
        }
        self.starts = starts
        self.periods = periods
        let derivation = try KernelDerivation(kernel: .best)
        let rpiks = UnsafeMutableRawBufferPointer.allocate(byteCount: keyData.count, alignment: 16)
        defer { rpiks.deallocate() }
        let identifiers = UnsafeMutableRawBufferPointer.allocate(
            byteCount: 16 * Int(ENTemporaryExposureKey.defaultRollingPeriod), alignment: 16)
        defer { identifiers.deallocate() }
        let keys = UnsafeMutableRawBufferPointer.allocate(byteCount: keyData.count, alignment: 16)
        defer { keys.deallocate() }
        keys.copyBytes(from: keyData)
        try derivation.deriveRollingProximityIdentifierKeys(keyData: UnsafeRawBufferPointer(keys), into: rpiks)
        var entries: [Entry] = []
        entries.reserveCapacity(usable.reduce(0) { $0 + Int(periods[$1]) })
        for (index, position) in usable.enumerated() {
            let (start, period) = (starts[position], periods[position])
            try derivation.deriveIdentifiers(
                rollingProximityIdentifierKey: UnsafeRawBufferPointer(
                    rebasing: rpiks[(16 * index)..<(16 * index + 16)]),
                startingAt: start, count: Int(period), into: identifiers)
            for offset in 0..<Int(period) {
                let identifier = identifiers.baseAddress! + 16 * offset
                entries.append(
                    Entry(
                        high: UInt64(littleEndian: identifier.loadUnaligned(fromByteOffset: 8, as: UInt64.self)),
                        low: UInt64(littleEndian: identifier.loadUnaligned(as: UInt64.self)),
                        position: UInt32(position), interval: start &+ UInt32(offset)))
            }
        }
        entries.sort { ($0.high, $0.low, $0.position, $0.interval) < ($1.high, $1.low, $1.position, $1.interval) }
        self.entries = entries
    }

    /// The occurrences of the file's keys among `matcher`'s sightings (those at `sightings`, every one when
    /// `nil`), as ``ENMatcher/occurrences(encodedChunks:options:)`` finds them for the file's chunks with the keys
    /// whose validity ended at or before `oldest` left out: each key with a hit, numbered from `ordinalBase` by
    /// its position in the file, in position order.
    package func occurrences(
        for matcher: ENMatcher, sightings: [Int]? = nil, oldest: ENIntervalNumber, ordinalBase: Int = 0
    ) -> [ENMatchOccurrence] {
        var hits: [Int: [ENMatchOccurrence.Hit]] = [:]
        let all = matcher.sightings
        for sightingIndex in sightings ?? Array(all.indices) {
            let sighting = all[sightingIndex]
            let (high, low) = (sighting.rpi.highWord, sighting.rpi.lowWord)
            let observed = sighting.interval
            var first = 0
            var count = entries.count
            while count > 0 {
                let half = count / 2
                let entry = entries[first + half]
                if entry.high < high || (entry.high == high && entry.low < low) {
                    first += half + 1
                    count -= half + 1
                } else {
                    count = half
                }
            }
            while first < entries.count, entries[first].high == high, entries[first].low == low {
                let entry = entries[first]
                first += 1
                let position = Int(entry.position)
                guard starts[position] &+ periods[position] > oldest else { continue }
                let distance = observed > entry.interval ? observed - entry.interval : entry.interval - observed
                guard distance <= Self.toleranceIntervals else { continue }
                hits[position, default: []].append(
                    ENMatchOccurrence.Hit(sightingIndex: sightingIndex, derivedInterval: entry.interval))
            }
        }
        return hits.keys.sorted().compactMap { position in
            guard let key = key(at: position) else { return nil }
            return ENMatchOccurrence(ordinal: ordinalBase + position, key: key, hits: hits[position]!)
        }
    }

    /// The key at `position` in the file, decoded whole.
    private func key(at position: Int) -> ENTemporaryExposureKey? {
        var low = 0
        var high = chunkStarts.count
        while low < high {
            let middle = (low + high) / 2
            if chunkStarts[middle] <= position { low = middle + 1 } else { high = middle }
        }
        let chunk = Swift.max(0, low - 1)
        return chunks[chunk].key(at: position - chunkStarts[chunk])
    }
}
