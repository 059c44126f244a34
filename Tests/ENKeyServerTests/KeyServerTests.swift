import ENCore
import ENKeyServer
import ENStore
import Foundation
import Testing

@Suite("Key-server store")
struct KeyServerTests {
    @Test func postedKeysAreDeduplicatedKeptInArrivalOrderAndBatched() async throws {
        let test = try TestServer()
        let store = test.server.store
        let a = makeKey(3, start: today.adding(-144))
        let b = makeKey(1, start: today.adding(-288))
        let c = makeKey(2, start: today)
        #expect(
            try await store.write(.postDiagnosisKeys([a, b, a])) == ENKeyServerPostResult(accepted: 2, duplicates: 1))
        #expect(try await store.write(.postDiagnosisKeys([b, c])) == ENKeyServerPostResult(accepted: 1, duplicates: 1))
        // The same key data with another rolling start is another key.
        var a2 = a
        a2.rollingStartNumber = a.rollingStartNumber.adding(144)
        #expect(try await store.write(.postDiagnosisKeys([a2])) == ENKeyServerPostResult(accepted: 1))
        #expect(try await store.read(.diagnosisKeysAwaitingExport) == [a, b, c, a2])

        let files0 = try await test.server.publish()
        #expect(files0.count == 1)
        #expect(sorted(try contents(of: files0[0]).keys) == sorted([a, b, c, a2]))
        let batch0 = ENKeyServerBatch(index: 0, createdAt: referenceDate, keys: [a, b, c, a2])
        #expect(try await store.read(.exportBatches()) == [batch0])
        #expect(try await test.server.publish() == [])
        #expect(try await store.read(.diagnosisKeysAwaitingExport).isEmpty)

        test.clock.advance(by: 60)
        let d = makeKey(4, start: today)
        #expect(try await store.write(.postDiagnosisKeys([c, d])) == ENKeyServerPostResult(accepted: 1, duplicates: 1))
        let files1 = try await test.server.publish()
        #expect(files1.map(\.index) == [1])
        #expect(files1.map(\.batchIndex) == [1])
        #expect(try contents(of: files1[0]).keys == [d])
        let batch1 = ENKeyServerBatch(index: 1, createdAt: referenceDate.addingTimeInterval(60), keys: [d])
        #expect(try await store.read(.exportBatches()) == [batch0, batch1])
        #expect(try await store.read(.exportBatches(startingAt: 1)) == [batch1])
    }

    @Test func anInvalidPostedKeyRejectsTheWholePost() throws {
        let test = try TestServer()
        var badRisk = makeKey(2, start: today)
        badRisk.transmissionRiskLevel = 9
        var badLength = makeKey(3, start: today)
        badLength.keyData = Data(repeating: 1, count: 15)
        var badPeriod = makeKey(4, start: today)
        badPeriod.rollingPeriod = 145
        var badOnset = makeKey(5, start: today)
        badOnset.daysSinceOnsetOfSymptoms = 15
        for (bad, field) in [
            (badRisk, "transmissionRiskLevel"), (badLength, "keyData"), (badPeriod, "rollingPeriod"),
            (badOnset, "daysSinceOnsetOfSymptoms"),
        ] {
            do {
                try test.server.postDiagnosisKeys([makeKey(1, start: today), makeKey(6, start: today), bad])
                Issue.record("expected an error for \(field)")
            } catch {
                #expect(error.code == .badParameter)
                #expect(error.context.section == "posted keys" && error.context.index == 2, "\(error)")
                #expect(error.context.field == field, "\(error)")
            }
        }
        #expect(try test.server.store.read(.diagnosisKeysAwaitingExport).isEmpty)
        #expect(try test.server.publish().isEmpty)
        #expect(try test.server.indexText() == "")
    }

    @Test func theStoreIsAFileOfItsOwnThatSurvivesReopeningAndErasing() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("KeyServerTests-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("keys.sqlite").path
        let key = makeKey(5, start: 2_963_808)
        let store = try ENKeyServerStore(path: path, clock: { referenceDate })
        let test = try TestServer(store: store)
        try test.server.postDiagnosisKeys([key])
        let published = try test.server.publish()
        #expect(published.count == 1)
        let batches = try store.read(.exportBatches())
        #expect(batches.map(\.createdAt) == [referenceDate])
        try store.close()

        // Reopened, the server serves the same files, byte for byte.
        let reopened = try ENKeyServerStore(path: path)
        try reopened.checkIntegrity()
        #expect(try reopened.read(.exportBatches()) == batches)
        let again = try TestServer(clock: test.clock, store: reopened, signingKey: test.signingKey)
        #expect(try again.server.files(startingAt: 0) == published)
        #expect(try again.server.file(named: published[0].name)?.data == published[0].data)
        try reopened.write(.eraseAll)
        #expect(try reopened.read(.exportBatches()).isEmpty)
        #expect(try reopened.read(.diagnosisKeysAwaitingExport).isEmpty)
        #expect(try again.server.files(startingAt: 0).isEmpty)
        try reopened.close()
        let raw = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(raw.range(of: key.keyData) == nil)

        // Neither an ENStore file nor this one opens as the other; neither is changed.
        let storePath = directory.appendingPathComponent("store.sqlite").path
        try ENDeviceStore(path: storePath).close()
        let storeBytes = try Data(contentsOf: URL(fileURLWithPath: storePath))
        let error = #expect(throws: ENError.self) { _ = try ENKeyServerStore(path: storePath) }
        #expect(error?.code == .badFormat)
        #expect(error?.context.file == storePath)
        #expect(try Data(contentsOf: URL(fileURLWithPath: storePath)) == storeBytes)
        let serverBytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: ENError.self) { _ = try ENDeviceStore(path: path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == serverBytes)
    }
}
