internal import CENMatchingKernel
internal import ENCore
internal import Foundation

/// A batch of keys read from the input: the kernel's compact copy, and where each key came from so that
/// the few matched keys can be fetched back without copying every key.
struct KeyBatch: ~Copyable {
    /// The kernel's input; keys to be ignored carry rolling period 0.
    let kernelKeys: UnsafeMutableBufferPointer<cen_key>
    /// The number of keys in the batch.
    private(set) var count = 0
    /// The input chunks the batch's keys came from, with the range taken from each.
    private var sources: [(chunk: [ENTemporaryExposureKey], range: Range<Int>, batchStart: Int)] = []

    init(capacity: Int) {
        kernelKeys = .allocate(capacity: capacity)
    }

    deinit {
        // Key material: wipe before freeing.
        if let base = kernelKeys.baseAddress {
            memset(base, 0, kernelKeys.count * MemoryLayout<cen_key>.stride)
        }
        kernelKeys.deallocate()
    }

    var capacity: Int { kernelKeys.count }
    var isFull: Bool { count == capacity }

    mutating func removeAll() {
        count = 0
        sources.removeAll(keepingCapacity: true)
    }

    /// Appends keys `range` of `chunk` (at most the remaining capacity) and updates the statistics.
    mutating func append(_ chunk: [ENTemporaryExposureKey], range: Range<Int>, statistics: inout ENMatchingStatistics) {
        let start = count
        var ignored = 0
        var revoked = 0
        let destination = UnsafeMutableRawPointer(kernelKeys.baseAddress! + start)
        let stride = MemoryLayout<cen_key>.stride
        chunk.withUnsafeBufferPointer { keys in
            for (position, index) in range.enumerated() {
                let key = keys[index]
                // key_data is the struct's first field: write the 16 bytes straight into place.
                let entry = destination + position * stride
                var usable = key.rollingPeriod >= 1 && key.rollingPeriod <= ENTemporaryExposureKey.defaultRollingPeriod
                if usable {
                    usable = key.keyData.withUnsafeBytes { bytes in
                        guard bytes.count == ENTemporaryExposureKey.keyLength else { return false }
                        entry.copyMemory(from: bytes.baseAddress!, byteCount: ENTemporaryExposureKey.keyLength)
                        return true
                    }
                }
                entry.storeBytes(of: key.rollingStartNumber.rawValue, toByteOffset: Self.startOffset, as: UInt32.self)
                entry.storeBytes(of: usable ? key.rollingPeriod : 0, toByteOffset: Self.periodOffset, as: UInt32.self)
                if !usable { ignored += 1 }
                if key.diagnosisReportType == .revoked { revoked += 1 }
            }
        }
        count += range.count
        statistics.keysIgnored += ignored
        statistics.keysRevoked += revoked
        statistics.keysReceived += range.count
        sources.append((chunk, range, start))
    }

    private static let startOffset = MemoryLayout<cen_key>.offset(of: \.rolling_start)!
    private static let periodOffset = MemoryLayout<cen_key>.offset(of: \.rolling_period)!

    /// The key at position `index` of the batch.
    func key(at index: Int) -> ENTemporaryExposureKey {
        var low = 0
        var high = sources.count - 1
        while low < high {  // the last source starting at or before index
            let mid = (low + high + 1) / 2
            if sources[mid].batchStart <= index { low = mid } else { high = mid - 1 }
        }
        let source = sources[low]
        return source.chunk[source.range.lowerBound + (index - source.batchStart)]
    }
}
