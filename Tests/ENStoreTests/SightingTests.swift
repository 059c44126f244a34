import ENCore
import ENStore
import Foundation
import Testing

@Suite("Sightings")
struct SightingTests {
    @Test func sightingsRoundTripExactly() throws {
        let store = try ENDeviceStore(inMemoryWith: TestClock(referenceDate).configuration())
        let sightings = (0..<50).map {
            makeSighting($0, at: referenceDate.addingTimeInterval(Double($0) * 37.123), rssi: Int8(-$0))
        }
        try store.write(.addSightings(sightings))
        #expect(try store.read(.recordCounts).sightings == 50)
        let back = try store.read(.sightings(from: .distantPast))
        #expect(back == sightings)
    }

    @Test func rangeSelectionIsExactToTheTimestamp() async throws {
        let store = try ENDeviceStore(inMemoryWith: TestClock(referenceDate).configuration())
        let sightings = (0..<100).map { makeSighting($0, at: referenceDate.addingTimeInterval(Double($0) * 60)) }
        try await store.write(.addSightings(sightings))
        let start = referenceDate.addingTimeInterval(10 * 60)
        let end = referenceDate.addingTimeInterval(20 * 60 + 1)
        let slice = try await store.read(.sightings(from: start, to: end))
        #expect(slice == Array(sightings[10...20]))
    }

    @Test func retainedSightingsAreTheLast14Days() throws {
        let clock = TestClock(referenceDate)
        let store = try ENDeviceStore(inMemoryWith: clock.configuration())
        let old = makeSighting(1, at: referenceDate.addingTimeInterval(-15 * 86_400))
        let recent = makeSighting(2, at: referenceDate.addingTimeInterval(-13 * 86_400))
        try store.write(.addSightings([old, recent]))
        #expect(try store.read(.retainedSightings) == [recent])
    }

    @Test func aBatchIsAllOrNothingWhenTheCipherFails() throws {
        struct FailingCipher: ENAuthenticatedCipher {
            func seal(_ plaintext: Data, authenticating associatedData: Data) throws(ENError) -> Data {
                if plaintext.last == 0xFF { throw ENError(.internal, "refusing") }
                return plaintext
            }
            func open(_ sealed: Data, authenticating associatedData: Data) throws(ENError) -> Data { sealed }
        }
        let store = try ENDeviceStore(inMemoryWith: ENStoreConfiguration(cipher: FailingCipher()))
        var sightings = (0..<10).map { makeSighting($0, at: referenceDate) }
        // The last byte of the payload is the timestamp's top byte; choose a timestamp that makes it 0xFF.
        sightings.append(makeSighting(99, at: Date(timeIntervalSinceReferenceDate: -Double.greatestFiniteMagnitude)))
        expectCode(.internal) { try store.write(.addSightings(sightings)) }
        #expect(try store.read(.recordCounts).sightings == 0)
    }
}
