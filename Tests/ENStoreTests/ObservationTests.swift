import ENCore
import ENStore
import ENTestSupport
import Foundation
import Testing

@Suite("Observation")
struct ObservationTests {
    @Test func eachValueIsObservableAsAnAsyncSequence() async throws {
        let store = try ENDeviceStore(inMemoryWith: TestClock(referenceDate).configuration())
        var manager = store.observe(.managerState).makeAsyncIterator()
        #expect(try await manager.next() == ENManagerState())
        try await store.write(.setAuthorizationStatus(.authorized))
        #expect(try await manager.next() == ENManagerState(authorizationStatus: .authorized))

        var counts = store.observe(.recordCounts).makeAsyncIterator()
        #expect(try await counts.next()?.sightings == 0)
        try await store.write(.addSightings([makeSighting(1, at: referenceDate), makeSighting(2, at: referenceDate)]))
        #expect(try await counts.next()?.sightings == 2)
    }

    @Test func unrelatedWritesDoNotProduceDuplicateValues() async throws {
        let store = try ENDeviceStore(inMemoryWith: TestClock(referenceDate).configuration())
        var manager = store.observe(.managerState).makeAsyncIterator()
        #expect(try await manager.next() == ENManagerState())
        try await store.write(.addSightings([makeSighting(1, at: referenceDate)]))
        try await store.write(.saveOwnKey(TestKeys.key(1, start: 2_963_808)))
        try await store.write(.setAuthorizationStatus(.authorized))
        // The next value is the change, not a repeat of the defaults.
        #expect(try await manager.next() == ENManagerState(authorizationStatus: .authorized))
    }
}
