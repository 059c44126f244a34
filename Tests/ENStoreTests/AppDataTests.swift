import ENCore
import ENStore
import Foundation
import Testing

@Suite("App data (the sample app's LocalStore)")
struct AppDataTests {
    @Test func onboardingTestResultsAndExposuresRoundTrip() async throws {
        let store = try ENStore(inMemoryWith: TestClock(referenceDate).configuration())
        #expect(try await store.isOnboarded() == false)
        try await store.setOnboarded(true)
        #expect(try await store.isOnboarded())

        let first = ENTestResult(
            isAdded: true, dateAdministered: referenceDate.addingTimeInterval(-86_400), isShared: false)
        var second = ENTestResult(isAdded: false, dateAdministered: referenceDate, isShared: false)
        try await store.saveTestResult(second)
        try await store.saveTestResult(first)
        #expect(try await store.testResults() == [first, second])
        second.isShared = true
        try await store.saveTestResult(second)
        #expect(try await store.testResults() == [first, second])
        #expect(try await store.deleteTestResult(id: first.id))
        #expect(try await store.deleteTestResult(id: first.id) == false)
        #expect(try await store.testResults() == [second])

        let exposures = [
            ENExposureRecord(date: referenceDate, duration: 600, totalRiskScore: 42, transmissionRiskLevel: 5),
            ENExposureRecord(date: referenceDate.addingTimeInterval(-86_400)),
        ]
        try await store.addExposures(exposures)
        #expect(try await store.exposures() == exposures.reversed())
        try await store.addExposures([ENExposureRecord(date: referenceDate.addingTimeInterval(86_400))])
        #expect(try await store.exposures().count == 3)
        try await store.replaceExposures(with: [])
        #expect(try await store.exposures().isEmpty)
    }
}

@Suite("Observation")
struct ObservationTests {
    @Test func eachValueIsObservableAsAnAsyncSequence() async throws {
        let store = try ENStore(inMemoryWith: TestClock(referenceDate).configuration())
        var onboarding = store.observeIsOnboarded().makeAsyncIterator()
        #expect(try await onboarding.next() == false)
        try await store.setOnboarded(true)
        #expect(try await onboarding.next() == true)

        var results = store.observeTestResults().makeAsyncIterator()
        #expect(try await results.next() == [])
        let result = ENTestResult(dateAdministered: referenceDate)
        try await store.saveTestResult(result)
        #expect(try await results.next() == [result])

        var exposures = store.observeExposures().makeAsyncIterator()
        #expect(try await exposures.next() == [])
        try await store.addExposures([ENExposureRecord(date: referenceDate)])
        #expect(try await exposures.next() == [ENExposureRecord(date: referenceDate)])

        var state = store.observeDetectionState().makeAsyncIterator()
        #expect(try await state.next() == ENDetectionState())
        try await store.recordDetection(
            ENDetectionRecord(date: referenceDate, kind: "v2", result: 1, nextKeyFileIndex: 5))
        #expect(try await state.next() == ENDetectionState(nextKeyFileIndex: 5, lastDetectionDate: referenceDate))
    }

    @Test func unrelatedWritesDoNotProduceDuplicateValues() async throws {
        let store = try ENStore(inMemoryWith: TestClock(referenceDate).configuration())
        var onboarding = store.observeIsOnboarded().makeAsyncIterator()
        #expect(try await onboarding.next() == false)
        try await store.addSightings([makeSighting(1, at: referenceDate)])
        try await store.setNextKeyFileIndex(3)
        try await store.setOnboarded(true)
        // The next value is the change, not a repeat of `false`.
        #expect(try await onboarding.next() == true)
    }
}
