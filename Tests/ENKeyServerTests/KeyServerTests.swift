import ENCore
import ENKeyServer
import ENStore
import Foundation
import Testing

@Suite("Key-server store")
struct KeyServerTests {
    @Test func postedKeysAreDeduplicatedKeptInArrivalOrderAndBatched() async throws {
        let store = try ENKeyServerStore(clock: { referenceDate })
        let today = ENIntervalNumber(date: referenceDate).rollingStart
        let a = makeKey(3, start: today.adding(-144))
        let b = makeKey(1, start: today.adding(-288))
        let c = makeKey(2, start: today)
        #expect(try await store.write(.postDiagnosisKeys([a, b, a])) == 2)
        #expect(try await store.write(.postDiagnosisKeys([b, c])) == 1)
        #expect(try await store.read(.diagnosisKeysAwaitingExport) == [a, b, c])

        let batch0 = try #require(try await store.write(.publishExportBatch(at: referenceDate)))
        #expect(batch0 == ENKeyServerBatch(index: 0, createdAt: referenceDate, keys: [a, b, c]))
        #expect(try await store.write(.publishExportBatch()) == nil)
        #expect(try await store.read(.diagnosisKeysAwaitingExport).isEmpty)

        let d = makeKey(4, start: today)
        #expect(try await store.write(.postDiagnosisKeys([c, d])) == 1)
        let batch1 = try #require(try await store.write(.publishExportBatch(at: referenceDate.addingTimeInterval(60))))
        #expect(batch1.index == 1)
        #expect(batch1.keys == [d])
        #expect(try await store.read(.exportBatches()) == [batch0, batch1])
        #expect(try await store.read(.exportBatches(startingAt: 1)) == [batch1])
    }

    @Test func anInvalidPostedKeyRejectsTheWholePost() throws {
        let store = try ENKeyServerStore(clock: { referenceDate })
        var bad = makeKey(2, start: 2_963_808)
        bad.transmissionRiskLevel = 9
        do {
            try store.write(.postDiagnosisKeys([makeKey(1, start: 2_963_808), bad]))
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .badParameter)
            #expect(error.context.section == "posted keys" && error.context.index == 1, "\(error)")
            #expect(error.context.field == "transmissionRiskLevel", "\(error)")
        }
        #expect(try store.read(.diagnosisKeysAwaitingExport).isEmpty)
    }

    @Test func theStoreIsAFileOfItsOwnThatSurvivesReopeningAndErasing() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("KeyServerTests-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("keys.sqlite").path
        let key = makeKey(5, start: 2_963_808)
        let store = try ENKeyServerStore(path: path, clock: { referenceDate })
        try store.write(.postDiagnosisKeys([key]))
        let batch = try store.write(.publishExportBatch())
        #expect(batch?.createdAt == referenceDate)
        try store.close()

        let reopened = try ENKeyServerStore(path: path)
        try reopened.checkIntegrity()
        #expect(try reopened.read(.exportBatches()) == [try #require(batch)])
        try reopened.write(.eraseAll)
        #expect(try reopened.read(.exportBatches()).isEmpty)
        #expect(try reopened.read(.diagnosisKeysAwaitingExport).isEmpty)
        try reopened.close()
        let raw = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(raw.range(of: key.keyData) == nil)

        // Neither an ENStore file nor this one opens as the other; neither is changed.
        let storePath = directory.appendingPathComponent("store.sqlite").path
        try ENStore(path: storePath).close()
        let storeBytes = try Data(contentsOf: URL(fileURLWithPath: storePath))
        let error = #expect(throws: ENError.self) { _ = try ENKeyServerStore(path: storePath) }
        #expect(error?.code == .badFormat)
        #expect(error?.context.file == storePath)
        #expect(try Data(contentsOf: URL(fileURLWithPath: storePath)) == storeBytes)
        let serverBytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: ENError.self) { _ = try ENStore(path: path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == serverBytes)
    }
}

/// A fixed reference moment: 2026-05-09 06:13:20 UTC (interval 2_963_845).
let referenceDate = Date(timeIntervalSinceReferenceDate: 800_000_000)

/// A valid diagnosis key numbered `n`: its first 8 bytes are `n`, the risk level and onset vary with `n`.
func makeKey(_ n: Int, start: ENIntervalNumber) -> ENTemporaryExposureKey {
    var keyData = Data(repeating: 0x5A, count: 16)
    withUnsafeBytes(of: UInt64(n).littleEndian) { keyData.replaceSubrange(0..<8, with: $0) }
    return ENTemporaryExposureKey(
        keyData: keyData, rollingStartNumber: start, transmissionRiskLevel: UInt8(n % 8),
        diagnosisReportType: .confirmedTest,
        daysSinceOnsetOfSymptoms: n % 3 == 0 ? ENDaysSinceOnsetOfSymptomsUnknown : n % 14 - 7)
}
