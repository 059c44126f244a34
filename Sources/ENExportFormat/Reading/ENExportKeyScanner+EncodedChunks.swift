package import ENCore
package import Foundation

extension ENExportKeyScanner {
    /// The keys of `exportBinary` left encoded, in chunks of at most `size` keys, the revised keys' chunks first:
    /// each chunk only says where its key messages are, and ENMatching's threads decode them
    /// (``ENEncodedExportKeys``). One walk over the file finds them and makes every check of
    /// ``init(exportBinary:limits:)``. The matching threads ignore the keys the decoder refuses
    /// (``ENExportInvalidKeyPolicy/skip``) and those whose validity ended at or before `oldest`
    /// (`rollingStartNumber + rollingPeriod <= oldest`).
    ///
    /// - Throws: `ENError.Code.badFormat` as ``init(exportBinary:limits:)`` throws it, and for a file larger than
    ///   4 GiB (the chunks keep 32-bit offsets).
    package static func encodedChunks(
        of exportBinary: Data, limits: ENExportLimits = .default, ofSize size: Int,
        retainingKeysAfter oldest: ENIntervalNumber = 0
    ) throws(ENError) -> [ENEncodedExportKeys] {
        try ENKeyExport.checkSize(exportBinary, limits: limits)
        guard exportBinary.count <= Int(UInt32.max) else {
            throw .badFormat("export.bin is larger than 4 GiB", context: .init(section: "export.bin"))
        }
        let (revised, keys) = try exportBinary.withBytes { (buffer) throws(ENError) -> ([UInt64], [UInt64]) in
            var walk = ENKeyExport.TopLevelWalk(buffer, maximumKeyCount: limits.maximumKeyCount)
            var revised: [UInt64] = []
            var keys: [UInt64] = []
            // About 34 bytes a key in the files servers write.
            keys.reserveCapacity(buffer.count / 32)
            while let message = try walk.nextKeyMessage() {
                let location = UInt64(message.range.lowerBound) | UInt64(message.range.count) << 32
                if message.section == .keys { keys.append(location) } else { revised.append(location) }
            }
            return (revised, keys)
        }
        let size = max(1, size)
        var chunks: [ENEncodedExportKeys] = []
        for messages in [revised, keys] {
            for start in stride(from: 0, to: messages.count, by: size) {
                chunks.append(
                    ENEncodedExportKeys(
                        exportBinary: exportBinary, messages: messages,
                        range: start..<min(start + size, messages.count), oldest: oldest))
            }
        }
        return chunks
    }
}

/// Key messages of one `export.bin`, found but not decoded: ENMatching's threads decode them into its records
/// (``ENEncodedKeyChunk``) with the decoder ``ENExportKeyScanner`` uses, and the matched ones again whole.
package struct ENEncodedExportKeys: ENEncodedKeyChunk {
    /// The file's bytes (shared, not copied).
    let exportBinary: Data
    /// Each key message's offset (low 32 bits) and length (high 32 bits), of the chunk's section (shared by its
    /// chunks).
    let messages: [UInt64]
    /// The chunk's part of `messages`.
    let range: Range<Int>
    /// Keys whose validity ended at or before this interval are ignored.
    let oldest: ENIntervalNumber

    package var count: Int { range.count }

    package func writeRecords(
        _ positions: Range<Int>, to records: UnsafeMutableRawPointer
    ) -> (ignored: Int, revoked: Int) {
        var ignored = 0
        var revoked = 0
        exportBinary.withUnsafeBytes { buffer in
            messages.withUnsafeBufferPointer { messages in
                var record = records
                for position in positions {
                    let message = messages[range.lowerBound + position]
                    let start = Int(truncatingIfNeeded: message & 0xFFFF_FFFF)
                    let range = start..<(start + Int(truncatingIfNeeded: message >> 32))
                    if let key = try? KeyMessage.read(buffer, range), let words = key.keyDataWords,
                        key.rollingStartNumber &+ key.rollingPeriod > oldest
                    {
                        record.storeBytes(of: words.low.littleEndian, as: UInt64.self)
                        record.storeBytes(of: words.high.littleEndian, toByteOffset: 8, as: UInt64.self)
                        record.storeBytes(
                            of: key.rollingStartNumber, toByteOffset: ENKeyRecord.startOffset, as: UInt32.self)
                        record.storeBytes(
                            of: key.rollingPeriod, toByteOffset: ENKeyRecord.periodOffset, as: UInt32.self)
                        if key.diagnosisReportType == .revoked { revoked += 1 }
                    } else {
                        record.storeBytes(of: 0, toByteOffset: ENKeyRecord.periodOffset, as: UInt32.self)
                        ignored += 1
                    }
                    record += ENKeyRecord.stride
                }
            }
        }
        return (ignored, revoked)
    }

    /// The intervals of the chunk's sightings any of its keys can match: from 12 before the earliest start to 12
    /// after the last interval of the latest validity (`ENMatcher`'s tolerance), over the keys that decode; `nil`
    /// when none does.
    package var reach: ClosedRange<UInt32>? {
        var lowest = UInt64.max
        var highest: UInt64 = 0
        exportBinary.withUnsafeBytes { buffer in
            for message in messages[range] {
                let start = Int(truncatingIfNeeded: message & 0xFFFF_FFFF)
                let range = start..<(start + Int(truncatingIfNeeded: message >> 32))
                guard let key = try? KeyMessage.read(buffer, range) else { continue }
                lowest = min(lowest, UInt64(key.rollingStartNumber))
                highest = max(highest, UInt64(key.rollingStartNumber) + UInt64(key.rollingPeriod))
            }
        }
        guard lowest != .max else { return nil }
        let tolerance = UInt64(ENEncodedExportKeys.toleranceIntervals)
        let first = lowest > tolerance ? lowest - tolerance : 0
        let last = max(highest, lowest + 1) - 1 + tolerance
        return UInt32(clamping: first)...UInt32(clamping: last)
    }

    /// ENMatcher's tolerance: a key matches a sighting up to 12 intervals from the derived interval.
    static let toleranceIntervals = 12

    package func key(at position: Int) -> ENTemporaryExposureKey? {
        let message = messages[range.lowerBound + position]
        let start = Int(truncatingIfNeeded: message & 0xFFFF_FFFF)
        let range = start..<(start + Int(truncatingIfNeeded: message >> 32))
        return exportBinary.withUnsafeBytes { buffer in try? KeyMessage.read(buffer, range) }
    }
}
