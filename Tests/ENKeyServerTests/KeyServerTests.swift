import ENCore
import ENKeyServer
import ENKeyServerSQLite
import ENTestSupport
import Foundation
import GRDB
import Testing

@Suite("Key-server store")
struct KeyServerTests {
    @Test func postedKeysAreIdentifiedByKeyDataKeptInArrivalOrderAndBatched() async throws {
        let test = try TestServer()
        let store = test.store
        let a = makeKey(3, start: today.adding(-144))
        let b = makeKey(1, start: today.adding(-288))
        let c = makeKey(2, start: today)
        #expect(
            try await test.server.postDiagnosisKeys([a, b, a]) == ENKeyServerPostResult(accepted: 2, duplicates: 1))
        #expect(try await test.server.postDiagnosisKeys([b, c]) == ENKeyServerPostResult(accepted: 1, duplicates: 1))
        // The same key data with another rolling start is the same key, as Google identifies keys.
        var a2 = a
        a2.rollingStartNumber = a.rollingStartNumber.adding(-144)
        #expect(try await test.server.postDiagnosisKeys([a2]) == ENKeyServerPostResult(duplicates: 1))
        // Stored as the publish rules sort a request's keys: by start interval.
        #expect(try await store.diagnosisKeysAwaitingExport() == [b, a, c])

        let files0 = try await test.server.publish()
        #expect(files0.count == 1)
        #expect(sorted(try contents(of: files0[0]).keys) == sorted([a, b, c]))
        let batch0 = ENKeyServerBatch(index: 0, createdAt: referenceDate, keys: [b, a, c])
        #expect(try await store.exportBatches() == [batch0])
        #expect(try await test.server.publish() == [])
        #expect(try await store.diagnosisKeysAwaitingExport().isEmpty)

        test.clock.advance(by: 3_600)
        let d = makeKey(4, start: today)
        #expect(try await test.server.postDiagnosisKeys([c, d]) == ENKeyServerPostResult(accepted: 1, duplicates: 1))
        let files1 = try await test.server.publish()
        #expect(files1.map(\.index) == [1])
        #expect(files1.map(\.batchIndex) == [1])
        #expect(try contents(of: files1[0]).keys == [d])
        let batch1 = ENKeyServerBatch(index: 1, createdAt: referenceDate.addingTimeInterval(3_600), keys: [d])
        #expect(try await store.exportBatches() == [batch0, batch1])
        #expect(try await store.exportBatches(startingAt: 1) == [batch1])
    }

    @Test func anInvalidPostedKeyIsLeftOutAndAPostWithoutAValidKeyIsRefused() async throws {
        let test = try TestServer()
        var badRisk = makeKey(2, start: today)
        badRisk.transmissionRiskLevel = 9
        var badLength = makeKey(3, start: today)
        badLength.keyData = Data(repeating: 1, count: 15)
        var badPeriod = makeKey(4, start: today)
        badPeriod.rollingPeriod = 145
        var badOnset = makeKey(5, start: today)
        badOnset.daysSinceOnsetOfSymptoms = 15
        var badAge = makeKey(7, start: today.adding(-144 * 16))
        badAge.daysSinceOnsetOfSymptoms = 0
        for (bad, reason) in [
            (badRisk, "invalid transmission risk"), (badLength, "invalid key length"),
            (badPeriod, "invalid interval count"), (badOnset, "symptom onset is too large"),
            (badAge, "key expires before minimum window"),
        ] {
            // Alone, an invalid key refuses the post (a key too far from the onset is only left out, as Google
            // warns about it); with valid keys, it is left out (Google's partial_failure).
            if bad == badOnset {
                #expect(
                    try await test.server.postDiagnosisKeys([bad])
                        == ENKeyServerPostResult(
                            rejected: 1, reason: "key 0 symptom onset is too large, 15 > 14 - saving without this key"))
            } else {
                let error = await #expect(throws: ENError(.badParameter)) {
                    try await test.server.postDiagnosisKeys([bad])
                }
                #expect(error?.context.section == "posted keys")
            }
            let result = try await test.server.postDiagnosisKeys([makeKey(1, start: today.adding(-144)), bad])
            #expect(result.rejected == 1 && result.accepted + result.duplicates == 1, "\(result)")
            #expect(result.reason?.contains(reason) == true, "\(String(describing: result.reason))")
        }
        #expect(try await test.store.diagnosisKeysAwaitingExport() == [makeKey(1, start: today.adding(-144))])
    }

    @Test func theStoreIsAFileOfItsOwnThatSurvivesReopeningAndErasing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("keys.sqlite")
        let key = makeKey(5, start: today.adding(-144))
        let store = try ENKeyServerSQLiteStore(path: path, clock: { referenceDate })
        let test = try TestServer(store: store)
        try await test.server.postDiagnosisKeys([key])
        let published = try await test.server.publish()
        #expect(published.count == 1)
        let batches = try await store.exportBatches()
        #expect(batches.map(\.createdAt) == [referenceDate])
        try store.close()

        // Reopened, the server serves the same files, byte for byte.
        let reopened = try ENKeyServerSQLiteStore(path: path)
        try reopened.checkIntegrity()
        #expect(try await reopened.exportBatches() == batches)
        let again = try TestServer(clock: test.clock, store: reopened, signingKey: test.signingKey)
        #expect(try await again.server.files(startingAt: 0) == published)
        #expect(try await again.server.file(named: published[0].name)?.data == published[0].data)
        try await reopened.eraseAll()
        #expect(try await reopened.exportBatches().isEmpty)
        #expect(try await reopened.diagnosisKeysAwaitingExport().isEmpty)
        #expect(try await again.server.files(startingAt: 0).isEmpty)
        try reopened.close()
        let raw = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(raw.range(of: key.keyData) == nil)

        // Another SQLite database does not open as a key-server store, and is not changed.
        let otherPath = directory.path("other.sqlite")
        try await DatabaseQueue(path: otherPath).write { db in try db.execute(sql: "CREATE TABLE things (id INTEGER)") }
        let otherBytes = try Data(contentsOf: URL(fileURLWithPath: otherPath))
        let error = #expect(throws: ENError.self) { _ = try ENKeyServerSQLiteStore(path: otherPath) }
        #expect(error?.code == .badFormat)
        #expect(error?.context.file == otherPath)
        #expect(try Data(contentsOf: URL(fileURLWithPath: otherPath)) == otherBytes)
    }
}
