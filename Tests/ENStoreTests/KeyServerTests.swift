import ENCore
import ENStore
import Foundation
import Testing

@Suite("Key-server store")
struct KeyServerTests {
    @Test func postedKeysAreDeduplicatedKeptInArrivalOrderAndBatched() async throws {
        let clock = TestClock(referenceDate)
        let store = try ENStore(inMemoryWith: clock.configuration())
        let today = ENIntervalNumber(date: referenceDate).rollingStart
        let a = makeKey(3, start: today.adding(-144))
        let b = makeKey(1, start: today.adding(-288))
        let c = makeKey(2, start: today)
        #expect(try await store.postDiagnosisKeys([a, b, a]) == 2)
        #expect(try await store.postDiagnosisKeys([b, c]) == 1)
        #expect(try await store.diagnosisKeysAwaitingExport() == [a, b, c])

        let batch0 = try #require(try await store.publishExportBatch(at: referenceDate))
        #expect(batch0 == ENKeyServerBatch(index: 0, createdAt: referenceDate, keys: [a, b, c]))
        #expect(try await store.publishExportBatch() == nil)
        #expect(try await store.diagnosisKeysAwaitingExport().isEmpty)

        let d = makeKey(4, start: today)
        #expect(try await store.postDiagnosisKeys([c, d]) == 1)
        let batch1 = try #require(try await store.publishExportBatch(at: referenceDate.addingTimeInterval(60)))
        #expect(batch1.index == 1)
        #expect(batch1.keys == [d])
        #expect(try await store.exportBatches() == [batch0, batch1])
        #expect(try await store.exportBatches(startingAt: 1) == [batch1])
    }

    @Test func anInvalidPostedKeyRejectsTheWholePost() throws {
        let store = try ENStore(inMemoryWith: TestClock(referenceDate).configuration())
        var bad = makeKey(2, start: 2_963_808)
        bad.transmissionRiskLevel = 9
        do {
            try store.postDiagnosisKeys([makeKey(1, start: 2_963_808), bad])
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .badParameter)
            #expect(error.reason.contains("posted key 1"))
        }
        #expect(try store.diagnosisKeysAwaitingExport().isEmpty)
    }
}
