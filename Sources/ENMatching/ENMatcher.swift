internal import CENMatchingKernel
internal import Dispatch
public import ENCore
internal import ENCrypto
internal import Foundation
internal import Synchronization

/// Matches diagnosis keys against a device's sightings: for every key, every sighting whose identifier the key
/// derives for an interval within 12 intervals (2 hours) of the sighting's own.
///
/// Build a matcher once per detection from the sightings (that builds the observation index), then match
/// any number of keys, from one array or streamed as chunks:
///
/// ```swift
/// let matcher = try ENMatcher(sightings: storedSightings)
/// let result = try matcher.match(keyChunks: keysFromFiles)   // any Sequence of [ENTemporaryExposureKey]
/// for match in result.matches { print(match.key, match.sightings.count) }
/// ```
///
/// The rules:
/// - a key derives one identifier per interval of its validity, `rollingStartNumber ..< rollingStartNumber +
///   rollingPeriod`; keys with a rolling period of 0 or above 144 (or key data that is not 16 bytes) are ignored;
/// - a key matches a sighting when the identifiers are equal and |sighting interval - derived interval| <= 12;
/// - the same key data in several places (files) is one key: its first matching occurrence wins;
/// - keys with report type `ENDiagnosisReportType.revoked` never match and cancel matches of the same key
///   data elsewhere in the input;
/// - keys with no sighting within their validity +-12 intervals are skipped before any cryptography, and of the
///   others only the intervals from 12 before their first nearby sighting to 12 after their last are derived.
///
/// A matcher is immutable and can be shared between threads; each ``match(keyChunks:options:)`` call runs on
/// ``ENMatchingOptions/threadCount`` threads with work stealing over small groups of keys.
public final class ENMatcher: Sendable {
    /// The sightings the keys are matched against, in the order given.
    public let sightings: [ENSighting]
    let index: ObservationIndex

    /// The largest difference, in intervals, between a sighting's interval and the derived interval of a match: 12.
    public static let toleranceIntervals = Int(CEN_TOLERANCE_INTERVALS)

    /// Keys per unit of work handed to a thread.
    static let groupSize = 256

    /// Builds the observation index over `sightings`.
    ///
    /// - Throws: `ENError.Code.insufficientMemory` when the index cannot be allocated,
    ///   `ENError.Code.badParameter` for more than 2^31 - 1 sightings.
    public init(sightings: [ENSighting]) throws(ENError) {
        self.sightings = sightings
        self.index = try ObservationIndex(sightings: sightings)
    }

    /// The number of distinct identifiers among the sightings.
    public var distinctIdentifierCount: Int { index.distinctCount }

    /// Matches the keys of one array.
    public func match(_ keys: [ENTemporaryExposureKey], options: ENMatchingOptions = ENMatchingOptions())
        throws(ENError) -> ENMatchingResult
    {
        try match(keyChunks: CollectionOfOne(keys), options: options)
    }

    /// Matches keys that arrive as a sequence of chunks (for example one per export file), holding at most two
    /// batches of ``ENMatchingOptions/batchSize`` keys: one being matched, one being read. Chunks are only
    /// retained while their batch is read or processed, so a lazily produced sequence keeps memory bounded.
    ///
    /// The sequence is iterated on the calling thread. When reading it is slow (decompressing and decoding
    /// files, say), the threads match one batch in the background while the next is read; input that is nearly
    /// free to read (arrays in memory) is matched with the calling thread taking part.
    ///
    /// - Throws: `ENError.Code.invalidated` when cancelled (through ``ENMatchingOptions/isCancelled`` or
    ///   the calling task), `ENError.Code.unsupported` when ``ENMatchingOptions/kernel`` names a kernel
    ///   this CPU lacks, `ENError.Code.insufficientMemory` or `ENError.Code.internal` when the
    ///   kernel fails.
    public func match<Chunks: Sequence>(keyChunks: Chunks, options: ENMatchingOptions = ENMatchingOptions())
        throws(ENError) -> ENMatchingResult where Chunks.Element == [ENTemporaryExposureKey]
    {
        var incremental = ENIncrementalMatch(matcher: self)
        try incremental.add(keyChunks: keyChunks, options: options)
        return try incremental.finish()
    }

    /// Matches keys still encoded (``ENEncodedKeyChunk``: the key messages of export files, say), which the matching
    /// threads decode in parallel, as ``match(keyChunks:options:)`` matches keys: the same rules, the same result.
    package func match<Chunks: Sequence>(
        encodedChunks: Chunks, options: ENMatchingOptions = ENMatchingOptions()
    ) throws(ENError) -> ENMatchingResult where Chunks.Element == any ENEncodedKeyChunk {
        var incremental = ENIncrementalMatch(matcher: self)
        try incremental.add(encodedChunks: encodedChunks, options: options)
        return try incremental.finish()
    }

    /// Matches `keyChunks` and adds the kernel's hits to `collector`, numbering the keys from `keysBefore` on (the
    /// keys of earlier calls come first, so that de-duplication keeps the earliest occurrence across calls), and
    /// adds what the run did to `statistics`. On a thrown error the arguments are left partly updated: the caller
    /// (``ENIncrementalMatch``) works on copies.
    func accumulate<Chunks: Sequence>(
        keyChunks: Chunks, options: ENMatchingOptions, into collector: inout MatchCollector, keysBefore: Int,
        statistics: inout ENMatchingStatistics
    ) throws(ENError) where Chunks.Element == KeyChunkInput {
        let threadCount = min(max(1, options.threadCount), ENMatchingOptions.maximumThreadCount)
        let kernel = options.kernel ?? .best
        let workers = try KernelWorkers(kernel: kernel, count: threadCount, genericLoop: options.usesGenericLoop)
        let capacity = min(max(1, options.batchSize), 1 << 20)
        // Two batches: the threads match one while the calling thread reads the input into the other, so that
        // reading (decompressing and decoding files, for example) overlaps matching instead of pausing it. Input
        // that costs next to nothing to read (arrays in memory) gains nothing from that, and is matched on the
        // calling thread, whose caches hold the freshly built index (about 2 % faster).
        var filling = KeyBatch(capacity: capacity)
        var fillStarted = DispatchTime.now().uptimeNanoseconds
        var spare: KeyBatch? = KeyBatch(capacity: capacity)
        var running: RunningBatch?
        statistics.kernel = kernel
        statistics.threadCount = threadCount
        statistics.distinctIdentifiers = index.distinctCount
        var batchBase = keysBefore
        // Never leave threads working on a batch this call no longer owns.
        defer { running?.done.wait() }

        /// Waits for the running batch and takes its matches.
        func finishRunning() throws(ENError) {
            guard let batch = running else { return }
            running = nil
            batch.done.wait()
            spare = batch.keys
            if batch.state.failed.load(ordering: .relaxed) {
                throw .internal("the \(workers.kernel) matching kernel failed (out of memory or OpenSSL error)")
            }
            if batch.state.cancelled.load(ordering: .relaxed) {
                throw ENError(.invalidated, "matching was cancelled")
            }
            statistics.keysReceived += batch.keys.count
            statistics.keysIgnored += batch.state.ignored.load(ordering: .relaxed)
            statistics.keysRevoked += batch.state.revoked.load(ordering: .relaxed)
            for worker in workers.workers {
                let hits = UnsafeBufferPointer(start: cen_worker_hits(worker), count: cen_worker_hit_count(worker))
                for hit in hits {
                    guard let key = batch.keys.key(at: Int(hit.key_index)) else {
                        throw .internal("a matched key no longer decodes")
                    }
                    collector.add(
                        ordinal: batchBase + Int(hit.key_index), key: key,
                        sightingIndex: Int(hit.observation_index),
                        derivedInterval: ENIntervalNumber(hit.derived_interval))
                }
                cen_worker_clear_hits(worker)
            }
            batchBase += batch.keys.count
            batch.keys.removeAll()
            options.progress?(ENMatchingProgress(keysProcessed: batchBase, keysMatched: collector.occurrenceCount))
        }

        /// Hands the filled batch to the threads (after the previous one is done: the workers are shared): in
        /// the background when reading it took long enough that reading the next one should overlap matching.
        func launchFilled() throws(ENError) {
            let readNanoseconds = DispatchTime.now().uptimeNanoseconds - fillStarted
            let inBackground =
                options.overlapsReading
                ?? (readNanoseconds >= Self.overlappedReadNanosecondsPerKey * UInt64(filling.count))
            try finishRunning()
            if options.isCancelled?() == true || Task.isCancelled {
                throw ENError(.invalidated, "matching was cancelled after \(batchBase - keysBefore) keys")
            }
            running = startBatch(
                filling, workers: workers, threadCount: threadCount, options: options, inBackground: inBackground)
            guard let next = spare else { preconditionFailure("no free batch while one is running") }
            spare = nil
            filling = next
            fillStarted = DispatchTime.now().uptimeNanoseconds
        }

        for chunk in keyChunks {
            var offset = 0
            let count = chunk.count
            while offset < count {
                let take = min(count - offset, filling.capacity - filling.count)
                filling.append(chunk, range: offset..<(offset + take))
                offset += take
                if filling.isFull { try launchFilled() }
            }
        }
        if filling.count > 0 { try launchFilled() }
        try finishRunning()

        statistics.keysDerived += workers.keysDerived
        statistics.identifiersDerived += workers.identifiersDerived
    }

    /// Reading input more slowly than this (per key) is worth overlapping with matching: unzipping, verifying
    /// and scanning export files takes about 250 ns per key; appending keys held in memory, well under 1 ns.
    static let overlappedReadNanosecondsPerKey: UInt64 = 20

    /// Runs the threads on one batch, in the background (returning at once) or with the calling thread taking
    /// part (returning when done); they take groups of keys from a shared counter until none are left.
    private func startBatch(
        _ batch: KeyBatch, workers: KernelWorkers, threadCount: Int, options: ENMatchingOptions, inBackground: Bool
    ) -> RunningBatch {
        let state = BatchState(batch: batch, index: index.pointer, isCancelled: options.isCancelled)
        let groups = (batch.count + Self.groupSize - 1) / Self.groupSize
        let participants = min(threadCount, groups)
        let done = DispatchGroup()
        let run: @Sendable () -> Void = {
            if participants <= 1 {
                state.work(worker: workers.workers[0], groups: groups)
            } else {
                DispatchQueue.concurrentPerform(iterations: participants) { participant in
                    state.work(worker: workers.workers[participant], groups: groups)
                }
            }
        }
        if inBackground {
            DispatchQueue.global(qos: .userInitiated).async(group: done, execute: run)
        } else {
            run()
        }
        return RunningBatch(keys: batch, state: state, done: done)
    }
}

/// A batch the threads are working on.
private struct RunningBatch {
    let keys: KeyBatch
    let state: BatchState
    let done: DispatchGroup
}

/// What the threads of one batch share.
private final class BatchState: @unchecked Sendable {
    let batch: KeyBatch
    let keys: UnsafePointer<cen_key>
    let count: Int
    let index: OpaquePointer
    let isCancelled: (@Sendable () -> Bool)?
    let nextGroup = Atomic<Int>(0)
    let stop = Atomic<Bool>(false)
    let failed = Atomic<Bool>(false)
    let cancelled = Atomic<Bool>(false)
    let ignored = Atomic<Int>(0)
    let revoked = Atomic<Int>(0)

    init(batch: KeyBatch, index: OpaquePointer, isCancelled: (@Sendable () -> Bool)?) {
        self.batch = batch
        self.keys = UnsafePointer(batch.kernelKeys.baseAddress!)
        self.count = batch.count
        self.index = index
        self.isCancelled = isCancelled
    }

    /// Takes groups of keys until none are left: converts each into the kernel's form, then matches it.
    func work(worker: OpaquePointer, groups: Int) {
        var ignoredHere = 0
        var revokedHere = 0
        defer {
            ignored.add(ignoredHere, ordering: .relaxed)
            revoked.add(revokedHere, ordering: .relaxed)
        }
        while !stop.load(ordering: .relaxed) {
            let group = nextGroup.wrappingAdd(1, ordering: .relaxed).oldValue
            guard group < groups else { return }
            if let isCancelled, isCancelled() {
                cancelled.store(true, ordering: .relaxed)
                stop.store(true, ordering: .relaxed)
                return
            }
            let first = group * ENMatcher.groupSize
            let n = min(ENMatcher.groupSize, count - first)
            let counts = batch.convert(first..<(first + n))
            ignoredHere += counts.ignored
            revokedHere += counts.revoked
            if cen_worker_match(worker, index, keys + first, n, UInt32(first)) != 0 {
                failed.store(true, ordering: .relaxed)
                stop.store(true, ordering: .relaxed)
                return
            }
        }
    }
}
