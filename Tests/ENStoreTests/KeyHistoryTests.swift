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
        let store = try ENStore(inMemoryWith: TestClock(referenceDate).configuration())
        let key = try store.currentKey(at: referenceDate) { keyCounter.make() }
        let interval = ENIntervalNumber(date: referenceDate)
        #expect(key.rollingStartNumber == interval.rollingStart)
        #expect(key.rollingStartNumber % 144 == 0)
        #expect(key.rollingPeriod == 144)
        // Later the same day: the same key.
        let later = try store.currentKey(at: referenceDate.addingTimeInterval(3_600)) { keyCounter.make() }
        #expect(later == key)
        #expect(keyCounter.next.load(ordering: .relaxed) == 1)
    }

    @Test func theKeyRollsAtEachMultipleOf144Intervals() throws {
        let store = try ENStore(inMemoryWith: TestClock(referenceDate).configuration())
        let today = ENIntervalNumber(date: referenceDate).rollingStart
        let first = try store.currentKey(at: today.adding(143).date) { keyCounter.make() }
        let second = try store.currentKey(at: today.adding(144).date) { keyCounter.make() }
        #expect(first.rollingStartNumber == today)
        #expect(second.rollingStartNumber == today.adding(144))
        #expect(first.keyData != second.keyData)
        #expect(try store.ownKeys() == [first, second])
    }

    @Test func releasingKeysTheSameDayEndsTheCurrentKeyEarly() throws {
        let store = try ENStore(inMemoryWith: TestClock(referenceDate).configuration())
        let today = ENIntervalNumber(date: referenceDate).rollingStart
        let first = try store.currentKey(at: today.adding(10).date) { keyCounter.make() }
        let ended = try #require(try store.endCurrentKey(at: today.adding(50).date))
        #expect(ended.keyData == first.keyData)
        #expect(ended.rollingPeriod == 50)
        let next = try store.currentKey(at: today.adding(50).date) { keyCounter.make() }
        #expect(next.rollingStartNumber == today.adding(50))
        #expect(next.rollingPeriod == 94)
        #expect(next.rollingEndNumber == today.adding(144))
        #expect(try store.ownKeys().map(\.rollingPeriod) == [50, 94])
        #expect(try store.endCurrentKey(at: today.adding(200).date) == nil)
    }

    @Test func aKeyGeneratorReturningTheWrongLengthIsRejected() throws {
        let store = try ENStore(inMemoryWith: TestClock(referenceDate).configuration())
        expectCode(.badParameter) {
            _ = try store.currentKey(at: referenceDate) { Data(count: 15) }
        }
        #expect(try store.ownKeys().isEmpty)
    }

    @Test func savedKeysReadBackAndInvalidKeysAreRejected() async throws {
        let store = try ENStore(inMemoryWith: TestClock(referenceDate).configuration())
        let key = ENTemporaryExposureKey(keyData: Data(repeating: 7, count: 16), rollingStartNumber: 2_963_808)
        try await store.saveOwnKey(key)
        #expect(try await store.ownKeys() == [key])
        let bad = ENTemporaryExposureKey(keyData: Data(count: 3), rollingStartNumber: 2_963_952)
        await expectCodeAsync(.badParameter) { try await store.saveOwnKey(bad) }
        #expect(try await store.ownKeys() == [key])
    }

    @Test func asyncCurrentKeyMatchesSync() async throws {
        let store = try ENStore(inMemoryWith: TestClock(referenceDate).configuration())
        let counter = keyCounter
        let a = try await store.currentKey(at: referenceDate) { counter.make() }
        let b = try await store.currentKey(at: referenceDate) { counter.make() }
        #expect(a == b)
    }
}
