import ENCore
import ENTestSupport
import ExposureNotificationKit
import Foundation
import Testing

/// A manager remembers what its last detection matched and matches only what is new to it (the new files, and
/// the cached files against the sightings recorded since); a new manager on the same store remembers nothing and
/// matches everything. Both must give the same result.
@Suite("ENManager: a detection that remembers the last one")
struct DetectionMemoTests {
    @Test("sightings recorded after the last detection, a later revision and expired sightings: as a new manager")
    func sameAsANewManager() async throws {
        let scenario = try await DetectionScenario()
        defer { scenario.directory.cleanUp() }
        let start = DetectionScenario.encounterStart
        try scenario.encounter(minutes: 8)
        let keys = try await scenario.releasedKeys()
        let first = try scenario.writeZip(keys, name: "first.zip")
        scenario.detectAt()
        let before = try await scenario.detect([first])
        let windowsBefore = try await scenario.manager.getExposureWindows(summary: before)
        try #require(windowsBefore.count == 1)

        // The same key heard again, recorded after that detection (a phone may store a scan late), and a later
        // file that revises the key: the cached file must match the new sightings, the revision win.
        try scenario.encounter(from: start.addingTimeInterval(12 * 60), minutes: 8)
        let revision = try scenario.writeZip(
            [], revisedKeys: keys.map { $0.reported(as: .selfReported) }, name: "revision.zip")
        scenario.detectAt(start.addingTimeInterval(3 * 3600))
        let remembered = try await scenario.detect([revision])
        let windows = try await scenario.manager.getExposureWindows(summary: remembered)
        let new = try await newManagerDetects(scenario)
        #expect(windows == new.windows)
        #expect(remembered.daySummaries == new.summary.daySummaries)
        #expect(windows.map(\.diagnosisReportType) == [.selfReported])
        #expect(
            windows.map(\.scanInstances.count).reduce(0, +) > windowsBefore.map(\.scanInstances.count).reduce(0, +))

        // Nothing new: the remembered hits alone; then 15 days on, the sightings and keys have expired.
        let again = try await scenario.manager.detectExposures(configuration: DetectionScenario.configuration)
        #expect(try await scenario.manager.getExposureWindows(summary: again) == windows)
        scenario.detectAt(start.addingTimeInterval(15 * 86_400))
        let expired = try await scenario.manager.detectExposures(configuration: DetectionScenario.configuration)
        #expect(expired.daySummaries.isEmpty)
        #expect(try await scenario.manager.getExposureWindows(summary: expired).isEmpty)
    }

    @Test("the last result, read back from memory, is the stored one; once the store drops it, it is gone")
    func recentResultIsTheStoredOne() async throws {
        let scenario = try await DetectionScenario()
        defer { scenario.directory.cleanUp() }
        try scenario.encounter(minutes: 8)
        let file = try scenario.writeZip(try await scenario.releasedKeys(), name: "first.zip")
        scenario.detectAt()
        let summary = try await scenario.detect([file])
        let fromMemory = try await scenario.manager.getExposureWindows(summary: summary)
        try #require(fromMemory.count == 1)
        // A write that may change state moves the store's generation: the result is read from the store.
        try await scenario.manager.setExposureNotificationEnabled(true)
        #expect(try await scenario.manager.getExposureWindows(summary: summary) == fromMemory)
        // 15 days on, the sweep before a release drops the result: its summary reads nothing, although no other
        // detection came since.
        scenario.detectAt(DetectionScenario.encounterStart.addingTimeInterval(15 * 86_400))
        _ = try await scenario.manager.getDiagnosisKeys()
        let error = await #expect(throws: ENError.self) {
            try await scenario.manager.getExposureWindows(summary: summary)
        }
        #expect(error?.code == .badParameter)
    }

    /// A new manager on `scenario`'s store (after its own detection) detects over the cached files.
    private func newManagerDetects(
        _ scenario: DetectionScenario
    ) async throws -> (summary: ENExposureDetectionSummary, windows: [ENExposureWindow]) {
        let manager = ENManager(environment: scenario.environment)
        manager.dispatchQueue = DispatchQueue(label: "DetectionMemoTests.new")
        try await manager.activate()
        defer { manager.invalidate() }
        let summary = try await manager.detectExposures(configuration: DetectionScenario.configuration)
        return (summary, try await manager.getExposureWindows(summary: summary))
    }
}
