import ENCore
import ENCrypto
import ENTestSupport
import Foundation
import Synchronization
import Testing

@testable import ENMatching

/// Keys fed in several calls: the same result as one call, with de-duplication and revocation across calls.
@Suite("Incremental matching")
struct IncrementalMatchTests {
    /// The keys of `chunks` cut into calls at random points (not at chunk boundaries), at least one key per call.
    static func calls<G: RandomNumberGenerator>(
        _ chunks: [[ENTemporaryExposureKey]], using generator: inout G
    ) -> [[ENTemporaryExposureKey]] {
        var rest = chunks.flatMap { $0 }[...]
        var calls: [[ENTemporaryExposureKey]] = []
        while !rest.isEmpty {
            let size = Int.random(in: 1...45, using: &generator)
            calls.append(Array(rest.prefix(size)))
            rest = rest.dropFirst(size)
        }
        return calls
    }

    @Test(
        "calls split at arbitrary points give what one call gives, and what the reference gives",
        arguments: TestScale.pick([1, 2, 3, 4], reduced: [1, 3]) as [UInt64])
    func splitAnywhere(seed: UInt64) throws {
        let (chunks, sightings) = try ReferenceAgreementTests.dataSet(seed: seed, sparse: seed > 2)
        let expected = try ReferenceMatcher.match(chunks: chunks, sightings: sightings)
        let matcher = try ENMatcher(sightings: sightings)
        let whole = try matcher.match(keyChunks: chunks, options: .init(threadCount: 2))
        var generator = SeededRandomNumberGenerator(seed: seed)
        let calls = Self.calls(chunks, using: &generator)
        #expect(calls.count > 5)
        var run = ENIncrementalMatch(matcher: matcher)
        for (index, call) in calls.enumerated() {
            // Calls of one array, and calls of several chunks with small batches.
            if index.isMultiple(of: 2) {
                try run.add(call, options: .init(threadCount: 2))
            } else {
                try run.add(keyChunks: [Array(call.prefix(3)), Array(call.dropFirst(3))], options: .init(batchSize: 4))
            }
        }
        let result = try run.finish()
        #expect(TestData.pairs(result, sightings: sightings) == expected, "seed \(seed)")
        #expect(result.matches == whole.matches, "the same keys in the same order, seed \(seed)")
        #expect(result.statistics.keysReceived == chunks.reduce(0) { $0 + $1.count })
        #expect(result.statistics.keysRevoked == whole.statistics.keysRevoked)
        #expect(result.statistics.keysDerived == whole.statistics.keysDerived)
        #expect(result.statistics.identifiersDerived == whole.statistics.identifiersDerived)
        #expect(result.statistics.matchesDropped == whole.statistics.matchesDropped)
        #expect(run.progress.keysProcessed == result.statistics.keysReceived)
    }

    @Test("the same key data in a later call counts once: the first occurrence wins")
    func duplicatesAcrossCalls() throws {
        let key = try TestData.key(start: TestData.day, transmissionRiskLevel: 2)
        var again = key
        again.transmissionRiskLevel = 6
        let other = try TestData.key(start: TestData.day)
        let sightings = [
            try TestData.sighting(of: key, offset: 10, drift: 0), try TestData.sighting(of: other, offset: 3, drift: 1),
        ]
        var run = ENIncrementalMatch(matcher: try ENMatcher(sightings: sightings))
        try run.add([key])
        try run.add([other, again])
        try run.add([again])
        let result = try run.finish()
        #expect(result.matches.map(\.key) == [key, other])
        #expect(result.matches.first?.sightings.map(\.sighting) == [sightings[0]])
        #expect(result.statistics.matchesDropped == 2)
        #expect(
            TestData.pairs(result, sightings: sightings)
                == (try ReferenceMatcher.match(chunks: [[key], [other, again], [again]], sightings: sightings)))
    }

    @Test("a revoked key cancels the same key data of an earlier call and of a later one")
    func revocationAcrossCalls() throws {
        let early = try TestData.key(start: TestData.day)
        let late = try TestData.key(start: TestData.day)
        let kept = try TestData.key(start: TestData.day)
        let sightings = try [early, late, kept].map { try TestData.sighting(of: $0, offset: 20, drift: 0) }
        var revokedEarly = early
        revokedEarly.diagnosisReportType = .revoked
        var revokedLate = late
        revokedLate.diagnosisReportType = .revoked
        let calls = [[early, kept], [revokedLate], [revokedEarly], [late]]
        var run = ENIncrementalMatch(matcher: try ENMatcher(sightings: sightings))
        try run.add(calls[0])
        // Before the revocation arrives, the earlier key is a match.
        #expect(try run.finish().matches.map(\.key) == [early, kept])
        for call in calls.dropFirst() { try run.add(call) }
        let result = try run.finish()
        #expect(result.matches.map(\.key) == [kept])
        #expect(result.statistics.keysRevoked == 2)
        #expect(
            TestData.pairs(result, sightings: sightings)
                == (try ReferenceMatcher.match(chunks: calls, sightings: sightings)))
    }

    @Test("a failed call leaves the run as before it; the run can be fed again")
    func failedCallChangesNothing() throws {
        let keys = try (0..<40).map { _ in try TestData.key(start: TestData.day) }
        let sightings = try keys.map { try TestData.sighting(of: $0, offset: 7, drift: 0) }
        let matcher = try ENMatcher(sightings: sightings)
        var run = ENIncrementalMatch(matcher: matcher)
        try run.add(Array(keys[..<10]))
        let before = run.progress
        // Cancelled after the first of two batches: that batch's matches must not stay behind.
        let batches = Atomic<Int>(0)
        let error = #expect(throws: ENError.self) {
            try run.add(
                Array(keys[10..<30]),
                options: .init(
                    batchSize: 10, progress: { _ in batches.add(1, ordering: .relaxed) },
                    isCancelled: { batches.load(ordering: .relaxed) > 0 }))
        }
        #expect(error?.code == .invalidated)
        #expect(batches.load(ordering: .relaxed) == 1)
        #expect(run.progress == before)
        #expect(try run.finish().matches.map(\.key) == Array(keys[..<10]))
        try run.add(Array(keys[10...]))
        let result = try run.finish()
        #expect(result.matches.map(\.key) == keys)
        #expect(result.matches == (try matcher.match(keys)).matches)
    }

    @Test("progress counts the keys of every call, and is reported cumulatively")
    func progressAcrossCalls() throws {
        let keys = try (0..<30).map { _ in try TestData.key(start: TestData.day) }
        let sightings = try keys.prefix(12).map { try TestData.sighting(of: $0, offset: 1, drift: 0) }
        var run = ENIncrementalMatch(matcher: try ENMatcher(sightings: sightings))
        #expect(run.progress == ENMatchingProgress(keysProcessed: 0, keysMatched: 0))
        try run.add(Array(keys[..<20]))
        let reports = Locked<[Int]>([])
        try run.add(
            Array(keys[20...]),
            options: .init(batchSize: 5, progress: { p in reports.withLock { $0.append(p.keysProcessed) } }))
        #expect(reports.withLock { $0 } == [25, 30])
        #expect(run.progress == ENMatchingProgress(keysProcessed: 30, keysMatched: 12))
    }
}
