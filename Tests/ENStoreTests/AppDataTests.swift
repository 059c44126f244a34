import ENCore
import ENStore
import ENTestSupport
import Foundation
import Testing

@Suite("App data (the sample app's LocalStore)")
struct AppDataTests {
    @Test func onboardingTestResultsAndExposuresRoundTrip() async throws {
        let store = try ENAppStore()
        #expect(try await store.read(.isOnboarded) == false)
        try await store.write(.setOnboarded(true))
        #expect(try await store.read(.isOnboarded))

        let first = ENTestResult(
            isAdded: true, dateAdministered: referenceDate.addingTimeInterval(-86_400), isShared: false)
        var second = ENTestResult(isAdded: false, dateAdministered: referenceDate, isShared: false)
        try await store.write(.saveTestResult(second))
        try await store.write(.saveTestResult(first))
        #expect(try await store.read(.testResults) == [first, second])
        second.isShared = true
        try await store.write(.saveTestResult(second))
        #expect(try await store.read(.testResults) == [first, second])
        #expect(try await store.write(.deleteTestResult(id: first.id)))
        #expect(try await store.write(.deleteTestResult(id: first.id)) == false)
        #expect(try await store.read(.testResults) == [second])

        let exposures = [
            ENExposureRecord(date: referenceDate, duration: 600, totalRiskScore: 42, transmissionRiskLevel: 5),
            ENExposureRecord(date: referenceDate.addingTimeInterval(-86_400)),
        ]
        try await store.write(.addExposures(exposures))
        #expect(try await store.read(.exposures) == exposures.reversed())
        try await store.write(.addExposures([ENExposureRecord(date: referenceDate.addingTimeInterval(86_400))]))
        #expect(try await store.read(.exposures).count == 3)
        try await store.write(.replaceExposures(with: []))
        #expect(try await store.read(.exposures).isEmpty)
    }

    @Test func aDetectionAdvancesTheAppStateAndItsExposuresTogether() throws {
        let store = try ENAppStore()
        #expect(try store.read(.detectionState) == ENDetectionState())
        let found = [ENExposureRecord(date: referenceDate.addingTimeInterval(-86_400), duration: 300)]
        try store.write(.recordDetection(at: referenceDate, nextKeyFileIndex: 4, newExposures: found))
        #expect(
            try store.read(.detectionState) == ENDetectionState(nextKeyFileIndex: 4, lastDetectionDate: referenceDate))
        #expect(try store.read(.exposures) == found)

        // A failure sets the error but not the date or the index.
        try store.write(.recordDetectionFailure("BACKGROUND_TIMEOUT"))
        #expect(
            try store.read(.detectionState)
                == ENDetectionState(
                    nextKeyFileIndex: 4, lastDetectionDate: referenceDate, lastDetectionError: "BACKGROUND_TIMEOUT"))
        // The next success clears the error; without an index, the index stays.
        try store.write(.recordDetection(at: referenceDate.addingTimeInterval(120)))
        #expect(try store.read(.detectionState).lastDetectionError == nil)
        #expect(try store.read(.detectionState).nextKeyFileIndex == 4)
        #expect(try store.read(.detectionState).lastDetectionDate == referenceDate.addingTimeInterval(120))
    }

    @Test func invalidInputWritesNothing() throws {
        let store = try ENAppStore()
        expectCode(.badParameter) {
            try store.write(
                .recordDetection(
                    at: referenceDate, nextKeyFileIndex: -1, newExposures: [ENExposureRecord(date: referenceDate)]))
        }
        expectCode(.badParameter) { try store.write(.setNextKeyFileIndex(-3)) }
        #expect(try store.read(.detectionState) == ENDetectionState())
        #expect(try store.read(.exposures).isEmpty)
        try store.write(.setNextKeyFileIndex(7))
        #expect(try store.read(.detectionState).nextKeyFileIndex == 7)
    }

    @Test func eraseAllDeletesTheAppDataFromTheFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("app.sqlite")
        let store = try ENAppStore(path: path)
        let result = ENTestResult(dateAdministered: referenceDate)
        try await store.write(.setOnboarded(true))
        try await store.write(.saveTestResult(result))
        try await store.write(
            .recordDetection(
                at: referenceDate, nextKeyFileIndex: 3, newExposures: [ENExposureRecord(date: referenceDate)]))

        try await store.write(.eraseAll)

        #expect(try await store.read(.isOnboarded) == false)
        #expect(try await store.read(.testResults).isEmpty)
        #expect(try await store.read(.exposures).isEmpty)
        #expect(try await store.read(.detectionState) == ENDetectionState())
        try store.close()
        let identifier = Data(result.id.uuidString.utf8)
        #expect(try !fileContains(path, identifier))
        #expect(try !fileContains(path + "-wal", identifier))
        let reopened = try ENAppStore(path: path)
        try await reopened.write(.saveTestResult(result))
        #expect(try await reopened.read(.testResults) == [result])
    }
}

@Suite("Observation")
struct ObservationTests {
    @Test func eachValueIsObservableAsAnAsyncSequence() async throws {
        let store = try ENAppStore()
        var onboarding = store.observe(.isOnboarded).makeAsyncIterator()
        #expect(try await onboarding.next() == false)
        try await store.write(.setOnboarded(true))
        #expect(try await onboarding.next() == true)

        var results = store.observe(.testResults).makeAsyncIterator()
        #expect(try await results.next() == [])
        let result = ENTestResult(dateAdministered: referenceDate)
        try await store.write(.saveTestResult(result))
        #expect(try await results.next() == [result])

        var exposures = store.observe(.exposures).makeAsyncIterator()
        #expect(try await exposures.next() == [])
        try await store.write(.addExposures([ENExposureRecord(date: referenceDate)]))
        #expect(try await exposures.next() == [ENExposureRecord(date: referenceDate)])

        var state = store.observe(.detectionState).makeAsyncIterator()
        #expect(try await state.next() == ENDetectionState())
        try await store.write(.recordDetection(at: referenceDate, nextKeyFileIndex: 5))
        #expect(try await state.next() == ENDetectionState(nextKeyFileIndex: 5, lastDetectionDate: referenceDate))
    }

    @Test func theFrameworkStoreIsObservableToo() async throws {
        let store = try ENStore(inMemoryWith: TestClock(referenceDate).configuration())
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
        let store = try ENAppStore()
        var onboarding = store.observe(.isOnboarded).makeAsyncIterator()
        #expect(try await onboarding.next() == false)
        try await store.write(.addExposures([ENExposureRecord(date: referenceDate)]))
        try await store.write(.setNextKeyFileIndex(3))
        try await store.write(.setOnboarded(true))
        // The next value is the change, not a repeat of `false`.
        #expect(try await onboarding.next() == true)
    }
}
