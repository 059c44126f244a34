import ENCore
import ENSimulator
import ENTestSupport
import ExposureNotificationKit
import Foundation
import Testing

/// `ENExposureDetectionSession`'s results: sightings heard through the manager's radio, keys made with ENCrypto.
@Suite("ENExposureDetectionSession: detection")
struct SessionDetectionTests {
    /// Two encounters on the test day (20 minutes at 60 dB, 5 minutes at 80 dB), one 15 days ago (beyond the
    /// retention period) and a key never seen.
    struct Scenario {
        let near: ENTemporaryExposureKey
        let far: ENTemporaryExposureKey
        let old: ENTemporaryExposureKey
        let unseen: ENTemporaryExposureKey

        init(device: SessionDevice) async throws {
            near = try Encounter.key(transmissionRiskLevel: 0)
            far = try Encounter.key(transmissionRiskLevel: 0)
            old = try Encounter.key(day: -15)
            unseen = try Encounter.key()
            device.hear(
                try Encounter.sightings(of: near, from: Encounter.time(hour: 8), minutes: 20, rssi: -60)
                    + Encounter.sightings(of: far, from: Encounter.time(hour: 9), minutes: 5, rssi: -80)
                    + Encounter.sightings(of: old, from: Encounter.time(hour: 8, days: -15), minutes: 20, rssi: -60))
        }
    }

    @Test("a 20-minute and a 5-minute encounter give Apple's version 1 infos and summary")
    func encounters() async throws {
        let device = try await SessionDevice()
        defer { device.cleanUp() }
        let scenario = try await Scenario(device: device)
        let (summary, infos) = try await device.detect([[scenario.unseen, scenario.near, scenario.old, scenario.far]])
        // Worked by hand from Apple's tables, default configuration (level values 1...8, weights 1):
        // near: attenuation 0 - (-60) = 60 dB, level value 3 (bucket (51, 63]); 20 scans: 120 s for the first,
        // 60 s each after = 1260 s = 21 min, level 6 (<= 25 min); today, level 8; risk level 0, level 1.
        // far: 80 dB, level 1 (> 73); 5 scans = 360 s = 6 min, level 3 (<= 10 min); 8; 1.
        #expect(infos.count == 2)
        let near = try #require(infos.first)
        #expect(near.date == Encounter.dayStart.date)
        #expect(near.duration == 1260)
        #expect(near.attenuationValue == 3)
        #expect(near.totalRiskScoreFullRange == 3 * 6 * 8 * 1)
        #expect(near.totalRiskScore == 144)
        #expect(near.transmissionRiskLevel == 0)
        // Thresholds [50, 70, 90]: 60 dB is in (50, 70].
        #expect(near.attenuationDurations == [0, 1260, 0, 0])
        let far = try #require(infos.last)
        #expect(far.duration == 360)
        #expect(far.attenuationValue == 1)
        #expect(far.totalRiskScore == 1 * 3 * 8 * 1)
        #expect(far.attenuationDurations == [0, 0, 360, 0])
        #expect(summary.matchedKeyCount == 2)
        #expect(summary.daysSinceLastExposure == 0)
        #expect(summary.maximumRiskScore == 144)
        #expect(summary.maximumRiskScoreFullRange == 144)
        #expect(summary.riskScoreSumFullRange == 144 + 24)
        #expect(summary.attenuationDurations == [0, 1260, 360, 0])
    }

    @Test("the configuration's minimum risk score drops infos, not matched keys")
    func minimumRiskScore() async throws {
        let device = try await SessionDevice()
        defer { device.cleanUp() }
        let scenario = try await Scenario(device: device)
        var configuration = ENExposureConfiguration()
        configuration.minimumRiskScore = 100
        let (summary, infos) = try await device.detect([[scenario.near, scenario.far]], configuration: configuration)
        #expect(infos.map(\.totalRiskScore) == [144])
        #expect(summary.matchedKeyCount == 2)
        #expect(summary.riskScoreSumFullRange == 144)
    }

    @Test("the configuration in force is the one set before activate")
    func configurationTakenAtActivation() async throws {
        let device = try await SessionDevice()
        defer { device.cleanUp() }
        let scenario = try await Scenario(device: device)
        let session = device.session()
        try await session.activate()
        session.configuration.minimumRiskScore = 255
        #expect(session.configuration.minimumRiskScore == 255)
        try await session.addDiagnosisKeys([scenario.near, scenario.far])
        let summary = try await session.finishedDiagnosisKeys()
        #expect(summary.maximumRiskScore == 144)
        #expect(try await session.getExposureInfo(withMaximumCount: 10).exposureInfo.count == 2)
        session.invalidate()
    }

    @Test(
        "batches split at arbitrary points give the infos and summary of one batch", arguments: [1, 2, 3] as [UInt64])
    func batchesSplitAnywhere(seed: UInt64) async throws {
        let device = try await SessionDevice()
        defer { device.cleanUp() }
        var generator = SeededRandomNumberGenerator(seed: seed)
        // Six encounters of different lengths, strengths and risk levels, 40 keys never seen, two of the seen
        // keys again with another risk level, and a revocation of a third.
        var seen: [ENTemporaryExposureKey] = []
        var sightings: [ENSighting] = []
        for index in 0..<6 {
            let key = try Encounter.key(transmissionRiskLevel: ENRiskLevel(index % 3))
            seen.append(key)
            sightings += try Encounter.sightings(
                of: key, from: Encounter.time(hour: index, minute: 7 * index), minutes: 3 + 4 * index,
                rssi: Int8(-45 - 7 * index))
        }
        device.hear(sightings)
        var keys = seen + (try (0..<40).map { _ in try Encounter.key() })
        for index in [1, 4] {
            var again = seen[index]
            again.transmissionRiskLevel = 7
            keys.append(again)
        }
        var revocation = seen[2]
        revocation.diagnosisReportType = .revoked
        keys.append(revocation)
        keys.shuffle(using: &generator)

        let whole = try await device.detect([keys])
        // What the rules say, from the shuffled order: every seen key but the revoked one, with the risk level of
        // its first occurrence, in the order of first occurrences.
        var firstLevels: [Data: ENRiskLevel] = [:]
        var order: [Data] = []
        for key in keys where firstLevels[key.keyData] == nil {
            firstLevels[key.keyData] = key.transmissionRiskLevel
            order.append(key.keyData)
        }
        let expected = order.filter { data in seen.contains { $0.keyData == data } && data != revocation.keyData }
        #expect(whole.infos.count == 5)
        #expect(whole.summary.matchedKeyCount == 5)
        #expect(whole.infos.map(\.transmissionRiskLevel) == expected.map { firstLevels[$0]! })

        for _ in 0..<3 {
            var batches: [[ENTemporaryExposureKey]] = []
            var rest = keys[...]
            while !rest.isEmpty {
                let size = Int.random(in: 1...9, using: &generator)
                batches.append(Array(rest.prefix(size)))
                rest = rest.dropFirst(size)
            }
            let split = try await device.detect(batches, pageSize: Int.random(in: 1...4, using: &generator))
            #expect(split.infos == whole.infos, "batches of \(batches.map(\.count))")
            #expect(split.summary == whole.summary, "batches of \(batches.map(\.count))")
        }
    }

    @Test("the same key data in a later batch counts once: the first occurrence wins")
    func duplicatesAcrossBatches() async throws {
        let device = try await SessionDevice()
        defer { device.cleanUp() }
        let scenario = try await Scenario(device: device)
        var again = scenario.near
        again.transmissionRiskLevel = 7
        let (summary, infos) = try await device.detect([[scenario.near], [scenario.unseen], [again, scenario.far]])
        #expect(infos.map(\.transmissionRiskLevel) == [0, 0])
        #expect(infos.map(\.totalRiskScore) == [144, 24])
        #expect(summary.matchedKeyCount == 2)
        // And the other way round: the later batch's copy is the one dropped.
        let reversed = try await device.detect([[again], [scenario.near, scenario.far]])
        #expect(reversed.infos.map(\.transmissionRiskLevel) == [7, 0])
        #expect(reversed.summary.matchedKeyCount == 2)
    }

    @Test("a revoked key cancels the same key data of an earlier batch and of a later one")
    func revocationAcrossBatches() async throws {
        let device = try await SessionDevice()
        defer { device.cleanUp() }
        let scenario = try await Scenario(device: device)
        var revokedNear = scenario.near
        revokedNear.diagnosisReportType = .revoked
        var revokedFar = scenario.far
        revokedFar.diagnosisReportType = .revoked
        let (summary, infos) = try await device.detect([
            [scenario.near], [scenario.unseen], [revokedNear, revokedFar], [scenario.far],
        ])
        #expect(infos.isEmpty)
        #expect(summary.matchedKeyCount == 0)
        #expect(summary.maximumRiskScore == 0)
        // Without the revocations both match.
        #expect(try await device.detect([[scenario.near], [scenario.far]]).infos.count == 2)
    }

    @Test("getExposureInfo pages through the infos; done with the last page and after it")
    func paging() async throws {
        let device = try await SessionDevice()
        defer { device.cleanUp() }
        let keys = try (0..<5).map { _ in try Encounter.key() }
        var sightings: [ENSighting] = []
        for (index, key) in keys.enumerated() {
            sightings += try Encounter.sightings(
                of: key, from: Encounter.time(hour: 2 + index), minutes: 10 + index, rssi: -60)
        }
        device.hear(sightings)

        for (pageSize, expectedPages) in [(2, [2, 2, 1]), (5, [5]), (1, [1, 1, 1, 1, 1]), (100, [5])] {
            let session = device.session()
            try await session.activate()
            try await session.addDiagnosisKeys(keys)
            _ = try await session.finishedDiagnosisKeys()
            var pages: [[ENExposureInfo]] = []
            var doneFlags: [Bool] = []
            while doneFlags.last != true {
                let page = try await session.getExposureInfo(withMaximumCount: pageSize)
                pages.append(page.exposureInfo)
                doneFlags.append(page.done)
            }
            #expect(pages.map(\.count) == expectedPages, "pages of \(pageSize)")
            #expect(doneFlags == Array(repeating: false, count: expectedPages.count - 1) + [true])
            // One info per encounter, in the order the keys were added: durations 10...14 minutes plus the first
            // scan's extra minute.
            let durations: [TimeInterval] = [660, 720, 780, 840, 900]
            #expect(pages.flatMap { $0 }.map(\.duration) == durations)
            // After the last page: no infos, done.
            let after = try await session.getExposureInfo(withMaximumCount: pageSize)
            #expect(after.exposureInfo.isEmpty && after.done)
            session.invalidate()
        }

        // No match at all: the first page is empty and done.
        let session = device.session()
        try await session.activate()
        try await session.addDiagnosisKeys([try Encounter.key()])
        let summary = try await session.finishedDiagnosisKeys()
        #expect(summary.matchedKeyCount == 0)
        let page = try await session.getExposureInfo(withMaximumCount: 10)
        #expect(page.exposureInfo.isEmpty && page.done)
        session.invalidate()
    }

    @Test("keys the matcher ignores are accepted and never match; an empty batch is accepted")
    func ignoredKeys() async throws {
        let device = try await SessionDevice()
        defer { device.cleanUp() }
        let scenario = try await Scenario(device: device)
        var noPeriod = scenario.near
        noPeriod.rollingPeriod = 0
        var shortData = scenario.far
        shortData.keyData = Data(shortData.keyData.prefix(15))
        let (summary, infos) = try await device.detect([[], [noPeriod, shortData], []])
        #expect(infos.isEmpty)
        #expect(summary.matchedKeyCount == 0)
    }

    @Test("Apple's sample flow, completion handlers only, handlers on the dispatch queue")
    func sampleFlow() async throws {
        let device = try await SessionDevice()
        defer { device.cleanUp() }
        let scenario = try await Scenario(device: device)
        let keys =
            [scenario.unseen, scenario.near] + (try (0..<2_500).map { _ in try Encounter.key() }) + [scenario.far]
        let session = device.session()
        let log = HandlerLog()
        // The sample's code, with its server replaced by the array: activate, batches of maximumKeyCount,
        // finishedDiagnosisKeys, then getExposureInfo 100 at a time until done.
        let exposures: [ENExposureInfo] = try await withCheckedThrowingContinuation { continuation in
            let batchSize = session.maximumKeyCount
            var newExposures: [ENExposureInfo] = []
            func finish(_ error: (any Error)?) {
                if let error {
                    continuation.resume(throwing: error)
                } else {
                    continuation.resume(returning: newExposures)
                }
            }
            func getAllExposures() {
                session.getExposureInfo(withMaximumCount: 100) { newExposuresBatch, done, error in
                    if !SessionDevice.onHandlerQueue { log.append("off queue") }
                    if let error {
                        finish(error)
                        return
                    }
                    newExposures.append(contentsOf: newExposuresBatch!)
                    if done { finish(nil) } else { getAllExposures() }
                }
            }
            func checkExposure(index: Int) {
                guard index < keys.count else {
                    session.finishedDiagnosisKeys { summary, error in
                        if !SessionDevice.onHandlerQueue { log.append("off queue") }
                        if let error {
                            finish(error)
                            return
                        }
                        log.append("summary \(summary!.matchedKeyCount)")
                        getAllExposures()
                    }
                    return
                }
                let batch = Array(keys[index..<min(index + batchSize, keys.count)])
                session.addDiagnosisKeys(batch) { error in
                    if !SessionDevice.onHandlerQueue { log.append("off queue") }
                    log.append("batch \(batch.count)")
                    if let error { finish(error) } else { checkExposure(index: index + batch.count) }
                }
            }
            session.activate { error in
                if !SessionDevice.onHandlerQueue { log.append("off queue") }
                if let error {
                    finish(error)
                    return
                }
                checkExposure(index: 0)
            }
        }
        #expect(session.maximumKeyCount == 1000)
        #expect(log.all == ["batch 1000", "batch 1000", "batch 503", "summary 2"])
        #expect(exposures.map(\.totalRiskScore) == [144, 24])
        session.invalidate()
    }
}
