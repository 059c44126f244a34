import ENCore
import ENKeyServer
import ENStore
import Foundation
import Testing

/// The storage primitives of the publish API on SQLite (`ENKeyServerStorage`).
@Suite("Key-server storage primitives")
struct KeyServerStorageTests {
    private func key(_ n: Int, start: ENIntervalNumber = today) -> ENTemporaryExposureKey {
        ENTemporaryExposureKey(
            keyData: keyData(n), rollingStartNumber: start, transmissionRiskLevel: 2,
            diagnosisReportType: .confirmedClinicalDiagnosis, daysSinceOnsetOfSymptoms: 1)
    }

    @Test func insertsOnlyKeyDataNotStoredYet() async throws {
        let store = try ENKeyServerStore(clock: { referenceDate })
        let at = referenceDate
        let first = try await store.insertAndRevise(
            inserting: [ENKeyServerInsertion(key: key(1), exportableAt: at)], revising: [])
        #expect(first == [keyData(1)])
        // The same key data under another start, and twice in one call: stored once.
        let second = try await store.insertAndRevise(
            inserting: [
                ENKeyServerInsertion(key: key(1, start: today.adding(-144)), exportableAt: at),
                ENKeyServerInsertion(key: key(2), exportableAt: at),
                ENKeyServerInsertion(key: key(2), exportableAt: at),
            ], revising: [])
        #expect(second == [keyData(2)])
        let stored = try await store.storedKeys(withKeyData: [keyData(2), keyData(1), keyData(3), keyData(1)])
        #expect(stored.map(\.key) == [key(2), key(1)])
        #expect(stored.map(\.exportableAt) == [at, at])
        #expect(stored.allSatisfy { $0.revision == nil })
    }

    @Test func revisesOnceAndAFailedRevisionWritesNothing() async throws {
        let store = try ENKeyServerStore(clock: { referenceDate })
        let at = referenceDate
        _ = try await store.insertAndRevise(
            inserting: [ENKeyServerInsertion(key: key(1), exportableAt: at)], revising: [])
        let revision = ENKeyServerRevision(
            keyData: keyData(1), reportType: .confirmedTest,
            daysSinceOnsetOfSymptoms: ENDaysSinceOnsetOfSymptomsUnknown,
            revisedAt: at.addingTimeInterval(3600))
        #expect(try await store.insertAndRevise(inserting: [], revising: [revision]) == [])
        #expect(try await store.storedKeys(withKeyData: [keyData(1)]).first?.revision == revision)

        // Revising it again, or a key not stored, fails the whole call: the insertion with it is not kept.
        for bad in [
            revision,
            ENKeyServerRevision(keyData: keyData(9), reportType: .revoked, daysSinceOnsetOfSymptoms: 0, revisedAt: at),
        ] {
            let error = await #expect(throws: ENError(.badParameter)) {
                try await store.insertAndRevise(
                    inserting: [ENKeyServerInsertion(key: key(5), exportableAt: at)], revising: [bad])
            }
            #expect(error?.context.section == "revisions")
            #expect(try await store.storedKeys(withKeyData: [keyData(5)]).isEmpty)
        }
    }
}
