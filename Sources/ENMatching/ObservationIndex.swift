internal import CENMatchingKernel
internal import ENCore

/// The C index over the observed identifiers (bitmap filter, exact table, observed intervals), built once
/// and then only read, from any number of threads.
final class ObservationIndex: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Builds the index over the sightings' identifiers and intervals.
    init(sightings: [ENSighting]) throws(ENError) {
        guard sightings.count <= Int(Int32.max) else {
            throw .badParameter("at most \(Int32.max) sightings can be matched, got \(sightings.count)")
        }
        var identifiers = [UInt8](repeating: 0, count: sightings.count * RollingProximityIdentifier.length)
        var intervals = [UInt32](repeating: 0, count: sightings.count)
        identifiers.withUnsafeMutableBytes { bytes in
            for (i, sighting) in sightings.enumerated() {
                bytes.storeBytes(of: sighting.rpi.lowWord.littleEndian, toByteOffset: 16 * i, as: UInt64.self)
                bytes.storeBytes(of: sighting.rpi.highWord.littleEndian, toByteOffset: 16 * i + 8, as: UInt64.self)
                intervals[i] = sighting.interval
            }
        }
        var generator = SystemRandomNumberGenerator()
        let seed = generator.next() as UInt64
        let created = identifiers.withUnsafeBufferPointer { ids in
            intervals.withUnsafeBufferPointer { ivs in
                cen_index_create(ids.baseAddress, ivs.baseAddress, sightings.count, seed)
            }
        }
        guard let created else {
            throw ENError(.insufficientMemory, "could not allocate the index of \(sightings.count) sightings")
        }
        pointer = created
    }

    deinit { cen_index_destroy(pointer) }

    /// The number of distinct observed identifiers.
    var distinctCount: Int { cen_index_distinct_count(pointer) }

    /// The bytes the index occupies.
    var memoryBytes: Int { cen_index_memory_bytes(pointer) }

    /// Whether any sighting's interval lies in `first ..< end` (the question that skips keys before any
    /// cryptography).
    func hasObservation(in range: Range<UInt64>) -> Bool {
        cen_index_has_observation_in(pointer, range.lowerBound, range.upperBound) != 0
    }

    /// The first and last sighting intervals in `range` (what bounds the intervals a key derives), or nil.
    func observedBounds(in range: Range<UInt64>) -> ClosedRange<UInt64>? {
        var lowest: UInt64 = 0
        var highest: UInt64 = 0
        guard cen_index_observed_range_in(pointer, range.lowerBound, range.upperBound, &lowest, &highest) != 0 else {
            return nil
        }
        return lowest...highest
    }
}
