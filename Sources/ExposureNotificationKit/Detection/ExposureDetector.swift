internal import ENCore
internal import ENCrypto
internal import ENExportFormat
internal import ENMatching
internal import ENRiskV1
internal import ENRiskV2
internal import ENStore
internal import Foundation
internal import Synchronization

/// What the manager stores for each detection: the summary and the details that `getExposureWindows` and
/// `getExposureInfo` return for it.
struct StoredDetection: Codable, Sendable {
    var apiVersion: ENAPIVersion
    var summary: ENExposureDetectionSummary
    var exposureWindows: [ENExposureWindow]
    var exposureInfo: [ENExposureInfo]

    /// The kind under which detections are stored.
    static let kind = "ENManager.detectExposures"
}

/// One detection, from the key files to the stored result.
///
/// 1. The configuration is validated and the rate limit checked, before any work.
/// 2. Every new file is read and verified against the trusted keys, on as many threads as matching uses, in the
///    order matching reads them; a file's keys reach the matcher only once the file has verified, and the result
///    is used only once every file has: one file that fails ends the detection with nothing stored (the first
///    failing file in the given order names the error). A file's identity is the SHA-256 of its `export.bin`
///    (the digest the signature covers), so the same file given twice, zipped differently or already cached,
///    counts once. The verified `export.bin` stays in memory until matching has scanned it; verification runs ahead
///    of matching only as far as the memory budget allows (``VerificationRun``), so that no file is written aside,
///    read back or unzipped again.
/// 3. The keys of the new files and the cached files (the last 14 days) are streamed into the matcher, file by
///    file, while the remaining files are still being verified: the newest file first, each file's revised keys
///    before its keys, so that a revision (a key re-published with a new report type) wins over the original;
///    revoked keys cancel every match of their key data. Keys that ended before the retention period, and
///    invalid keys, are left out. A file given twice keeps its first place in that order: when one was, the
///    matching is run again in the exact order (a rare case, so it is not optimised). The cached files the last
///    detection matched are not matched again against every sighting: their hits on the sightings still retained
///    come from the manager's ``DetectionMemo``, and they are matched against the sightings new to it only; the
///    rules are then applied once over all occurrences in the order above, so the result is the same.
/// 4. The matches are scored (version 1 or 2 by the API version) and the result, the new files (cached for 14
///    days), their hashes and a rate-limit entry are written in one transaction. The new files' `export.bin` are
///    staged into the store as they verify (``KeyFileStager``), while matching runs, so that this transaction
///    only adopts them; a detection that ends without recording its result deletes what it staged.
///
/// Cancellation is checked between the steps and inside matching; a cancelled detection
/// throws `invalidated` and stores nothing.
struct ExposureDetector: Sendable {
    let environment: ENEnvironment
    let store: ENDeviceStore
    let managerID: UUID
    /// What the manager's last detection matched (see ``DetectionMemo``).
    let memo: DetectionMemo
    /// The manager's last recorded result (see ``RecentDetection``).
    let recent: RecentDetection
    /// Whether the detection was cancelled; checked between the steps and inside matching.
    let isCancelled: @Sendable () -> Bool

    /// Keys handed to the matcher at a time.
    static let chunkSize = 65_536

    /// The threads one detection matches on: every active core, at most ``ENLimits/maximumDetectionThreads``.
    static func matchingThreadCount(_ limits: ENLimits) -> Int {
        let cores = ENMatchingOptions.processorCount
        return max(1, min(cores, limits.maximumDetectionThreads ?? cores))
    }

    /// Whether `key` is still valid after `oldest` (the start of the retention period): keys that ended before
    /// it are left out of detection (the manager's and the session's).
    static func isRetained(_ key: ENTemporaryExposureKey, oldest: ENIntervalNumber) -> Bool {
        key.rollingStartNumber &+ key.rollingPeriod > oldest
    }

    func detect(
        configuration: ENExposureConfiguration, files: [DiagnosisKeyFile]
    ) throws(ENError) -> ENExposureDetectionSummary {
        try configuration.validate()
        let now = environment.clock.now
        let apiVersion = environment.apiVersion
        let rateLimit = ENDetectionRateLimit(
            limit: apiVersion == .version2
                ? environment.limits.detectionsPerDayVersion2 : environment.limits.detectionsPerDayVersion1)
        let recent = try store.read(.rateLimitLedger(since: now.addingTimeInterval(-rateLimit.window)))
        guard recent.count < rateLimit.limit else {
            throw ENError(
                .rateLimited, "\(recent.count) detections in the last 24 hours reach the limit of \(rateLimit.limit)")
        }

        let cachedHashes = try store.read(.cachedKeyFileHashes)
        // New files are written into the store as they verify, while matching runs; a detection that does not
        // record its result discards them.
        let stager = KeyFileStager(store: store)
        var recorded = false
        defer {
            if !recorded {
                stager.finish(discardingQueued: true)
                _ = try? store.write(.discardStagedKeyFiles)
            }
        }
        let run = VerificationRun(fileCount: files.count, budget: environment.limits.detectionMemoryBudget)
        startVerification(files, run: run, stager: stager, cached: Set(cachedHashes))
        // Never leave the verifying threads running, nor waiting for memory that matching will not hand back.
        defer {
            run.endMatching()
            run.waitUntilFinished()
        }
        let sightings = try store.read(.retainedSightings)
        let matcher = try ENMatcher(sightings: sightings)
        let oldest = ENIntervalNumber(date: now.addingTimeInterval(-environment.limits.retention))
        var options = ENMatchingOptions()
        options.threadCount = Self.matchingThreadCount(environment.limits)
        options.isCancelled = isCancelled
        // The cached files the memo knows are matched later, against the sightings that are new to it only.
        let previous = memo.take()
        let known = previous?.files ?? [:]
        // Matching reads each new file as soon as it is verified, the newest first, while the others are still
        // being verified; its result is used only once every file has verified.
        let streamed = StreamedSources(
            run: run, fileCount: files.count, cached: cachedHashes.filter { known[$0] == nil }.reversed())
        let chunks = KeyChunks(
            source: streamed.next, store: store, oldest: oldest, scanned: run.release, measuresReach: true)
        let shared = environment.sharedIdentifiers
        let streamedMatching = Result { () throws(ENError) -> [ENMatchOccurrence] in
            if let shared { return try chunks.occurrences(of: matcher, sharing: shared) }
            return try matcher.occurrences(encodedChunks: chunks, options: options)
        }
        run.endMatching()
        run.waitUntilFinished()
        let verified = try run.verifiedFiles()
        try checkCancellation()
        let occurrences = try streamedMatching.get()
        try chunks.checkRead()
        let matches: [ENKeyMatch]
        if !streamed.readDuplicate {
            let newHashes = Set(verified.map(\.hash))
            let order = verified.reversed().map(\.hash) + cachedHashes.reversed().filter { !newHashes.contains($0) }
            let incremental = try IncrementalMatching(
                matcher: matcher, order: order, oldest: oldest, previous: previous ?? DetectionMemo.State())
            try incremental.add(occurrences, locatedBy: chunks)
            incremental.addReach(chunks.reach)
            try incremental.addKnownFiles(
                order.filter { known[$0] != nil && !newHashes.contains($0) }, store: store, options: options,
                sharing: shared)
            try checkCancellation()
            matches = try incremental.matches()
            memo.put(incremental.state)
        } else {
            // The same export.bin given twice was read at its last place (the first read); the rule keeps its first
            // place, which decides which of two files with the same key data wins: match again in that order.
            let newHashes = Set(verified.map(\.hash))
            var sources: [KeySource] =
                cachedHashes.filter { !newHashes.contains($0) }.map { .cached($0) } + verified.map { .new($0) }
            sources.reverse()
            let exact = KeyChunks(sources: sources, store: store, oldest: oldest)
            // The memo was taken and is not put back: the next detection matches in full.
            matches = try matcher.match(encodedChunks: exact, options: options).matches
            try exact.checkRead()
            try checkCancellation()
        }

        let stored = Self.score(matches, configuration: configuration, apiVersion: apiVersion, now: now)
        try checkCancellation()
        let record = ENDetectionRecord(
            date: now, kind: StoredDetection.kind, result: stored,
            processedKeyFileHashes: verified.map(\.hash),
            cachedKeyFiles: verified.map { file in ENCachedKeyFile(hash: file.hash, exportBinary: file.exportBinary) },
            countsTowardRateLimit: true, rateLimit: rateLimit)
        stager.finish(discardingQueued: false)
        let before = store.writeGeneration
        let id = try store.write(.recordDetection(record))
        recorded = true
        self.recent.remember(stored, id: id, in: store, before: before, after: store.writeGeneration)
        var summary = stored.summary
        summary.origin = .init(manager: managerID, detectionID: id, apiVersion: apiVersion)
        return summary
    }

    /// Scores the matches by the API version.
    static func score(
        _ matches: [ENKeyMatch], configuration: ENExposureConfiguration, apiVersion: ENAPIVersion, now: Date
    ) -> StoredDetection {
        switch apiVersion {
        case .version1:
            let result = ENScoringV1.evaluate(matches: matches, configuration: configuration, now: now)
            return StoredDetection(
                apiVersion: apiVersion, summary: ENExposureDetectionSummary(result.summary), exposureWindows: [],
                exposureInfo: result.exposureInfo)
        case .version2:
            let windows = ENScoringV2.exposureWindows(from: matches, configuration: configuration)
            let days = ENScoringV2.daySummaries(for: windows, configuration: configuration, now: now)
            return StoredDetection(
                apiVersion: apiVersion, summary: ENExposureDetectionSummary(daySummaries: days),
                exposureWindows: windows, exposureInfo: [])
        }
    }

    /// Starts reading and verifying every file on a thread of its own and returns at once (a single file is verified
    /// before it returns, matching having to wait for it anyway): as many threads as
    /// matching uses take the files in the order matching reads them (the last given first) and record each
    /// outcome in `run`, which ``VerificationRun/finish()`` ends. A verified file's bytes stay in memory for
    /// matching, within ``ENLimits/detectionMemoryBudget`` (``VerificationRun/reserve(_:at:)``), and each one not in
    /// `cached` is handed to `stager`.
    private func startVerification(
        _ files: [DiagnosisKeyFile], run: VerificationRun, stager: KeyFileStager, cached: Set<Data>
    ) {
        let verifier = ENExportVerifier(trustedKeys: environment.trustedKeys, rule: environment.signatureRule)
        let threads = max(1, min(files.count, Self.matchingThreadCount(environment.limits)))
        let detector = self
        let verifyAll = { @Sendable in
            while let index = run.nextIndex() {
                let outcome = Result { () throws(ENError) -> VerifiedFile in
                    try detector.verify(files[index], index: index, verifier: verifier, run: run)
                }
                if case .success(let file) = outcome, case .memory(let exportBinary) = file.storage,
                    !cached.contains(file.hash)
                {
                    stager.stage(ENCachedKeyFile(hash: file.hash, exportBinary: exportBinary))
                }
                run.record(outcome, at: index)
            }
        }
        // One file (a daily detection's usual case): matching must wait for it before reading any key, so it is
        // verified here, without starting a thread.
        guard files.count > 1 else {
            verifyAll()
            run.finish()
            return
        }
        let thread = Thread {
            DispatchQueue.concurrentPerform(iterations: threads) { _ in verifyAll() }
            run.finish()
        }
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Reads and verifies one file, and keeps its `export.bin` in memory for matching (once the budget allows).
    private func verify(
        _ file: DiagnosisKeyFile, index: Int, verifier: ENExportVerifier, run: VerificationRun
    ) throws(ENError) -> VerifiedFile {
        try checkCancellation()
        let archive = try file.archive(limits: .default, shared: environment.sharedArchives)
        // The file's identity is the digest its signature covers: hashed once, for both.
        let hash = SHA256.hash(archive.exportBinary)
        let result: ENExportVerificationResult
        do throws(ENError) {
            result = try verifier.verify(archive, exportBinaryDigest: { hash })
        } catch {
            throw error.adding(ENError.Context(file: file.path, section: "export.sig"))
        }
        guard result.isVerified else {
            throw ENError(
                .badFormat, "the file does not verify: \(result)",
                context: ENError.Context(file: file.path, section: "export.sig"))
        }
        if run.reserve(archive.exportBinary.count, at: index) {
            return VerifiedFile(file: file, index: index, hash: hash, storage: .memory(archive.exportBinary))
        }
        // Matching has ended (it failed or was cancelled): the bytes will not be read.
        return VerifiedFile(file: file, index: index, hash: hash, storage: .original)
    }

    private func checkCancellation() throws(ENError) {
        if isCancelled() { throw ENError(.invalidated, "the detection was cancelled") }
    }
}

/// A file that verified: where it was given, its hash and its `export.bin`.
struct VerifiedFile: Sendable {
    /// Where the verified `export.bin` is.
    enum Storage: Sendable {
        /// In memory, until matching has scanned it.
        case memory(Data)
        /// Only in the original file: read and hashed again when needed (the rare cases that read a file twice).
        case original
    }

    let file: DiagnosisKeyFile
    /// The file's place in the given list.
    let index: Int
    let hash: Data
    let storage: Storage

    /// The verified `export.bin`: the bytes in memory, or the original file's read again, which must hash the
    /// same.
    @Sendable func exportBinary() throws(ENError) -> Data {
        switch storage {
        case .memory(let exportBinary):
            return exportBinary
        case .original:
            let archive = try file.archive(limits: .default)
            guard SHA256.hash(archive.exportBinary) == hash else {
                throw ENError(
                    .badFormat, "the file changed after it was verified", context: ENError.Context(file: file.path))
            }
            return archive.exportBinary
        }
    }
}

/// What the threads verifying one detection's files share with the matching that reads them: the next file to take
/// (the last given first, the order matching reads them), the memory budget left, and each file's outcome, which
/// a reader can wait for.
///
/// Verification is far faster than matching (57 against about 470 ns a key), so it would soon hold every file's
/// bytes: it waits while the budget is spent, until matching has scanned a file and handed its memory back
/// (``release(at:)``). The file matching reads next never waits, however large, so that verification and matching
/// cannot wait on each other; once matching has ended, nothing waits and no bytes are kept.
final class VerificationRun: Sendable {
    private struct State {
        var results: [Result<VerifiedFile, ENError>?]
        var finished = false
        var budgetLeft: Int
        /// Files matching has taken (its position in its order: the last given first).
        var taken = 0
        var matchingEnded = false
    }

    private let fileCount: Int
    private let next = Atomic(0)
    private let state: Locked<State>

    init(fileCount: Int, budget: Int) {
        self.fileCount = fileCount
        state = Locked(State(results: Array(repeating: nil, count: fileCount), budgetLeft: budget))
    }

    /// The next file to verify, the last given first; `nil` when all are taken.
    func nextIndex() -> Int? {
        let position = next.wrappingAdd(1, ordering: .relaxed).oldValue
        guard position < fileCount else { return nil }
        return fileCount - 1 - position
    }

    /// Takes `bytes` from the memory budget for the file at `index`, waiting while they do not fit, unless it is
    /// the file matching reads next; false (and nothing taken) once matching has ended.
    func reserve(_ bytes: Int, at index: Int) -> Bool {
        let position = fileCount - 1 - index
        return state.withLock(when: { $0.matchingEnded || $0.budgetLeft >= bytes || position <= $0.taken }) {
            state in
            if state.matchingEnded { return false }
            state.budgetLeft -= bytes
            return true
        }
    }

    /// Records that matching has taken the files before `position` in its order (it waits for the next one).
    func take(upTo position: Int) {
        state.withLockNotifyingAll { $0.taken = max($0.taken, position) }
    }

    /// Hands back the memory of the file at `index` once matching has scanned it (or skipped it): its bytes are
    /// dropped here, and read again from the original file in the rare cases that need them.
    @Sendable func release(at index: Int) {
        state.withLockNotifyingAll { state in
            guard case .success(let file)? = state.results[index], case .memory(let bytes) = file.storage else {
                return
            }
            state.results[index] = .success(
                VerifiedFile(file: file.file, index: file.index, hash: file.hash, storage: .original))
            state.budgetLeft += bytes.count
        }
    }

    /// Matching has ended: verification no longer waits for memory, nor keeps the bytes it reads.
    func endMatching() {
        state.withLockNotifyingAll { $0.matchingEnded = true }
    }

    /// Records the outcome of the file at `index` and wakes whoever waits for it.
    func record(_ outcome: Result<VerifiedFile, ENError>, at index: Int) {
        state.withLockNotifyingAll { $0.results[index] = outcome }
    }

    /// Marks the verification over (every file taken has its outcome).
    func finish() {
        state.withLockNotifyingAll { $0.finished = true }
    }

    /// The outcome of the file at `index`, once it is known; `nil` when the verification ended without it.
    func outcome(at index: Int) -> Result<VerifiedFile, ENError>? {
        state.withLock(when: { $0.results[index] != nil || $0.finished }) { $0.results[index] }
    }

    /// Waits until the verification is over.
    func waitUntilFinished() {
        state.withLock(when: \.finished) { _ in }
    }

    /// The verified files in the given order, each `export.bin` once (its first appearance), once the
    /// verification is over.
    ///
    /// - Throws: the error of the first file in the given order that failed.
    func verifiedFiles() throws(ENError) -> [VerifiedFile] {
        waitUntilFinished()
        var verified: [VerifiedFile] = []
        var seen = Set<Data>()
        for outcome in state.withLock({ $0.results }) {
            guard let outcome else { throw ENError(.internal, "a key file was left unverified") }
            let file = try outcome.get()
            guard seen.insert(file.hash).inserted else { continue }
            verified.append(file)
        }
        return verified
    }
}

/// The sources one detection's matching reads while its new files are still being verified: the new files in the
/// order they are verified (the last given first), each as soon as it has verified, then the cached files that are
/// not among them. The first file that failed ends the sources (the detection then throws its error). An
/// `export.bin` already read is skipped, and ``readDuplicate`` says so.
final class StreamedSources: Sendable {
    private struct State {
        var position = 0
        var cachedPosition = 0
        var read = Set<Data>()
        var duplicate = false
    }

    private let run: VerificationRun
    private let fileCount: Int
    private let cached: [Data]
    private let state = Locked(State())

    /// `cached`: the cached files' hashes in the order to read them.
    init(run: VerificationRun, fileCount: Int, cached: [Data]) {
        self.run = run
        self.fileCount = fileCount
        self.cached = cached
    }

    /// Whether a new file's `export.bin` came twice.
    var readDuplicate: Bool { state.withLock { $0.duplicate } }

    /// The `position`-th source; called in order, from 0.
    @Sendable func next(_ position: Int) -> KeySource? {
        while true {
            let newPosition = state.withLock { (state: inout State) -> Int? in
                state.position < fileCount ? state.position : nil
            }
            if let newPosition {
                // Waits, without holding the state, for the file's verification.
                guard case .success(let file)? = run.outcome(at: fileCount - 1 - newPosition) else { return nil }
                let (fresh, taken) = state.withLock { (state: inout State) -> (Bool, Int) in
                    state.position += 1
                    if state.read.insert(file.hash).inserted { return (true, state.position) }
                    state.duplicate = true
                    return (false, state.position)
                }
                run.take(upTo: taken)
                if fresh { return .new(file) }
                // The same export.bin again: read once, so its memory goes back now.
                run.release(at: file.index)
                continue
            }
            return state.withLock { (state: inout State) -> KeySource? in
                while state.cachedPosition < cached.count {
                    let hash = cached[state.cachedPosition]
                    state.cachedPosition += 1
                    if !state.read.contains(hash) { return .cached(hash) }
                }
                return nil
            }
        }
    }
}

/// Where the matcher's keys come from: a file cached by an earlier detection, or a file of this one.
enum KeySource: Sendable {
    case cached(Data)
    case new(VerifiedFile)

    /// The SHA-256 of the source's `export.bin`.
    var hash: Data {
        switch self {
        case .cached(let hash): hash
        case .new(let file): file.hash
        }
    }
}

/// The keys of the sources, file by file, in chunks left encoded (the matching threads decode them); each file's
/// revised keys before its keys. Reading stops at the first error, which ``checkRead()`` then throws. When a new
/// file has been scanned, `scanned` is told its index (its budget goes back: the chunks still in a batch keep its
/// bytes until the batch is matched, fewer bytes than the decoded keys of the same batch would take).
final class KeyChunks: Sequence, Sendable {
    private let source: @Sendable (Int) -> KeySource?
    private let store: ENDeviceStore
    private let oldest: ENIntervalNumber
    private let scanned: (@Sendable (Int) -> Void)?
    private let measuresReach: Bool
    private let failure = Locked<ENError?>(nil)
    /// Each source's reach (the sighting intervals its keys can match; `nil`: none), when measured.
    private let reaches = Locked<[Data: ClosedRange<UInt32>?]>([:])
    /// Where each source's keys start among the keys read so far (the matcher's ordinals), and its hash.
    private let starts = Locked<[(start: Int, hash: Data)]>([])

    /// Chunks of the sources `source` gives by position (from 0, in order; `nil` after the last); with
    /// `measuresReach`, each source's reach is measured as it is read (``reach``).
    init(
        source: @escaping @Sendable (Int) -> KeySource?, store: ENDeviceStore, oldest: ENIntervalNumber,
        scanned: (@Sendable (Int) -> Void)? = nil, measuresReach: Bool = false
    ) {
        self.source = source
        self.store = store
        self.oldest = oldest
        self.scanned = scanned
        self.measuresReach = measuresReach
    }

    /// The reach of each source read so far, when measured: the sighting intervals its keys can match, from 12
    /// before the earliest key's start to 12 after the latest key's last interval (`nil`: no key).
    var reach: [Data: ClosedRange<UInt32>?] { reaches.withLock { $0 } }

    /// Chunks of `sources`, in order.
    convenience init(sources: [KeySource], store: ENDeviceStore, oldest: ENIntervalNumber) {
        self.init(source: { $0 < sources.count ? sources[$0] : nil }, store: store, oldest: oldest)
    }

    func makeIterator() -> AnyIterator<any ENEncodedKeyChunk> {
        var sourceIndex = 0
        var chunks: [ENEncodedExportKeys] = []
        var next = 0
        var current: KeySource?
        var ordinal = 0
        return AnyIterator { () -> (any ENEncodedKeyChunk)? in
            do throws(ENError) {
                while true {
                    if next < chunks.count {
                        next += 1
                        ordinal += chunks[next - 1].count
                        return chunks[next - 1]
                    }
                    if case .new(let file)? = current {
                        self.scanned?(file.index)
                    }
                    current = nil
                    guard let source = self.source(sourceIndex) else { return nil }
                    let binary = try self.exportBinary(of: source)
                    sourceIndex += 1
                    current = source
                    self.starts.withLock { $0.append((ordinal, source.hash)) }
                    // One walk finds every key; the matching threads decode them (and ignore the invalid ones and
                    // those older than `oldest`).
                    chunks = try ENExportKeyScanner.encodedChunks(
                        of: binary, ofSize: ExposureDetector.chunkSize, retainingKeysAfter: self.oldest)
                    next = 0
                    if self.measuresReach {
                        let reach = Self.reach(of: chunks)
                        self.reaches.withLock { $0[source.hash] = .some(reach) }
                    }
                }
            } catch {
                self.failure.withLock { $0 = $0 ?? error }
                return nil
            }
        }
    }

    /// The occurrences of the sources' keys among `matcher`'s sightings, as `matcher.occurrences(encodedChunks:)`
    /// finds them in these chunks, from the identifiers `shared` keeps of each source (derived from its bytes the
    /// first time, for every matcher of the process): each source in turn, with its start, its reach and the end of
    /// its scan recorded as reading its chunks records them. A source whose identifiers are kept is not read.
    ///
    /// - Throws: the first error reading a source; ``checkRead()`` then throws it too.
    func occurrences(of matcher: ENMatcher, sharing shared: ENSharedIdentifiers) throws(ENError) -> [ENMatchOccurrence]
    {
        var found: [ENMatchOccurrence] = []
        var ordinal = 0
        var sourceIndex = 0
        do throws(ENError) {
            while let source = source(sourceIndex) {
                sourceIndex += 1
                let identifiers = try shared.identifiers(of: source.hash) { () throws(ENError) in
                    let chunks = try ENExportKeyScanner.encodedChunks(
                        of: try self.exportBinary(of: source), ofSize: ExposureDetector.chunkSize)
                    return (chunks, Self.reach(of: chunks))
                }
                starts.withLock { $0.append((ordinal, source.hash)) }
                if measuresReach { reaches.withLock { $0[source.hash] = .some(identifiers.reach) } }
                found += identifiers.occurrences(for: matcher, oldest: oldest, ordinalBase: ordinal)
                ordinal += identifiers.keyCount
                if case .new(let file) = source { scanned?(file.index) }
            }
        } catch {
            failure.withLock { $0 = $0 ?? error }
            throw error
        }
        return found
    }

    /// The union of the chunks' reaches.
    private static func reach(of chunks: [ENEncodedExportKeys]) -> ClosedRange<UInt32>? {
        chunks.compactMap(\.reach).reduce(nil as ClosedRange<UInt32>?) { union, next in
            union.map { Swift.min($0.lowerBound, next.lowerBound)...Swift.max($0.upperBound, next.upperBound) } ?? next
        }
    }

    private func exportBinary(of source: KeySource) throws(ENError) -> Data {
        switch source {
        case .new(let file):
            return try file.exportBinary()
        case .cached(let hash):
            guard let binary = try store.read(.cachedKeyFile(hash)) else {
                throw ENError(.dataInaccessible, "a cached key file is gone from the store")
            }
            return binary
        }
    }

    /// The source of the key at `ordinal` among the keys read (the matcher's ordinals): its hash and the key's
    /// position among the source's key messages.
    func locate(_ ordinal: Int) -> (hash: Data, position: Int) {
        starts.withLock { starts in
            // The last source starting at or before the ordinal (sources without keys start where the next does).
            var low = 0
            var high = starts.count
            while low < high {
                let middle = (low + high) / 2
                if starts[middle].start <= ordinal { low = middle + 1 } else { high = middle }
            }
            let source = starts[Swift.max(0, low - 1)]
            return (source.hash, ordinal - source.start)
        }
    }

    /// Throws the error that ended reading early, if any.
    func checkRead() throws(ENError) {
        if let failure = failure.withLock({ $0 }) { throw failure }
    }
}
