import ENCore
import ENCrypto
import ENExportFormat
import ENKeyServer
import ENKeyServerSQLite
import Foundation
import Testing

/// The storage primitives (`ENKeyServerStorage`) and the exporter on them, on every storage: SQLite and
/// PostgreSQL answer every case the same.
@Suite("Key-server storage: the same primitives on SQLite and PostgreSQL")
struct KeyServerStorageTests {
    private func key(_ n: Int, start: ENIntervalNumber = today) -> ENTemporaryExposureKey {
        ENTemporaryExposureKey(
            keyData: keyData(n), rollingStartNumber: start, transmissionRiskLevel: 2,
            diagnosisReportType: .confirmedClinicalDiagnosis, daysSinceOnsetOfSymptoms: 1)
    }

    private func insertion(_ n: Int, at date: Date = referenceDate) -> ENKeyServerInsertion {
        ENKeyServerInsertion(key: key(n), exportableAt: date)
    }

    /// A configuration signing with `signingKey` as region 310, without padding, with `period`.
    private func configuration(
        _ signingKey: P256SigningKey, period: TimeInterval? = nil
    ) -> ENKeyServerConfiguration {
        var configuration = ENKeyServerConfiguration(
            region: "310", signers: [ENExportSigner(signingKey: signingKey, keyID: "310", keyVersion: "v1")],
            padding: nil)
        configuration.exportPeriod = period
        return configuration
    }

    @Test(arguments: StorageKind.available)
    func insertsOnlyKeyDataNotStoredYet(_ kind: StorageKind) async throws {
        try await kind.with { storages in
            let store = storages[0]
            let at = referenceDate
            let first = try await store.insertAndRevise(inserting: [insertion(1)], revising: [])
            #expect(first == [keyData(1)])
            // The same key data under another start, and twice in one call: stored once.
            let second = try await store.insertAndRevise(
                inserting: [
                    ENKeyServerInsertion(key: key(1, start: today.adding(-144)), exportableAt: at),
                    insertion(2), insertion(2),
                ], revising: [])
            #expect(second == [keyData(2)])
            let stored = try await store.storedKeys(withKeyData: [keyData(2), keyData(1), keyData(3), keyData(1)])
            #expect(stored.map(\.key) == [key(2), key(1)])
            #expect(stored.map(\.exportableAt) == [at, at])
            #expect(stored.allSatisfy { $0.revision == nil })
        }
    }

    @Test(arguments: StorageKind.available)
    func insertsNewKeysUnlessAnyIsStoredAlready(_ kind: StorageKind) async throws {
        try await kind.with { storages in
            let store = storages[0]
            // Nothing stored: inserted, in the order given, a key sent twice once.
            let first = try await store.insert(
                [insertion(2), insertion(1), insertion(2)], unlessAnyStored: [keyData(2), keyData(1), keyData(2)])
            #expect(first == .inserted([keyData(2), keyData(1)]))
            // One of the checked keys is stored, though not among the insertions (a negative report's key):
            // nothing is written, the stored key comes back whole.
            let revised = try await store.insert(
                [insertion(3), insertion(4)], unlessAnyStored: [keyData(3), keyData(1), keyData(4)])
            let stored = try #require(
                {
                    if case .alreadyStored(let keys) = revised { return keys }
                    return nil
                }())
            #expect(stored.map(\.key) == [key(1)])
            #expect(stored.map(\.exportableAt) == [referenceDate])
            #expect(stored.first?.revision == nil)
            #expect(try await store.storedKeys(withKeyData: [keyData(3), keyData(4)]).isEmpty)
            // The same when every checked key is one to insert (PostgreSQL's one statement, failing whole).
            let conflicting = try await store.insert(
                [insertion(3), insertion(1)], unlessAnyStored: [keyData(3), keyData(1)])
            #expect(conflicting == .alreadyStored(stored))
            #expect(try await store.storedKeys(withKeyData: [keyData(3)]).isEmpty)
            // A revised key comes back with its revision.
            let revision = ENKeyServerRevision(
                keyData: keyData(1), reportType: .confirmedTest, daysSinceOnsetOfSymptoms: 2,
                revisedAt: referenceDate.addingTimeInterval(3600))
            _ = try await store.insertAndRevise(inserting: [], revising: [revision])
            let again = try await store.insert([insertion(5)], unlessAnyStored: [keyData(5), keyData(1)])
            #expect(again == .alreadyStored(try await store.storedKeys(withKeyData: [keyData(1)])))
            #expect(try await store.storedKeys(withKeyData: [keyData(1)]).first?.revision == revision)
            // Nothing to insert and nothing stored: nothing written.
            #expect(try await store.insert([], unlessAnyStored: [keyData(6)]) == .inserted([]))
            #expect(try await store.storedKeys(withKeyData: [keyData(5), keyData(6)]).isEmpty)
            // Every column survives: a key without days since onset, the shared origin; and keys of two origins.
            var noOnset = key(7)
            noOnset.daysSinceOnsetOfSymptoms = ENDaysSinceOnsetOfSymptomsUnknown
            let origin = ENKeyServerKeyOrigin(regions: ["US", "CA"], traveler: true, importName: "other")
            let shared = [
                ENKeyServerInsertion(key: noOnset, exportableAt: referenceDate, origin: origin),
                ENKeyServerInsertion(key: key(8), exportableAt: referenceDate.addingTimeInterval(3600), origin: origin),
            ]
            #expect(
                try await store.insert(shared, unlessAnyStored: [keyData(7), keyData(8)])
                    == .inserted([keyData(7), keyData(8)]))
            let mixed = [insertion(9), ENKeyServerInsertion(key: key(10), exportableAt: referenceDate, origin: origin)]
            #expect(
                try await store.insert(mixed, unlessAnyStored: [keyData(9), keyData(10)])
                    == .inserted([keyData(9), keyData(10)]))
            let all = try await store.storedKeys(withKeyData: (7...10).map { keyData($0) })
            #expect(all.map(\.key) == [noOnset, key(8), key(9), key(10)])
            #expect(all.map(\.origin) == [origin, origin, ENKeyServerKeyOrigin(), origin])
            #expect(
                all.map(\.exportableAt) == [
                    referenceDate, referenceDate.addingTimeInterval(3600), referenceDate, referenceDate,
                ])
        }
    }

    @Test(arguments: StorageKind.available)
    func revisesOnceAndAFailedRevisionWritesNothing(_ kind: StorageKind) async throws {
        try await kind.with { storages in
            let store = storages[0]
            let at = referenceDate
            _ = try await store.insertAndRevise(inserting: [insertion(1)], revising: [])
            let revision = ENKeyServerRevision(
                keyData: keyData(1), reportType: .confirmedTest,
                daysSinceOnsetOfSymptoms: ENDaysSinceOnsetOfSymptomsUnknown,
                revisedAt: at.addingTimeInterval(3600))
            #expect(try await store.insertAndRevise(inserting: [], revising: [revision]) == [])
            #expect(try await store.storedKeys(withKeyData: [keyData(1)]).first?.revision == revision)

            // Revising it again, or a key not stored, fails the whole call: the insertion with it is not kept.
            for bad in [
                revision,
                ENKeyServerRevision(
                    keyData: keyData(9), reportType: .revoked, daysSinceOnsetOfSymptoms: 0, revisedAt: at),
            ] {
                let error = await #expect(throws: ENError(.badParameter)) {
                    try await store.insertAndRevise(inserting: [insertion(5)], revising: [bad])
                }
                #expect(error?.context.section == "revisions")
                #expect(try await store.storedKeys(withKeyData: [keyData(5)]).isEmpty)
            }
        }
    }

    @Test(arguments: StorageKind.available)
    func instancesPublishingOneKeyAtOnceStoreItOnce(_ kind: StorageKind) async throws {
        try await kind.with(count: 2) { storages in
            // 16 publishes on two instances at once: each sends the 10 shared keys and one of its own.
            let inserted = try await withThrowingTaskGroup(of: [Data].self) { group in
                for publish in 0..<16 {
                    let storage = storages[publish % 2]
                    let batch = (1...10).map { insertion($0) } + [insertion(100 + publish)]
                    group.addTask { try await storage.insertAndRevise(inserting: batch.shuffled(), revising: []) }
                }
                var all: [Data] = []
                for try await keys in group { all += keys }
                return all
            }
            let expected = (1...10).map(keyData) + (0..<16).map { keyData(100 + $0) }
            #expect(inserted.count == expected.count)
            #expect(Set(inserted) == Set(expected))
            #expect(try await storages[1].storedKeys(withKeyData: expected).count == expected.count)
        }
    }

    @Test(arguments: StorageKind.available)
    func instancesRevisingOneKeyAtOnceReviseItOnce(_ kind: StorageKind) async throws {
        try await kind.with(count: 2) { storages in
            _ = try await storages[0].insertAndRevise(inserting: [insertion(1)], revising: [])
            let outcomes = await withTaskGroup(of: Bool.self) { group in
                for attempt in 0..<8 {
                    let storage = storages[attempt % 2]
                    let revision = ENKeyServerRevision(
                        keyData: keyData(1), reportType: .confirmedTest, daysSinceOnsetOfSymptoms: attempt,
                        revisedAt: referenceDate.addingTimeInterval(60))
                    group.addTask {
                        do {
                            _ = try await storage.insertAndRevise(
                                inserting: [
                                    ENKeyServerInsertion(key: self.key(200 + attempt), exportableAt: referenceDate)
                                ],
                                revising: [revision])
                            return true
                        } catch {
                            return false
                        }
                    }
                }
                var results: [Bool] = []
                for await outcome in group { results.append(outcome) }
                return results
            }
            #expect(outcomes.filter { $0 }.count == 1)
            // Only the winner's own key was stored with it.
            let others = try await storages[0].storedKeys(withKeyData: (0..<8).map { keyData(200 + $0) })
            #expect(others.count == 1)
        }
    }

    @Test(arguments: StorageKind.available)
    func theExporterPublishesServesAndListsFiles(_ kind: StorageKind) async throws {
        let clock = TestClock()
        let signingKey = try P256SigningKey()
        try await kind.with(clock: clock) { storages in
            let exporter = ENKeyServerExporter(
                storage: storages[0], configuration: configuration(signingKey), clock: { clock.now })
            #expect(try await exporter.publish().isEmpty)
            _ = try await storages[0].insertAndRevise(
                inserting: [insertion(1, at: clock.now), insertion(2, at: clock.now)], revising: [])
            clock.advance(by: 60)
            let first = try await exporter.publish()
            #expect(first.count == 1)
            #expect(first.map(\.index) == [0])
            #expect(try sorted(contents(of: first[0]).keys) == sorted([key(1), key(2)]))
            #expect(try await exporter.publish().isEmpty)

            // A revision goes into the next batch as a revised key; a new key with it.
            clock.advance(by: 60)
            let revision = ENKeyServerRevision(
                keyData: keyData(1), reportType: .confirmedTest, daysSinceOnsetOfSymptoms: 3, revisedAt: clock.now)
            _ = try await storages[0].insertAndRevise(inserting: [insertion(3, at: clock.now)], revising: [revision])
            clock.advance(by: 60)
            let second = try await exporter.publish()
            #expect(second.map(\.index) == [1])
            let read = try contents(of: second[0])
            #expect(read.keys == [key(3)])
            var revised = key(1)
            revised.diagnosisReportType = .confirmedTest
            revised.daysSinceOnsetOfSymptoms = 3
            #expect(read.revised == [revised])

            // Served by name, the same bytes; listed in index.txt in byte order.
            for file in first + second {
                #expect(try await exporter.file(named: file.name)?.data == file.data)
                #expect(try verifier(signingKey).verify(ENExportArchive(data: file.data)).isVerified)
            }
            #expect(try await exporter.file(named: "0-1-00001.zip") == nil)
            #expect(try await exporter.indexText() == (first + second).map(\.name).sorted().joined(separator: "\n"))
        }
    }

    @Test(arguments: StorageKind.available)
    func periodicBatchesAreCutAsGoogleCutsThem(_ kind: StorageKind) async throws {
        let clock = TestClock(dayTime(1.5 * 3600))
        let signingKey = try P256SigningKey()
        try await kind.with(clock: clock) { storages in
            let exporter = ENKeyServerExporter(
                storage: storages[0], configuration: configuration(signingKey, period: 4 * 3600),
                clock: { clock.now })
            let hour = { Date(timeIntervalSince1970: (clock.now.timeIntervalSince1970 / 3600).rounded(.down) * 3600) }
            _ = try await storages[0].insertAndRevise(
                inserting: [ENKeyServerInsertion(key: key(1), exportableAt: hour())], revising: [])
            clock.advance(by: 2.5 * 3600)  // 04:00: the next batch's
            _ = try await storages[0].insertAndRevise(
                inserting: [ENKeyServerInsertion(key: key(2), exportableAt: hour())], revising: [])
            clock.advance(by: 1.5 * 3600)  // 05:30: the first run makes only 20:00-00:00 of the day before
            #expect(try await exporter.publish().isEmpty)
            clock.advance(by: 1800)  // 06:00: 00:00-04:00 is due
            let first = try await exporter.publish()
            #expect(first.map(\.name) == ["\(dayStart)-\(dayStart + 14_400)-00001.zip"])
            #expect(try contents(of: first[0]).keys == [key(1)])
            clock.advance(by: 8 * 3600)  // 14:00: 04:00-08:00 (key 2) and 08:00-12:00 (empty: no file)
            let later = try await exporter.publish()
            #expect(later.map(\.name) == ["\(dayStart + 14_400)-\(dayStart + 28_800)-00001.zip"])
            #expect(try contents(of: later[0]).keys == [key(2)])
        }
    }

    @Test(arguments: StorageKind.available)
    func aLeaseIsExclusiveUntilItExpires(_ kind: StorageKind) async throws {
        let clock = TestClock()
        let signingKey = try P256SigningKey()
        try await kind.with(count: 2, clock: clock) { storages in
            let settings = configuration(signingKey)
            _ = try await storages[0].insertAndRevise(inserting: [insertion(1, at: clock.now)], revising: [])
            clock.advance(by: 1)
            let a = try #require(try await storages[0].claimExportBatch(settings, owner: "a", at: clock.now))
            #expect(try await storages[1].claimExportBatch(settings, owner: "b", at: clock.now) == nil)
            let readByA = try await storages[0].exportBatchContents(a)
            #expect(readByA.keys == [key(1)])
            clock.advance(by: settings.exportLeaseDuration)
            let b = try #require(try await storages[1].claimExportBatch(settings, owner: "b", at: clock.now))
            #expect(b.batchIndex == a.batchIndex)
            let error = await #expect(throws: ENError.self) {
                try await storages[0].completeExportBatch(
                    a, files: [Data([1])], paddingKeys: [], contents: readByA, at: clock.now)
            }
            #expect(error?.code == .invalidated)
            let readByB = try await storages[1].exportBatchContents(b)
            let files = try await storages[1].completeExportBatch(
                b, files: [Data([2])], paddingKeys: [], contents: readByB, at: clock.now)
            #expect(files.map(\.data) == [Data([2])])
            #expect(try await storages[0].exportFile(named: files[0].name)?.data == Data([2]))
            // Released leases are claimable at once; a completed batch never again.
            #expect(try await storages[0].claimExportBatch(settings, owner: "a", at: clock.now) == nil)
        }
    }

    @Test(arguments: StorageKind.available)
    func twoExportersOnOneDatabaseNeverExportABatchTwice(_ kind: StorageKind) async throws {
        let clock = TestClock(dayTime(-2 * 86_400))
        let signingKey = try P256SigningKey()
        try await kind.with(count: 2, clock: clock) { storages in
            let exporters = storages.map { storage in
                ENKeyServerExporter(
                    storage: storage, configuration: configuration(signingKey, period: 3600), clock: { clock.now })
            }
            clock.advance(by: 3 * 3600)
            _ = try await exporters[0].publish()
            var posted: [ENTemporaryExposureKey] = []
            for hour in 0..<40 {
                let arrival = Date(
                    timeIntervalSince1970: (clock.now.timeIntervalSince1970 / 3600).rounded(.down) * 3600)
                _ = try await storages[hour % 2].insertAndRevise(
                    inserting: [ENKeyServerInsertion(key: key(hour + 1), exportableAt: arrival)], revising: [])
                posted.append(key(hour + 1))
                clock.advance(by: 3600)
            }
            clock.advance(by: 3 * 3600)
            async let first = exporters[0].publish()
            async let second = exporters[1].publish()
            let files = try await first + second
            #expect(Set(files.map(\.name)).count == files.count)
            #expect(Set(files.map(\.index)).count == files.count)
            #expect(Set(files.map(\.index)) == Set(0..<files.count))
            let exported = try files.flatMap { try contents(of: $0).keys }
            #expect(sorted(exported) == sorted(posted))
        }
    }

    @Test(arguments: StorageKind.available)
    func aRevisionWrittenAfterABatchWasReadWaitsForTheNextBatch(_ kind: StorageKind) async throws {
        let clock = TestClock()
        let signingKey = try P256SigningKey()
        try await kind.with(clock: clock) { storages in
            let storage = storages[0]
            let settings = configuration(signingKey)
            _ = try await storage.insertAndRevise(inserting: [insertion(1, at: clock.now)], revising: [])
            clock.advance(by: 1)
            _ = try await ENKeyServerExporter(storage: storage, configuration: settings, clock: { clock.now }).publish()
            // A publish dated before the next claim commits its revision only after the batch was read.
            let dated = clock.now.addingTimeInterval(10)
            clock.advance(by: 20)
            _ = try await storage.insertAndRevise(inserting: [insertion(2, at: dated)], revising: [])
            let lease = try #require(try await storage.claimExportBatch(settings, owner: "x", at: clock.now))
            let read = try await storage.exportBatchContents(lease)
            #expect(read.keys == [key(2)] && read.revisedKeys.isEmpty)
            let revision = ENKeyServerRevision(
                keyData: keyData(1), reportType: .confirmedTest, daysSinceOnsetOfSymptoms: 2, revisedAt: dated)
            _ = try await storage.insertAndRevise(inserting: [], revising: [revision])
            _ = try await storage.completeExportBatch(lease, files: [], paddingKeys: [], contents: read, at: clock.now)
            // The revision was not marked exported with a batch that did not carry it.
            clock.advance(by: 1)
            let next = try await ENKeyServerExporter(storage: storage, configuration: settings, clock: { clock.now })
                .publish()
            #expect(try next.flatMap { try contents(of: $0).revised }.map(\.keyData) == [keyData(1)])
        }
    }

    @Test(arguments: StorageKind.available)
    func aKeyRevisedInsideItsFirstBatchWindowIsExportedInItsKeysAndRevisedKeys(_ kind: StorageKind) async throws {
        // Google selects revised keys by `revised_at` alone (`internal/publish/database/exposure.go`,
        // `IterateExposures`), so the batch that carries a key carries its revision too: the key with its
        // original report type in `keys`, the revision in `revised_keys`.
        let clock = TestClock()
        try await kind.with(clock: clock) { storages in
            let signingKey = try P256SigningKey()
            let server = ENDiagnosisKeyServer(
                storage: storages[0], configuration: configuration(signingKey), clock: { clock.now })
            let original = key(1, start: today.adding(-144))
            var revision = original
            revision.diagnosisReportType = .confirmedTest
            revision.daysSinceOnsetOfSymptoms = 2
            #expect(try await server.postDiagnosisKeys([original]) == ENKeyServerPostResult(accepted: 1))
            clock.advance(by: 600)
            #expect(try await server.postDiagnosisKeys([revision]) == ENKeyServerPostResult(revised: 1))
            #expect(try await server.postDiagnosisKeys([revision]) == ENKeyServerPostResult(duplicates: 1))
            let files = try await server.publish()
            #expect(files.count == 1)
            let export = try ENExportArchive(data: try #require(files.first).data)
            #expect(try verifier(signingKey).verify(export).isVerified)
            let scanner = try export.keyScanner()
            #expect(try scanner.allKeys(in: .keys) == [original])
            #expect(try scanner.allKeys(in: .revisedKeys) == [revision])
            #expect(try await server.publish().isEmpty)
            let stored = try await storages[0].storedKeys(withKeyData: [original.keyData])
            #expect(stored.first?.revision?.reportType == .confirmedTest)
        }
    }

    @Test(arguments: StorageKind.available)
    func retentionDropsOldKeysAndFilesButNeverReusesAnIndex(_ kind: StorageKind) async throws {
        let clock = TestClock()
        let signingKey = try P256SigningKey()
        try await kind.with(clock: clock) { storages in
            let storage = storages[0]
            let exporter = ENKeyServerExporter(
                storage: storage, configuration: configuration(signingKey), clock: { clock.now })
            _ = try await storage.insertAndRevise(inserting: [insertion(1, at: clock.now)], revising: [])
            clock.advance(by: 1)
            let old = try await exporter.publish()
            clock.advance(by: 15 * 86_400)
            _ = try await storage.insertAndRevise(inserting: [insertion(2, at: clock.now)], revising: [])
            #expect(try await exporter.deleteExpired() == 1)
            #expect(try await exporter.file(named: old[0].name) == nil)
            #expect(try await storage.exportFile(named: old[0].name) == nil)
            #expect(try await storage.storedKeys(withKeyData: [keyData(1), keyData(2)]).map(\.key) == [key(2)])
            clock.advance(by: 1)
            let new = try await exporter.publish()
            #expect(new.map(\.index) == [1])
            #expect(try await exporter.indexText() == new[0].name)
        }
    }

    @Test(.enabled(if: StorageKind.available.count > 1))
    func bothStoragesPublishTheSameFilesForTheSameRequests() async throws {
        let signingKey = try P256SigningKey()
        var results: [[String: [ENTemporaryExposureKey]]] = []
        for kind in StorageKind.allCases {
            let clock = TestClock(dayTime(-86_400))
            results.append(
                try await kind.with(clock: clock) { storages in
                    let exporter = ENKeyServerExporter(
                        storage: storages[0], configuration: configuration(signingKey, period: 4 * 3600),
                        clock: { clock.now })
                    _ = try await exporter.publish()
                    for hour in 0..<30 {
                        let arrival = Date(
                            timeIntervalSince1970: (clock.now.timeIntervalSince1970 / 3600).rounded(.down) * 3600)
                        let keys = (0..<(hour % 4)).map {
                            ENKeyServerInsertion(key: key(hour * 10 + $0), exportableAt: arrival)
                        }
                        var revisions: [ENKeyServerRevision] = []
                        if hour > 8, hour % 3 == 0 {
                            revisions.append(
                                ENKeyServerRevision(
                                    keyData: keyData((hour - 8) * 10), reportType: .confirmedTest,
                                    daysSinceOnsetOfSymptoms: hour % 14, revisedAt: clock.now))
                        }
                        _ = try? await storages[0].insertAndRevise(inserting: keys, revising: revisions)
                        clock.advance(by: 3600)
                    }
                    clock.advance(by: 6 * 3600)
                    var files: [String: [ENTemporaryExposureKey]] = [:]
                    for file in try await exporter.publish() {
                        let read = try contents(of: file)
                        files[file.name] = sorted(read.keys) + sorted(read.revised)
                    }
                    return files
                })
        }
        #expect(results[0].count > 3)
        #expect(results[0] == results[1])
    }

    private func verifier(_ signingKey: P256SigningKey) throws -> ENExportVerifier {
        ENExportVerifier(trustedKeys: [
            ENExportVerificationKey(keyID: "310", keyVersion: "v1", publicKey: try signingKey.publicKey)
        ])
    }
}
