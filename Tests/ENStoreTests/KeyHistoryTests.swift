import ENCore
import ENStore
import Foundation
import Synchronization
import Testing

@Suite("Own key history")
struct KeyHistoryTests {
    let keyCounter = KeyCounter()

    final class KeyCounter: Sendable {
        let next = Synchronization.Atomic<Int>(0)
        func make() -> Data {
            let n = next.add(1, ordering: .relaxed).newValue
            return Data((0..<16).map { UInt8(truncatingIfNeeded: n &+ $0) })
        }
    }

    @Test func aNewDayKeyStartsAtTheDayBoundaryAndRunsTheWholeDay() throws {
        let store = try ENDeviceStore(inMemoryWith: TestClock(referenceDate).configuration())
        let key = try store.write(.currentKey(at: referenceDate) { keyCounter.make() })
        let interval = ENIntervalNumber(date: referenceDate)
        #expect(key.rollingStartNumber == interval.rollingStart)
        #expect(key.rollingStartNumber % 144 == 0)
        #expect(key.rollingPeriod == 144)
        // Later the same day: the same key.
        let later = try store.write(.currentKey(at: referenceDate.addingTimeInterval(3_600)) { keyCounter.make() })
        #expect(later == key)
        #expect(keyCounter.next.load(ordering: .relaxed) == 1)
    }

    @Test func theKeyRollsAtEachMultipleOf144Intervals() throws {
        let store = try ENDeviceStore(inMemoryWith: TestClock(referenceDate).configuration())
        let today = ENIntervalNumber(date: referenceDate).rollingStart
        let first = try store.write(.currentKey(at: today.adding(143).date) { keyCounter.make() })
        let second = try store.write(.currentKey(at: today.adding(144).date) { keyCounter.make() })
        #expect(first.rollingStartNumber == today)
        #expect(second.rollingStartNumber == today.adding(144))
        #expect(first.keyData != second.keyData)
        #expect(try store.read(.ownKeys) == [first, second])
    }

    @Test func releasingKeysTheSameDayEndsTheCurrentKeyEarlyAndStartsTheNextAtOnce() throws {
        let store = try ENDeviceStore(inMemoryWith: TestClock(referenceDate).configuration())
        let today = ENIntervalNumber(date: referenceDate).rollingStart
        let first = try store.write(.currentKey(at: today.adding(10).date) { keyCounter.make() })
        let ended = try #require(try store.write(.endCurrentKey(at: today.adding(50).date) { keyCounter.make() }))
        #expect(ended.keyData == first.keyData)
        #expect(ended.rollingPeriod == 50)
        // The successor was made in the same transaction: no third key is generated.
        #expect(keyCounter.next.load(ordering: .relaxed) == 2)
        let next = try store.write(.currentKey(at: today.adding(50).date) { keyCounter.make() })
        #expect(keyCounter.next.load(ordering: .relaxed) == 2)
        #expect(next.rollingStartNumber == today.adding(50))
        #expect(next.rollingPeriod == 94)
        #expect(next.rollingEndNumber == today.adding(144))
        #expect(next.keyData != first.keyData)
        #expect(try store.read(.ownKeys).map(\.rollingPeriod) == [50, 94])
        #expect(try store.write(.endCurrentKey(at: today.adding(200).date) { keyCounter.make() }) == nil)
        #expect(try store.read(.ownKeys).count == 2)
    }

    @Test func aKeyReleasedInItsFirstIntervalKeepsOneIntervalAndItsSuccessorStartsAtTheNext() throws {
        let store = try ENDeviceStore(inMemoryWith: TestClock(referenceDate).configuration())
        let today = ENIntervalNumber(date: referenceDate).rollingStart
        let first = try store.write(.currentKey(at: today.adding(143).date) { keyCounter.make() })
        #expect(first.rollingStartNumber == today)
        // Released in the day's last interval; ending it there leaves a key of 143 intervals.
        let ended = try #require(try store.write(.endCurrentKey(at: today.adding(143).date) { keyCounter.make() }))
        #expect(ended.rollingPeriod == 143)
        let successor = try store.write(.currentKey(at: today.adding(143).date) { keyCounter.make() })
        #expect(successor.rollingStartNumber == today.adding(143))
        #expect(successor.rollingPeriod == 1)
        // Released again in the interval it started: it keeps that one interval, and the next key starts at
        // the next interval (the next day), for the whole day.
        let again = try #require(try store.write(.endCurrentKey(at: today.adding(143).date) { keyCounter.make() }))
        #expect(again == successor)
        let tomorrow = try store.write(.currentKey(at: today.adding(144).date) { keyCounter.make() })
        #expect(tomorrow.rollingStartNumber == today.adding(144))
        #expect(tomorrow.rollingPeriod == 144)
        #expect(try store.read(.ownKeys).map(\.rollingPeriod) == [143, 1, 144])
    }

    @Test func aFailedSuccessorLeavesTheCurrentKeyUnshortened() throws {
        let store = try ENDeviceStore(inMemoryWith: TestClock(referenceDate).configuration())
        let today = ENIntervalNumber(date: referenceDate).rollingStart
        let first = try store.write(.currentKey(at: today.adding(10).date) { keyCounter.make() })
        expectCode(.badParameter) {
            _ = try store.write(.endCurrentKey(at: today.adding(50).date) { Data(count: 3) })
        }
        #expect(try store.read(.ownKeys) == [first])
    }

    @Test func aKeyGeneratorReturningTheWrongLengthIsRejected() throws {
        let store = try ENDeviceStore(inMemoryWith: TestClock(referenceDate).configuration())
        expectCode(.badParameter) {
            _ = try store.write(.currentKey(at: referenceDate) { Data(count: 15) })
        }
        #expect(try store.read(.ownKeys).isEmpty)
    }

    @Test func savedKeysReadBackAndInvalidKeysAreRejected() async throws {
        let store = try ENDeviceStore(inMemoryWith: TestClock(referenceDate).configuration())
        let key = ENTemporaryExposureKey(keyData: Data(repeating: 7, count: 16), rollingStartNumber: 2_963_808)
        try await store.write(.saveOwnKey(key))
        #expect(try await store.read(.ownKeys) == [key])
        let bad = ENTemporaryExposureKey(keyData: Data(count: 3), rollingStartNumber: 2_963_952)
        await expectCodeAsync(.badParameter) { try await store.write(.saveOwnKey(bad)) }
        #expect(try await store.read(.ownKeys) == [key])
    }

    @Test func asyncCurrentKeyMatchesSync() async throws {
        let store = try ENDeviceStore(inMemoryWith: TestClock(referenceDate).configuration())
        let counter = keyCounter
        let a = try await store.write(.currentKey(at: referenceDate) { counter.make() })
        let b = try await store.write(.currentKey(at: referenceDate) { counter.make() })
        #expect(a == b)
    }

    /// What a broadcast keeps between advertisements: the span of the current key holds until the start of a later
    /// stored key, and the own-key generation moves at every write but those that leave the own keys alone (a
    /// sighting's, the span's own, a detection's record); the write generation moves at every write but a sighting's
    /// or the span's.
    @Test func aCurrentKeySpanEndsAtTheNextKeyAndHoldsWhileTheGenerationStays() throws {
        let store = try ENDeviceStore(inMemoryWith: TestClock(referenceDate).configuration())
        let day = ENIntervalNumber(date: referenceDate).rollingStart
        func date(_ interval: UInt32) -> Date { Date(timeIntervalSince1970: Double(interval) * 600) }
        let span = try store.write(.currentKeySpan(at: date(day + 10)) { keyCounter.make() })
        #expect(span.key.rollingStartNumber == day && span.key.rollingPeriod == 144)
        #expect(span.intervals == day..<(day + 144))
        #expect(span.generation == store.keyGeneration)
        let written = store.writeGeneration
        try store.write(.addSightings([makeSighting(1, at: date(day + 11))]))
        let again = try store.write(.currentKeySpan(at: date(day + 143)) { keyCounter.make() })
        #expect(again.key == span.key && again.generation == span.generation)
        #expect(store.keyGeneration == span.generation && store.writeGeneration == written)
        // A failed detection's ledger entry: every other state may change, the own keys do not.
        try store.write(.recordFailedDetection())
        #expect(store.keyGeneration == span.generation && store.writeGeneration > written)

        // A key saved inside the first one's validity: the generation moves, and each span stops where the other
        // key starts, as the store's answer does.
        let later = ENTemporaryExposureKey(
            keyData: Data(repeating: 2, count: 16), rollingStartNumber: day + 100, rollingPeriod: 44)
        try store.write(.saveOwnKey(later))
        #expect(store.keyGeneration > span.generation)
        let before = try store.write(.currentKeySpan(at: date(day + 99)) { keyCounter.make() })
        #expect(before.key == span.key && before.intervals == day..<(day + 100))
        let after = try store.write(.currentKeySpan(at: date(day + 100)) { keyCounter.make() })
        #expect(after.key == later && after.intervals == (day + 100)..<(day + 144))
        for interval in [day, day + 99, day + 100, day + 143] {
            let stored = try store.write(.currentKey(at: date(interval)) { keyCounter.make() })
            #expect(stored == (interval < day + 100 ? span.key : later))
        }
        #expect(keyCounter.next.load(ordering: .relaxed) == 1)
        try store.write(.eraseAll)
        #expect(store.keyGeneration > after.generation)
    }
}
