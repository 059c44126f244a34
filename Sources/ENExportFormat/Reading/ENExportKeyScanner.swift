public import ENCore
public import Foundation

/// Reads the keys of an `export.bin` in chunks, without materialising the whole message.
///
/// Creating a scanner checks the header, walks the top-level fields once (validating every length,
/// counting keys and decoding the file's metadata), and keeps only the bytes it was given. Keys are then
/// decoded on demand, a chunk at a time, by the same decoder ``ENKeyExport/init(exportBinary:limits:)`` uses
/// (the tests check it against swift-protobuf on every fixture and on random and odd encodings):
///
/// ```swift
/// let scanner = try ENExportKeyScanner(exportBinary: archive.exportBinary)
/// var chunks = scanner.chunks(ofSize: 4096)
/// while let keys = try chunks.next() {
///     matcher.add(keys)
/// }
/// ```
///
/// Memory stays at the file's bytes plus one chunk of keys, whatever the file's size.
public struct ENExportKeyScanner: Sendable {
    /// The `export.bin` bytes, header included.
    public let exportBinary: Data
    /// The file's metadata: every field of ``ENKeyExport`` except the keys, which are left empty.
    public let metadata: ENKeyExport
    /// The number of keys in field 7 (`keys`).
    public let keyCount: Int
    /// The number of keys in field 8 (`revised_keys`).
    public let revisedKeyCount: Int

    /// Checks the header and the top-level structure of `exportBinary` and reads its metadata.
    ///
    /// - Throws: `ENError.Code.badFormat` for a wrong or short header, a truncated or malformed
    ///   message, a field of the wrong type, or more keys than `limits` allow.
    public init(exportBinary: Data, limits: ENExportLimits = .default) throws(ENError) {
        try ENKeyExport.checkSize(exportBinary, limits: limits)
        self.exportBinary = exportBinary
        let walk = try exportBinary.withBytes { (buffer) throws(ENError) in
            var walk = ENKeyExport.TopLevelWalk(buffer, maximumKeyCount: limits.maximumKeyCount)
            while try walk.nextKeyMessage() != nil {}
            return walk
        }
        metadata = walk.metadata
        keyCount = walk.counts.keys
        revisedKeyCount = walk.counts.revisedKeys
    }

    /// An iterator over the keys of one section, `size` keys at a time.
    ///
    /// - Parameters:
    ///   - size: the most keys in one chunk.
    ///   - section: new keys (field 7) or revised keys (field 8).
    ///   - invalidKeys: whether a key with a bad value (wrong key length, rolling period outside 1...144, ...)
    ///     ends the read with an error (``ENExportInvalidKeyPolicy/reject``, the default) or is left out and
    ///     counted (``ENExportInvalidKeyPolicy/skip``). A broken file structure always throws.
    public func chunks(
        ofSize size: Int = 4096, in section: ENExportKeySection = .keys,
        invalidKeys: ENExportInvalidKeyPolicy = .reject
    ) -> ChunkIterator {
        ChunkIterator(scanner: self, section: section, chunkSize: max(1, size), policy: invalidKeys)
    }

    /// Every key of one section, decoded at once.
    public func allKeys(in section: ENExportKeySection = .keys) throws(ENError) -> [ENTemporaryExposureKey] {
        var keys: [ENTemporaryExposureKey] = []
        keys.reserveCapacity(section == .keys ? keyCount : revisedKeyCount)
        var iterator = chunks(ofSize: 65_536, in: section)
        while let chunk = try iterator.next() { keys.append(contentsOf: chunk) }
        return keys
    }

    /// Yields the keys of one section of an ``ENExportKeyScanner`` in chunks.
    public struct ChunkIterator: Sendable {
        let scanner: ENExportKeyScanner
        let section: ENExportKeySection
        let chunkSize: Int
        let policy: ENExportInvalidKeyPolicy
        var position = ENKeyExport.header.count
        var counts = ENKeyExport.KeyCounts()

        /// How many keys ``ENExportInvalidKeyPolicy/skip`` left out so far.
        public private(set) var skippedKeyCount = 0
        /// Why keys were left out: the first ``maximumRecordedErrors`` errors, each with the key (section and
        /// index) and the field in its context.
        public private(set) var skippedKeyErrors: [ENError] = []
        /// The most skip errors kept (the count goes on).
        public static let maximumRecordedErrors = 100

        /// The next chunk of at most the chunk size, or `nil` after the last key.
        ///
        /// - Throws: `ENError.Code.badFormat` naming the key and field when a key is malformed or
        ///   out of range (wrong key length, rolling period outside 1...144, ...).
        public mutating func next() throws(ENError) -> [ENTemporaryExposureKey]? {
            let (chunkSize, section, policy) = (self.chunkSize, self.section, self.policy)
            let maximumKeyCount = scanner.keyCount + scanner.revisedKeyCount
            var (position, counts) = (self.position, self.counts)
            // Past the section's last key (or a section without keys, as revised keys usually are) there is
            // nothing left to walk for: the scanner's own walk already checked the rest of the file.
            let sectionCount = section == .keys ? scanner.keyCount : scanner.revisedKeyCount
            let remaining = sectionCount - (section == .keys ? counts.keys : counts.revisedKeys)
            guard remaining > 0 else { return nil }
            var (skipped, errors) = (skippedKeyCount, skippedKeyErrors)
            defer { (skippedKeyCount, skippedKeyErrors) = (skipped, errors) }
            // At most the keys the section has left: a small file's chunk is no larger than the file.
            let capacity = min(chunkSize, remaining)
            var failure: ENError?
            let keys = scanner.exportBinary.withUnsafeBytes { (buffer) -> [ENTemporaryExposureKey] in
                // Each key is decoded straight into its place in the chunk.
                [ENTemporaryExposureKey](unsafeUninitializedCapacity: capacity) { output, count in
                    var walk = ENKeyExport.TopLevelWalk(
                        buffer, maximumKeyCount: maximumKeyCount, from: position, counts: counts)
                    do throws(ENError) {
                        while count < capacity, let message = try walk.nextKeyMessage() {
                            guard message.section == section else { continue }
                            do throws(ENError) {
                                (output.baseAddress! + count).initialize(
                                    to: try KeyMessage.read(
                                        buffer, message.range, section: section, index: message.index))
                                count += 1
                            } catch {
                                guard policy == .skip else { throw error }
                                skipped += 1
                                if errors.count < Self.maximumRecordedErrors { errors.append(error) }
                            }
                            if message.index + 1 == sectionCount { break }
                        }
                    } catch {
                        failure = error
                    }
                    (position, counts) = (walk.position, walk.counts)
                }
            }
            if let failure { throw failure }
            (self.position, self.counts) = (position, counts)
            return keys.isEmpty ? nil : keys
        }
    }
}
