import ENCore
import ENCrypto
import ENTestSupport
import Foundation
import Synchronization
import Testing

@testable import ENMatching

/// Random data sets: the matcher agrees with the straightforward reference on every kernel, thread count and
/// batch size.
@Suite("Agreement with the reference matcher")
struct ReferenceAgreementTests {
    /// Keys over 3 days (a third unaligned, half with shorter periods, some duplicated or revoked), sightings of
    /// a third of them at drifts -16...16 and offsets up to 150, and random noise.
    static func dataSet(seed: UInt64, sparse: Bool = false) throws -> (
        chunks: [[ENTemporaryExposureKey]], sightings: [ENSighting]
    ) {
        var generator = SeededRandomNumberGenerator(seed: seed)
        var keys: [ENTemporaryExposureKey] = []
        for _ in 0..<240 {
            var start = TestData.day + 144 * UInt32.random(in: 0..<3, using: &generator)
            if Bool.random(using: &generator) && Bool.random(using: &generator) {
                start += UInt32.random(in: 1..<144, using: &generator)
            }
            let period = Bool.random(using: &generator) ? 144 : UInt32.random(in: 1...144, using: &generator)
            let keyData = Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
            var key = ENTemporaryExposureKey(
                keyData: keyData, rollingStartNumber: ENIntervalNumber(start), rollingPeriod: period,
                diagnosisReportType: .confirmedTest)
            if UInt8.random(in: 0..<20, using: &generator) == 0 { key.diagnosisReportType = .revoked }
            keys.append(key)
        }
        var sightings: [ENSighting] = []
        for key in keys.shuffled(using: &generator).prefix(80) {
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let offset = Int.random(in: 0..<150, using: &generator)
                let drift = Int.random(in: -16...16, using: &generator)
                sightings.append(try TestData.sighting(of: key, offset: offset, drift: drift))
            }
        }
        for _ in 0..<(sparse ? 0 : 400) {
            let interval = TestData.day - 20 + UInt32.random(in: 0..<(3 * 144 + 40), using: &generator)
            sightings.append(TestData.sighting(TestData.randomIdentifier(using: &generator), interval: interval))
        }
        sightings.shuffle(using: &generator)
        // Duplicates: 15 keys again, some with other metadata, in later chunks.
        for key in keys.shuffled(using: &generator).prefix(15) {
            var copy = key
            copy.transmissionRiskLevel = 6
            if UInt8.random(in: 0..<4, using: &generator) == 0 { copy.diagnosisReportType = .revoked }
            keys.append(copy)
        }
        var chunks: [[ENTemporaryExposureKey]] = []
        var rest = keys[...]
        while !rest.isEmpty {
            let size = Int.random(in: 0...60, using: &generator)
            chunks.append(Array(rest.prefix(size)))
            rest = rest.dropFirst(size)
        }
        return (chunks, sightings)
    }

    /// Dense (random noise over all 3 days) and sparse (only the planted sightings, so most keys derive part of
    /// their validity or nothing).
    @Test(
        "random data sets",
        arguments: TestScale.pick(
            [(1, false), (2, false), (3, true), (4, true)], reduced: [(1, false), (3, true)]) as [(UInt64, Bool)])
    func randomAgreement(seed: UInt64, sparse: Bool) throws {
        let (chunks, sightings) = try Self.dataSet(seed: seed, sparse: sparse)
        let expected = try ReferenceMatcher.match(chunks: chunks, sightings: sightings)
        #expect(expected.count > 40, "the data set should plant many in-window sightings")
        let matcher = try ENMatcher(sightings: sightings)
        for kernel in ENMatchingKernel.supported {
            for threads in TestScale.pick([1, 2, 3], reduced: [1, 2]) {
                let configurations = [
                    (1, false, true), (37, true, false), (37, false, true), (65_536, false, false),
                    (65_536, true, true),
                ]
                for (batchSize, generic, overlap) in configurations {
                    // Both builds of the matching loop (any CPU, and AVX2/BMI2 where available), and batches
                    // matched in the background while the next is read, or on the calling thread.
                    var options = ENMatchingOptions(threadCount: threads, kernel: kernel, batchSize: batchSize)
                    options.usesGenericLoop = generic
                    options.overlapsReading = overlap
                    let result = try matcher.match(keyChunks: chunks, options: options)
                    if sparse {
                        #expect(result.statistics.identifiersDerived < 144 * result.statistics.keysDerived)
                    }
                    let pairs = TestData.pairs(result, sightings: sightings)
                    #expect(
                        pairs == expected,
                        "seed \(seed) \(kernel) threads \(threads) batch \(batchSize) generic \(generic) overlap \(overlap)"
                    )
                    for match in result.matches {
                        for matched in match.sightings {
                            #expect(abs(matched.derivedInterval.intervals(to: matched.sighting.interval)) <= 12)
                            #expect(match.key.validityIntervals.contains(matched.derivedInterval))
                        }
                    }
                }
            }
        }
    }
}

@Suite("Matching options")
struct MatchingOptionsTests {
    static func keysAndSightings() throws -> ([ENTemporaryExposureKey], [ENSighting]) {
        let keys = try (0..<200).map { _ in try TestData.key(start: TestData.day) }
        let sightings = try keys.map { try TestData.sighting(of: $0, offset: 5, drift: 0) }
        return (keys, sightings)
    }

    @Test("progress is reported after every batch")
    func progress() throws {
        let (keys, sightings) = try Self.keysAndSightings()
        let reports = Locked<[ENMatchingProgress]>([])
        let result = try ENMatcher(sightings: sightings).match(
            keyChunks: [Array(keys[..<120]), Array(keys[120...])],
            options: .init(threadCount: 2, batchSize: 50, progress: { p in reports.withLock { $0.append(p) } }))
        #expect(result.matches.count == 200)
        let seen = reports.withLock { $0 }
        #expect(seen.map(\.keysProcessed) == [50, 100, 150, 200])
        #expect(seen.last?.keysMatched == 200)
    }

    /// What a lazily produced input saw: the threads that read it and how far reading ran ahead of matching.
    final class ReadRecorder: Sendable {
        let processed = Locked(0)
        let seen = Locked<(threads: Set<ObjectIdentifier>, largestLead: Int)>(([], 0))
    }

    /// A lazily produced input that records, at each chunk it hands out, the thread and how far reading is
    /// ahead of the matched keys. It is slow to read (100 us per chunk, like decompressing a file), so the
    /// matcher overlaps reading with matching.
    struct RecordingChunks: Sequence, IteratorProtocol {
        let chunks: [[ENTemporaryExposureKey]]
        let recorder: ReadRecorder
        var position = 0
        var read = 0

        mutating func next() -> [ENTemporaryExposureKey]? {
            guard position < chunks.count else { return nil }
            let lead = read - recorder.processed.withLock { $0 }
            recorder.seen.withLock { seen in
                seen.threads.insert(ObjectIdentifier(Thread.current))
                seen.largestLead = Swift.max(seen.largestLead, lead)
            }
            defer { position += 1 }
            usleep(100)
            read += chunks[position].count
            return chunks[position]
        }
    }

    @Test("streamed input is read on the calling thread, at most two batches ahead of the matching")
    func streamingReadsAhead() throws {
        let (keys, sightings) = try Self.keysAndSightings()
        let matcher = try ENMatcher(sightings: sightings)
        let expected = try matcher.match(keys, options: .init(threadCount: 1))
        for threads in [1, 2, 3] {
            let recorder = ReadRecorder()
            let input = RecordingChunks(
                chunks: stride(from: 0, to: keys.count, by: 7).map { Array(keys[$0..<min($0 + 7, keys.count)]) },
                recorder: recorder)
            let result = try matcher.match(
                keyChunks: input,
                options: .init(
                    threadCount: threads, batchSize: 20,
                    progress: { p in recorder.processed.withLock { $0 = p.keysProcessed } }))
            #expect(result.matches.map(\.key) == expected.matches.map(\.key))
            #expect(result.matchedSightingCount == expected.matchedSightingCount)
            let seen = recorder.seen.withLock { $0 }
            #expect(seen.threads == [ObjectIdentifier(Thread.current)], "read on the calling thread only")
            // One batch being matched and one being filled: reading never runs further ahead.
            #expect(seen.largestLead <= 2 * 20, "read \(seen.largestLead) keys ahead with \(threads) threads")
            #expect(seen.largestLead > 20, "reading overlaps the matching")
        }
    }

    @Test("cancellation stops the run with invalidated")
    func cancellation() throws {
        let (keys, sightings) = try Self.keysAndSightings()
        let matcher = try ENMatcher(sightings: sightings)
        let error = #expect(throws: ENError.self) {
            try matcher.match(keys, options: .init(isCancelled: { true }))
        }
        #expect(error?.code == .invalidated)
        // Cancelled after the first batch.
        let batches = Atomic<Int>(0)
        let later = #expect(throws: ENError.self) {
            try matcher.match(
                keys,
                options: .init(
                    batchSize: 64, progress: { _ in batches.add(1, ordering: .relaxed) },
                    isCancelled: { batches.load(ordering: .relaxed) > 0 }))
        }
        #expect(later?.code == .invalidated)
        #expect(batches.load(ordering: .relaxed) == 1)
    }

    @Test("a cancelled task stops the run")
    func taskCancellation() async throws {
        let (keys, sightings) = try Self.keysAndSightings()
        let matcher = try ENMatcher(sightings: sightings)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try matcher.match(keys)
        }
        let error = await #expect(throws: ENError.self) { try await task.value }
        #expect(error?.code == .invalidated)
    }

    @Test("empty inputs")
    func empty() throws {
        let (keys, sightings) = try Self.keysAndSightings()
        let none = try ENMatcher(sightings: []).match(keys)
        #expect(none.matches.isEmpty)
        #expect(none.statistics.keysReceived == 200)
        #expect(none.statistics.keysDerived == 0)
        let noKeys = try ENMatcher(sightings: sightings).match(keyChunks: [[], []])
        #expect(noKeys.matches.isEmpty)
        #expect(noKeys.statistics.keysReceived == 0)
    }

    @Test(
        "an unsupported kernel is refused",
        .enabled(if: ENMatchingKernel.supported.count < ENMatchingKernel.allCases.count))
    func unsupportedKernel() throws {
        let kernel = try #require(ENMatchingKernel.allCases.first { !$0.isSupported })
        let error = #expect(throws: ENError.self) {
            try ENMatcher(sightings: []).match([], options: .init(kernel: kernel))
        }
        #expect(error?.code == .unsupported)
    }

    @Test("statistics name the kernel and thread count")
    func statistics() throws {
        let (keys, sightings) = try Self.keysAndSightings()
        let result = try ENMatcher(sightings: sightings).match(keys, options: .init(threadCount: 2, kernel: .portable))
        #expect(result.statistics.kernel == .portable)
        #expect(result.statistics.threadCount == 2)
        #expect(result.statistics.keysDerived == 200)
        #expect(result.statistics.distinctIdentifiers == 200)
    }
}
