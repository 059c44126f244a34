import ENCore
import ENRiskV1
import ENRiskV2
import ENSimulator
import ENStore
import ENTestSupport
import Foundation
import Testing

@Suite("ENSimulation end to end")
struct SimulationTests {
    /// The story's day 0 at midnight UTC (2020-04-01).
    let day0 = Date(timeIntervalSince1970: 1_585_699_200)

    /// The weighted seconds of a window computed by hand from its scan instances with the default
    /// configuration: thresholds 55/63/70 dB, weights 100/100/50/0 %.
    func weightedSeconds(_ window: ENExposureWindow) -> Double {
        window.scanInstances.reduce(0) { sum, scan in
            let weight: Double =
                switch scan.typicalAttenuation {
                case ...55: 1
                case ...63: 1
                case ...70: 0.5
                default: 0
                }
            return sum + Double(scan.secondsSinceLastScan) * weight
        }
    }

    @Test("three devices: B (20 minutes near A) is notified with the expected window and score; C is not")
    func sampleStory() async throws {
        let report = try await ENSimulation(scenario: .sampleStory()).run()
        let (a, b, c) = (report.devices[0], report.devices[1], report.devices[2])
        #expect(report.notifiedDevices == ["B"])
        #expect(a.keysShared > 0 && !a.notified)
        #expect(report.keysAccepted == a.keysShared)
        #expect(report.filesPublished == 1)

        // B: one window on the day of the encounter, one scan instance per sighting, a confirmed test.
        #expect(b.notifiedOnDay == 2)
        #expect(b.windows.count == 1)
        let window = try #require(b.windows.first)
        #expect(window.date == day0)
        #expect(window.diagnosisReportType == .confirmedTest)
        #expect(window.infectiousness == .standard)
        #expect(window.scanInstances.count == b.sightings)
        #expect(window.scanInstances.allSatisfy { (1...300).contains($0.secondsSinceLastScan) })
        // 1.5 m: median attenuation about 51 dB, within the noise's reach.
        #expect(window.scanInstances.allSatisfy { (35...70).contains($0.typicalAttenuation) })
        let seconds = weightedSeconds(window)
        #expect(abs(b.weightedMinutes * 60 - seconds) < 0.001)
        #expect(abs(b.score - seconds) < 0.001)  // infectiousness and report type weigh 100 %
        #expect(b.weightedMinutes >= 10)

        // C: the brief pass is below the threshold; the long meeting on day 4 used a key A never shared.
        #expect(!c.notified)
        #expect(c.windows.allSatisfy { $0.date == day0 })
        #expect(c.weightedMinutes < 10)
        #expect(c.sightings > b.sightings)  // C heard A on day 4 more often than B did on day 0
    }

    @Test("sharing the same keys twice publishes them once; a second detection processes only new files")
    func duplicateSharingAndIncrementalDetection() async throws {
        var scenario = ENScenario.sampleStory()
        scenario.diagnoses.append(.init(device: "A", day: 2, minute: 10 * 60, sharing: .direct))
        scenario.diagnoses.append(.init(device: "C", day: 3, minute: 9 * 60, sharing: .preAuthorized))
        let events = EventLog()
        let report = try await ENSimulation(scenario: scenario).run { events.append($0) }
        let shared = events.shared
        try #require(shared.count == 3)
        // A's second post repeats every key of the first (stored once) and adds only the key made since.
        #expect(shared[0].accepted == shared[0].keys && shared[0].duplicates == 0)
        #expect(shared[1].duplicates == shared[0].keys)
        #expect(shared[1].accepted == shared[1].keys - shared[0].keys)
        #expect(shared[1].accepted <= 1)
        #expect(report.keysAccepted == shared.map(\.accepted).reduce(0, +))
        #expect(report.duplicateKeys == shared[0].keys)
        #expect(report.filesPublished == 2)  // day 2 (A once), day 3 (C, pre-authorized)
        for device in report.devices {
            #expect(device.detections == scenario.days)
            #expect(device.filesProcessed == 2, "\(device.name) processed files again")
        }
        // A met C on days 0 and 4; C's key of day 0 is published: A's exposure to C is the brief pass.
        #expect(!report.devices[0].notified)
    }

    @Test("the version 1 path gives B the exposure information of its encounter")
    func versionOne() async throws {
        var scenario = ENScenario.sampleStory()
        scenario.devices[1].apiVersion = 1
        let report = try await ENSimulation(scenario: scenario).run()
        let b = report.devices[1]
        #expect(b.windows.isEmpty)
        #expect(b.exposureInfo.count == 1)
        let info = try #require(b.exposureInfo.first)
        #expect(info.date == day0)
        #expect(info.transmissionRiskLevel == 4)
        #expect(info.diagnosisReportType == .confirmedTest)
        // Symptoms 2 days before the result on day 2: day 0's key is the day of onset.
        #expect(info.daysSinceOnsetOfSymptoms == 0)
        // Apple reports durations in 5-minute steps, at most 30 minutes.
        #expect(info.duration.truncatingRemainder(dividingBy: 300) == 0)
        #expect((300...1800).contains(info.duration))
        #expect(info.attenuationDurations.count == 4)  // three thresholds, four buckets
        #expect(info.totalRiskScore > 0)
        #expect(Double(info.totalRiskScore) == min(255, info.totalRiskScoreFullRange))
        #expect(b.notified)
        #expect(!report.devices[2].notified)
    }

    @Test("the same seed gives the same report; the scenario's JSON round-trips")
    func determinism() async throws {
        let town = ENScenario.randomTown(devices: 12, days: 3, seed: 7)
        let first = try await ENSimulation(scenario: town).run()
        let second = try await ENSimulation(scenario: town).run()
        #expect(first == second)
        #expect(first.devices.map(\.sightings).reduce(0, +) > 0)
        let reloaded = try ENScenario(json: town.jsonData())
        #expect(reloaded == town)
        let story = try await ENSimulation(scenario: .sampleStory()).run()
        #expect(try await ENSimulation(scenario: .sampleStory()).run() == story)
        let other = try await ENSimulation(scenario: .sampleStory(seed: 99)).run()
        #expect(other.devices.map(\.windows) != story.devices.map(\.windows))
    }

    @Test("the report does not depend on how many devices detect at once; events stay in device order")
    func concurrency() async throws {
        let town = ENScenario.randomTown(devices: 16, days: 4, seed: 11)
        let order = Locked<[[String]]>([])
        let serial = try await ENSimulation(scenario: town, concurrentDetections: 1).run()
        let parallel = try await ENSimulation(scenario: town, concurrentDetections: 4).run { event in
            guard case .detected(let device, _, _, _, _, _) = event else { return }
            order.withLock { days in
                if days.last?.count ?? town.devices.count == town.devices.count { days.append([]) }
                days[days.count - 1].append(device)
            }
        }
        #expect(serial == parallel)
        #expect(serial.devices.allSatisfy { $0.detections == town.days })
        #expect(serial.devices.contains { !$0.windows.isEmpty })
        #expect(order.withLock { $0 } == Array(repeating: town.devices.map(\.name), count: town.days))
        #expect(throws: ENError(.badParameter)) { try ENSimulation(scenario: town, concurrentDetections: 0) }
    }

    @Test("a directory run on one thread gives the report of an in-memory run on two; its snapshots are the stores")
    func directoryRunMatchesMemory() async throws {
        let directory = try TemporaryDirectory(prefix: "ENSimulationTests")
        defer { directory.cleanUp() }
        let town = ENScenario.randomTown(devices: 24, days: 3, seed: 7)
        let stored = try await ENSimulation(
            scenario: town, storage: .directory(directory.url), concurrentDetections: 1
        ).run()
        let memory = try await ENSimulation(scenario: town, concurrentDetections: 2).run()
        #expect(stored == memory)
        #expect(memory.devices.contains { !$0.windows.isEmpty })
        let snapshots = directory.url.appendingPathComponent("day-0002/devices")
        let names = try FileManager.default.contentsOfDirectory(atPath: snapshots.path)
        #expect(Set(names) == Set(town.devices.map { $0.name + ".sqlite" }))
        let store = try ENDeviceStore(
            inMemoryCopyOf: snapshots.appendingPathComponent("D1.sqlite").path,
            configuration: ENStoreConfiguration(deletesExpiredRecordsOnOpen: false))
        let keys = try await store.read(.ownKeys)
        let sightings = try await store.read(.sightings(from: .distantPast))
        #expect(!keys.isEmpty)
        #expect(sightings.count == memory.devices[0].sightings)
        #expect(throws: ENError(.dataInaccessible)) {
            try store.writeSnapshot(to: snapshots.appendingPathComponent("D1.sqlite").path)
        }
    }

    @Test("a directory run keeps a checkpoint per day and a second run on it resumes, with the same report")
    func directoryRunResumes() async throws {
        let directory = try TemporaryDirectory(prefix: "ENSimulationTests")
        defer { directory.cleanUp() }
        var short = ENScenario.sampleStory()
        short.days = 3
        short.encounters.removeAll { $0.day >= 3 }
        let partial = try await ENSimulation(scenario: short, storage: .directory(directory.url)).run()
        #expect(partial.daysCompleted == 3)
        let contents = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(contents.contains("day-0002") && !contents.contains("day-0001"))
        let events = EventLog()
        let resumed = try await ENSimulation(scenario: .sampleStory(), storage: .directory(directory.url)).run {
            events.append($0)
        }
        let memory = try await ENSimulation(scenario: .sampleStory()).run()
        #expect(events.startedDays == [3, 4])
        #expect(resumed.notifiedDevices == memory.notifiedDevices)
        #expect(resumed.devices.map(\.sightings) == memory.devices.map(\.sightings))
        #expect(resumed.devices.map(\.windows) == memory.devices.map(\.windows))
    }
}

/// Collects simulation events.
final class EventLog: Sendable {
    private let events = Locked<[ENSimulationEvent]>([])
    func append(_ event: ENSimulationEvent) { events.withLock { $0.append(event) } }
    var shared: [(keys: Int, accepted: Int, duplicates: Int)] {
        events.withLock { events in
            events.compactMap {
                if case .shared(_, _, let keys, let accepted, let duplicates) = $0 {
                    (keys, accepted, duplicates)
                } else {
                    nil
                }
            }
        }
    }
    var startedDays: [Int] {
        events.withLock { events in
            events.compactMap { if case .dayStarted(let day, _, _, _) = $0 { day } else { nil } }
        }
    }
}
