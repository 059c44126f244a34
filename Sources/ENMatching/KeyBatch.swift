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
        for index in range {
            let key = chunk[index]
            var entry = cen_key()
            let usable =
                key.rollingPeriod >= 1 && key.rollingPeriod <= ENTemporaryExposureKey.defaultRollingPeriod
                && key.keyData.count == ENTemporaryExposureKey.keyLength
            if usable {
                withUnsafeMutableBytes(of: &entry.key_data) { destination in
                    _ = key.keyData.copyBytes(to: destination)
                }
                entry.rolling_start = key.rollingStartNumber.rawValue
                entry.rolling_period = key.rollingPeriod
            } else {
                statistics.keysIgnored += 1
            }
            if key.diagnosisReportType == .revoked { statistics.keysRevoked += 1 }
            kernelKeys[count] = entry
            count += 1
        }
        statistics.keysReceived += range.count
        sources.append((chunk, range, start))
    }

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
