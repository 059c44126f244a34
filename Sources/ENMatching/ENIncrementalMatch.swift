public import ENCore

/// A matching run fed in several calls: keys arrive batch by batch (as Apple's `ENExposureDetectionSession`
/// receives them through `addDiagnosisKeys`), and the rules of ``ENMatcher`` hold across all of them.
///
/// ```swift
/// var run = ENIncrementalMatch(matcher: try ENMatcher(sightings: storedSightings))
/// for batch in batchesFromTheServer {
///     try run.add(batch)
/// }
/// let result = try run.finish()
/// ```
///
/// Between calls the run keeps only what matched (each matched key occurrence with its hits), never the keys
/// themselves, so memory follows the number of matches, not the number of keys added. The rules are those of
/// ``ENMatcher/match(keyChunks:options:)``, applied to the keys of every call in the order they were added, as if
/// they had been one sequence (that method is this type fed once):
/// - the same key data in several calls is one key: its first matching occurrence wins;
/// - a key with report type `ENDiagnosisReportType.revoked` cancels the matches of the same key data, whether
///   they were added before it or after it; so revocation is only settled by ``finish()``.
///
/// A run is a value: copies are independent. ``add(keyChunks:options:)`` changes the run only when it succeeds;
/// when it throws (cancelled, say), the run is as before the call and may be fed again.
public struct ENIncrementalMatch: Sendable {
    /// The matcher (and so the sightings) every call matches against.
    public let matcher: ENMatcher
    private var collector = MatchCollector()
    private var keysAdded = 0
    private var statistics = ENMatchingStatistics()

    /// Starts a run with no keys.
    public init(matcher: ENMatcher) {
        self.matcher = matcher
        statistics.distinctIdentifiers = matcher.distinctIdentifierCount
    }

    /// Keys added so far (duplicates and ignored keys included), and matched key occurrences so far (before
    /// de-duplication and revocation, which ``finish()`` applies).
    public var progress: ENMatchingProgress {
        ENMatchingProgress(keysProcessed: keysAdded, keysMatched: collector.occurrenceCount)
    }

    /// Matches the keys of one array and keeps their matches for ``finish()``.
    ///
    /// - Throws: as ``add(keyChunks:options:)``.
    public mutating func add(_ keys: [ENTemporaryExposureKey], options: ENMatchingOptions = ENMatchingOptions())
        throws(ENError)
    {
        try add(keyChunks: CollectionOfOne(keys), options: options)
    }

    /// Matches keys that arrive as a sequence of chunks, as ``ENMatcher/match(keyChunks:options:)`` does, and
    /// keeps their matches for ``finish()``. ``ENMatchingOptions/progress`` counts the keys of earlier calls too.
    ///
    /// - Throws: `ENError.Code.invalidated` when cancelled, `ENError.Code.unsupported` for a kernel this CPU
    ///   lacks, `ENError.Code.insufficientMemory` or `ENError.Code.internal` when the kernel fails. The run is
    ///   then unchanged.
    public mutating func add<Chunks: Sequence>(
        keyChunks: Chunks, options: ENMatchingOptions = ENMatchingOptions()
    ) throws(ENError) where Chunks.Element == [ENTemporaryExposureKey] {
        try add(inputs: keyChunks.lazy.map(KeyChunkInput.keys), options: options)
    }

    /// Matches keys still encoded (the key messages of export files, say), which the matching threads decode, as
    /// ``add(keyChunks:options:)`` matches keys.
    package mutating func add<Chunks: Sequence>(
        encodedChunks: Chunks, options: ENMatchingOptions = ENMatchingOptions()
    ) throws(ENError) where Chunks.Element == any ENEncodedKeyChunk {
        precondition(KeyBatch.recordsMatchTheKernel, "the kernel's key records are not laid out as ENKeyRecord says")
        try add(inputs: encodedChunks.lazy.map(KeyChunkInput.encoded), options: options)
    }

    private mutating func add<Chunks: Sequence>(inputs: Chunks, options: ENMatchingOptions) throws(ENError)
    where Chunks.Element == KeyChunkInput {
        // Work on copies: a failure part-way through a call leaves no hits of that call behind.
        var collector = self.collector
        var statistics = self.statistics
        try matcher.accumulate(
            keyChunks: inputs, options: options, into: &collector, keysBefore: keysAdded, statistics: &statistics)
        keysAdded = statistics.keysReceived
        self.collector = collector
        self.statistics = statistics
    }

    /// The matched key occurrences of every call so far, by ordinal, before de-duplication and revocation.
    package var occurrences: [ENMatchOccurrence] { collector.all }

    /// The result of every key added so far: de-duplication and revocation applied across all calls, and the
    /// statistics of all calls (kernel and thread count of the last one).
    ///
    /// The run is not consumed: more keys may be added and ``finish()`` called again.
    ///
    /// - Throws: the `ENError` of ENCrypto when the metadata key of a matched key cannot be derived (not
    ///   expected: only keys of 16 bytes match).
    public func finish() throws(ENError) -> ENMatchingResult {
        var statistics = self.statistics
        let matches = try collector.finish(sightings: matcher.sightings, statistics: &statistics)
        return ENMatchingResult(matches: matches, statistics: statistics)
    }
}
