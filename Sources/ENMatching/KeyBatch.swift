internal import CENMatchingKernel
internal import ENCore
internal import Foundation

/// A batch of keys read from the input: where each key came from, and the kernel's compact copy.
///
/// The calling thread appends whole chunk ranges (cheap: no per-key work); the matching threads then convert
/// their own groups of keys into the kernel's form (``convert(_:)``), so the conversion runs in parallel too.
/// Groups are disjoint, so threads never write the same memory.
final class KeyBatch: @unchecked Sendable {
    /// The kernel's input; keys to be ignored carry rolling period 0.
    let kernelKeys: UnsafeMutableBufferPointer<cen_key>
    /// The number of keys in the batch.
    private(set) var count = 0
    /// How many leading entries of `kernelKeys` have ever held a key (the rest were never written).
    private var highWater = 0
    /// The input chunks the batch's keys came from, with the range taken from each and where it starts.
    private var sources: [(chunk: KeyChunkInput, range: Range<Int>, batchStart: Int)] = []

    init(capacity: Int) {
        kernelKeys = .allocate(capacity: capacity)
    }

    deinit {
        // Key material: wipe before freeing. Only the entries that ever held a key: wiping the whole capacity
        // (the default batch is sized for millions of keys) costs a fault per untouched page on small inputs.
        if let base = kernelKeys.baseAddress {
            memset(base, 0, highWater * MemoryLayout<cen_key>.stride)
        }
        kernelKeys.deallocate()
    }

    var capacity: Int { kernelKeys.count }
    var isFull: Bool { count == capacity }

    func removeAll() {
        count = 0
        sources.removeAll(keepingCapacity: true)
    }

    /// Appends keys `range` of `chunk` (at most the remaining capacity).
    func append(_ chunk: KeyChunkInput, range: Range<Int>) {
        sources.append((chunk, range, count))
        count += range.count
        highWater = max(highWater, count)
    }

    /// The source holding batch position `index`.
    private func sourceIndex(containing index: Int) -> Int {
        var low = 0
        var high = sources.count - 1
        while low < high {  // the last source starting at or before index
            let mid = (low + high + 1) / 2
            if sources[mid].batchStart <= index { low = mid } else { high = mid - 1 }
        }
        return low
    }

    /// The key at position `index` of the batch; `nil` for an encoded key that does not decode (never one with a
    /// hit: such a key is ignored).
    func key(at index: Int) -> ENTemporaryExposureKey? {
        let source = sources[sourceIndex(containing: index)]
        let position = source.range.lowerBound + (index - source.batchStart)
        switch source.chunk {
        case .keys(let keys): return keys[position]
        case .encoded(let encoded): return encoded.key(at: position)
        }
    }

    /// Converts the keys at batch positions `positions` into the kernel's form; returns how many were ignored
    /// (period 0 or above 144, key data not 16 bytes) and how many are revoked.
    func convert(_ positions: Range<Int>) -> (ignored: Int, revoked: Int) {
        var ignored = 0
        var revoked = 0
        var s = sourceIndex(containing: positions.lowerBound)
        var position = positions.lowerBound
        let base = UnsafeMutableRawPointer(kernelKeys.baseAddress!)
        let stride = MemoryLayout<cen_key>.stride
        while position < positions.upperBound {
            let source = sources[s]
            let end = min(positions.upperBound, source.batchStart + source.range.count)
            guard case .keys(let chunk) = source.chunk else {
                guard case .encoded(let encoded) = source.chunk else { preconditionFailure() }
                let first = source.range.lowerBound + (position - source.batchStart)
                let counts = encoded.writeRecords(first..<(first + end - position), to: base + position * stride)
                ignored += counts.ignored
                revoked += counts.revoked
                position = end
                s += 1
                continue
            }
            chunk.withUnsafeBufferPointer { keys in
                let first = keys.baseAddress! + source.range.lowerBound
                for p in position..<end {
                    // Borrowed through the pointer: no copy of the key (and no retain of its data) per key.
                    let key = first + (p - source.batchStart)
                    // key_data is the struct's first field: write the 16 bytes straight into place.
                    let entry = base + p * stride
                    let period = key.pointee.rollingPeriod
                    var usable = period >= 1 && period <= ENTemporaryExposureKey.defaultRollingPeriod
                    if usable {
                        // The 16 bytes are held inline by the key: no `Data` access (and none of its
                        // exclusivity checks) per key.
                        if let words = key.pointee.keyDataWords {
                            entry.storeBytes(of: words.low.littleEndian, as: UInt64.self)
                            entry.storeBytes(of: words.high.littleEndian, toByteOffset: 8, as: UInt64.self)
                        } else {
                            usable = false
                        }
                    }
                    entry.storeBytes(
                        of: key.pointee.rollingStartNumber, toByteOffset: Self.startOffset, as: UInt32.self)
                    entry.storeBytes(
                        of: usable ? period : 0, toByteOffset: Self.periodOffset, as: UInt32.self)
                    if !usable { ignored += 1 }
                    if key.pointee.diagnosisReportType == .revoked { revoked += 1 }
                }
            }
            position = end
            s += 1
        }
        return (ignored, revoked)
    }

    private static let startOffset = MemoryLayout<cen_key>.offset(of: \.rolling_start)!
    private static let periodOffset = MemoryLayout<cen_key>.offset(of: \.rolling_period)!

    /// Whether the kernel's records are laid out as ``ENKeyRecord`` says (encoded chunks write them directly).
    static let recordsMatchTheKernel =
        MemoryLayout<cen_key>.stride == ENKeyRecord.stride && startOffset == ENKeyRecord.startOffset
        && periodOffset == ENKeyRecord.periodOffset
}

/// One chunk of the matcher's input: keys, or keys still encoded that the matching threads decode.
enum KeyChunkInput: Sendable {
    case keys([ENTemporaryExposureKey])
    case encoded(any ENEncodedKeyChunk)

    /// The number of keys.
    var count: Int {
        switch self {
        case .keys(let keys): keys.count
        case .encoded(let encoded): encoded.count
        }
    }
}
