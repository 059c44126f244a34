import ENCore
import ENTestSupport
import Foundation
import Testing

@testable import ENMatching

/// The index's answers to "is anything observed in [first, end), and from when to when?", which skip keys
/// before any cryptography and bound the intervals a key derives, against a plain scan: nearest-observation
/// tables over a narrow span, binary searches over a wide one.
@Suite("Observation index: observed-interval queries")
struct ObservationIndexTests {
    static func index(intervals: [UInt32]) throws -> ObservationIndex {
        let sightings = intervals.enumerated().map { i, interval in
            TestData.sighting(
                RollingProximityIdentifier(lowWord: UInt64(i) &* 0x9E37_79B9_7F4A_7C15, highWord: UInt64(i)),
                interval: interval)
        }
        let index = try ObservationIndex(sightings: sightings)
        // The sightings' own intervals are what the index holds (the timestamps are mid-interval).
        #expect(sightings.map(\.interval) == intervals)
        return index
    }

    static func expected(_ intervals: [UInt32], _ range: Range<UInt64>) -> Bool {
        intervals.contains { range.contains(UInt64($0)) }
    }

    static func expectedBounds(_ intervals: [UInt32], _ range: Range<UInt64>) -> ClosedRange<UInt64>? {
        let inside = intervals.map(UInt64.init).filter { range.contains($0) }
        guard let low = inside.min(), let high = inside.max() else { return nil }
        return low...high
    }

    /// Ranges around every observed interval and its neighbours, the span's edges, and random ones.
    static func check(_ intervals: [UInt32], generator: inout SeededRandomNumberGenerator) throws {
        let index = try index(intervals: intervals)
        var points: [UInt64] = [0, 1, UInt64(UInt32.max), UInt64(UInt32.max) + 200]
        for interval in intervals.prefix(16) {
            let v = UInt64(interval)
            points += [v, v + 1, v + 2, v &- 1, v &- 12, v + 12, v + 13]
        }
        if let low = intervals.min(), let high = intervals.max() {
            points += [UInt64(low), UInt64(high), UInt64(high) + 1, UInt64(low) &- 1]
        }
        points = points.filter { $0 <= UInt64(UInt32.max) + 200 }
        for first in points {
            for end in points where end >= first {
                let range = first..<end
                #expect(index.hasObservation(in: range) == expected(intervals, range), "\(range)")
                #expect(index.observedBounds(in: range) == expectedBounds(intervals, range), "\(range)")
            }
        }
        let smallest = UInt64(intervals.min() ?? 0)
        let low = smallest >= 500 ? smallest - 500 : 0
        let high = UInt64(intervals.max() ?? 0) + 500
        for _ in 0..<2_000 {
            let first = UInt64.random(in: low...high, using: &generator)
            let length = UInt64.random(in: 0...170, using: &generator)
            let range = first..<(first + length)
            #expect(index.hasObservation(in: range) == expected(intervals, range), "\(range)")
            #expect(index.observedBounds(in: range) == expectedBounds(intervals, range), "\(range)")
        }
    }

    @Test("no sightings: nothing is observed anywhere")
    func empty() throws {
        let index = try Self.index(intervals: [])
        #expect(!index.hasObservation(in: 0..<UInt64(UInt32.max)))
        #expect(index.observedBounds(in: 0..<UInt64(UInt32.max)) == nil)
    }

    @Test("a device's 14 days with gaps (nearest-observation tables), in random order with repeats")
    func narrowSpan() throws {
        var generator = SeededRandomNumberGenerator.forTest(defaultSeed: 0x1D)
        let base = TestData.day
        var intervals: [UInt32] = []
        for _ in 0..<TestScale.pick(3_000, reduced: 1_000) {
            let day = UInt32.random(in: 0..<14, using: &generator)
            guard day % 3 != 1 else { continue }  // whole days without sightings
            intervals.append(base + 144 * day + UInt32.random(in: 40..<110, using: &generator))
        }
        intervals += intervals.prefix(200)  // the same intervals again
        intervals.shuffle(using: &generator)
        try Self.check(intervals, generator: &generator)
    }

    @Test("one interval, and a span of exactly the table limit")
    func edges() throws {
        var generator = SeededRandomNumberGenerator.forTest(defaultSeed: 0x2E)
        try Self.check([TestData.day], generator: &generator)
        try Self.check([TestData.day, TestData.day + 65_535, TestData.day + 300], generator: &generator)
        try Self.check([TestData.day, TestData.day + 65_536, TestData.day + 300], generator: &generator)
    }

    @Test("far-apart clocks (binary search), values differing in every byte")
    func wideSpan() throws {
        var generator = SeededRandomNumberGenerator.forTest(defaultSeed: 0x3F)
        var intervals = (0..<TestScale.pick(2_000, reduced: 700)).map { _ in
            UInt32.random(in: 0...(1 << 31), using: &generator)
        }
        intervals += [0, 1, 1 << 24, TestData.day, TestData.day + 5]
        intervals.shuffle(using: &generator)
        try Self.check(intervals, generator: &generator)
    }
}
