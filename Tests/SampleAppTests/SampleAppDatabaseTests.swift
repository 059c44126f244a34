import ENTestSupport
import Foundation
import GRDB
import Testing

@testable import SampleAppExample

/// The sample app's own persistence: `LocalStore`'s fields in `SampleAppDatabase`.
@Suite("The sample app's database")
struct SampleAppDatabaseTests {
    /// 2026-05-09 06:13:20 UTC.
    let referenceDate = Date(timeIntervalSinceReferenceDate: 800_000_000)

    @Test func onboardingTestResultsAndExposuresRoundTrip() throws {
        let database = try SampleAppDatabase()
        #expect(try database.state().isOnboarded == false)
        try database.updateState { $0.isOnboarded = true }
        #expect(try database.state().isOnboarded)

        let first = TestResult(
            id: UUID(), isAdded: true, dateAdministered: referenceDate.addingTimeInterval(-86_400), isShared: false)
        var second = TestResult(id: UUID(), isAdded: false, dateAdministered: referenceDate, isShared: false)
        try database.replaceTestResults(with: [second, first])
        #expect(try database.testResults().map(\.id) == [first.id, second.id])
        second.isShared = true
        try database.replaceTestResults(with: [second])
        let stored = try database.testResults()
        #expect(stored.map(\.id) == [second.id])
        #expect(stored.first?.isShared == true)
        #expect(stored.first?.dateAdministered == referenceDate)

        let exposures = [
            Exposure(date: referenceDate, duration: 600, totalRiskScore: 42, transmissionRiskLevel: 5),
            Exposure(date: referenceDate.addingTimeInterval(-86_400)),
        ]
        try database.replaceExposures(with: exposures)
        let read = try database.exposures()
        #expect(read.map(\.date) == exposures.map(\.date))
        #expect(read.map(\.duration) == [600, nil])
        #expect(read.map(\.totalRiskScore) == [42, nil])
        #expect(read.map(\.transmissionRiskLevel) == [5, nil])
        try database.replaceExposures(with: [])
        #expect(try database.exposures().isEmpty)
    }

    @Test func theDetectionStateIsKeptAcrossLaunches() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("app.sqlite")
        let database = try SampleAppDatabase(path: path)
        #expect(try database.state() == SampleAppDatabase.State())
        try database.updateState {
            $0.nextDiagnosisKeyFileIndex = 4
            $0.dateLastPerformedExposureDetection = referenceDate
            $0.exposureDetectionErrorLocalizedDescription = "BACKGROUND_TIMEOUT"
        }
        try database.close()

        let reopened = try SampleAppDatabase(path: path)
        #expect(
            try reopened.state()
                == SampleAppDatabase.State(
                    nextDiagnosisKeyFileIndex: 4, dateLastPerformedExposureDetection: referenceDate,
                    exposureDetectionErrorLocalizedDescription: "BACKGROUND_TIMEOUT"))
    }

    @Test func aFileOfANewerSchemaIsRefusedUntouched() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("app.sqlite")
        try SampleAppDatabase(path: path).close()
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v2')") }
        try queue.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: (any Error).self) { _ = try SampleAppDatabase(path: path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func eraseAllDeletesTheAppDataFromTheFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("app.sqlite")
        let database = try SampleAppDatabase(path: path)
        let result = TestResult(id: UUID(), isAdded: true, dateAdministered: referenceDate, isShared: true)
        try database.updateState {
            $0.isOnboarded = true
            $0.nextDiagnosisKeyFileIndex = 3
        }
        try database.replaceTestResults(with: [result])
        try database.replaceExposures(with: [Exposure(date: referenceDate)])

        try database.eraseAll()

        #expect(try database.state() == SampleAppDatabase.State())
        #expect(try database.testResults().isEmpty)
        #expect(try database.exposures().isEmpty)
        try database.close()
        let identifier = withUnsafeBytes(of: result.id.uuid) { Data($0) }
        #expect(try !fileContains(path, identifier))
        #expect(try !fileContains(path + "-wal", identifier))
        let reopened = try SampleAppDatabase(path: path)
        try reopened.replaceTestResults(with: [result])
        #expect(try reopened.testResults().map(\.id) == [result.id])
    }
}
