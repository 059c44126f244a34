internal import ENCore
internal import ENKeyServer
internal import ENRiskV1
internal import ENRiskV2
internal import ExposureNotificationKit
internal import Foundation

extension SimulationRunner {
    private enum Step {
        case encounter(Int, ENScenario.Encounter)
        case diagnosis(ENScenario.Diagnosis)
        case detection
    }

    /// Runs one day's script in time order: encounters, positive results, then publication and detection.
    func runDay(
        _ day: Int, devices: [SimulatedDevice], server: any SimulationKeyServer,
        checkpoint: inout SimulationCheckpoint, resumed: Bool = false,
        onEvent: @escaping @Sendable (ENSimulationEvent) -> Void
    ) async throws(ENError) {
        let started = ContinuousClock.now
        let midnight = dayStart(day)
        onEvent(.dayStarted(day: day, days: scenario.days, date: midnight, resumed: resumed))
        var steps: [(minute: Int, order: Int, step: Step)] = []
        for (index, encounter) in scenario.encounters.enumerated() where encounter.day == day {
            steps.append((encounter.minute, 0, .encounter(index, encounter)))
        }
        for diagnosis in scenario.diagnoses where diagnosis.day == day {
            steps.append((diagnosis.minute, 1, .diagnosis(diagnosis)))
        }
        steps.append((scenario.detectionMinute, 2, .detection))
        steps.sort { ($0.minute, $0.order) < ($1.minute, $1.order) }
        scheduler.advance(to: midnight)
        ether.transmitAll(at: midnight)
        let byName = Dictionary(uniqueKeysWithValues: devices.map { ($0.script.name, $0) })
        let position = Dictionary(uniqueKeysWithValues: scenario.devices.enumerated().map { ($1.name, $0) })

        var next = 0
        while next < steps.count {
            let (minute, _, step) = steps[next]
            next += 1
            switch step {
            case .encounter:
                // The encounters up to the next positive result or detection touch no key but the day's (made at
                // midnight): the ether runs them together, each device hearing its sightings in this order.
                var batch: [(minute: Int, encounter: ENScenario.Encounter, ether: EtherEncounter)] = []
                for (minute, _, step) in steps[(next - 1)...] {
                    guard case .encounter(let index, let encounter) = step else { break }
                    batch.append(
                        (
                            minute, encounter,
                            EtherEncounter(
                                first: encounter.devices[0], second: encounter.devices[1],
                                start: midnight + TimeInterval(minute * 60),
                                length: TimeInterval(encounter.minutes * 60), distance: encounter.distance,
                                random: ENSeededRandom(seed: scenario.seed, stream: [UInt64(day), UInt64(index)]))
                        ))
                }
                next += batch.count - 1
                scheduler.advance(to: midnight + TimeInterval(minute * 60))
                let heard = ether.encounters(batch.map(\.ether))
                scheduler.advance(to: midnight + TimeInterval(batch[batch.count - 1].minute * 60))
                for ((_, encounter, _), heard) in zip(batch, heard) {
                    let (first, second) = (encounter.devices[0], encounter.devices[1])
                    checkpoint.report.devices[position[first]!].sightings += heard.first
                    checkpoint.report.devices[position[second]!].sightings += heard.second
                    onEvent(
                        .encounter(
                            first: first, second: second, minutes: encounter.minutes, distance: encounter.distance,
                            heardByFirst: heard.first, heardBySecond: heard.second))
                }
                continue
            case .diagnosis, .detection:
                scheduler.advance(to: midnight + TimeInterval(minute * 60))
            }
            switch step {
            case .encounter:
                break
            case .diagnosis(let diagnosis):
                let device = byName[diagnosis.device]!
                let (keys, onsetDay) = try await sharedKeys(of: device, diagnosis: diagnosis)
                let result = try await server.post(keys, symptomOnsetDay: onsetDay)
                checkpoint.report.devices[position[diagnosis.device]!].keysShared += keys.count
                checkpoint.report.keysAccepted += result.accepted
                checkpoint.report.duplicateKeys += result.duplicates
                onEvent(
                    .shared(
                        device: diagnosis.device, sharing: diagnosis.sharing, keys: keys.count,
                        accepted: result.accepted, duplicates: result.duplicates))
            case .detection:
                let publishStart = ContinuousClock.now
                let published = try await server.publish()
                checkpoint.report.filesPublished += published.count
                onEvent(.published(files: published, elapsed: ContinuousClock.now - publishStart))
                // Each phone launches its app for the periodic run; the app's activity handler downloads the
                // files published since its last index and detects. Phones are independent: several run at once.
                let runs = try await periodicRuns(
                    of: devices, day: day, server: server, checkpoint: checkpoint, onEvent: onEvent)
                for (device, run) in zip(devices, runs) {
                    checkpoint.report.devices[position[device.script.name]!] = run.report
                    checkpoint.setCursor(run.cursor, of: device.script.name)
                }
            }
        }
        scheduler.advance(to: midnight + 86_400 - 1)
        checkpoint.report.daysCompleted = day + 1
        onEvent(.dayFinished(day: day, days: scenario.days, elapsed: ContinuousClock.now - started))
    }

    /// The periodic runs of every device, at most ``SimulationRunner/concurrentDetections`` at a time. Each run
    /// works on its own device's store and only reads the key server, so the results do not depend on how many
    /// run at once; `.detected` events are delivered in device order. On failure, the error of the first failing
    /// device (in device order) is thrown once the runs under way have finished.
    private func periodicRuns(
        of devices: [SimulatedDevice], day: Int, server: any SimulationKeyServer, checkpoint: SimulationCheckpoint,
        onEvent: @escaping @Sendable (ENSimulationEvent) -> Void
    ) async throws(ENError) -> [SimulatedDetection] {
        typealias Outcome = (index: Int, result: Result<SimulatedDetection, ENError>, elapsed: Duration)
        let position = Dictionary(uniqueKeysWithValues: scenario.devices.enumerated().map { ($1.name, $0) })
        let task = { (index: Int) -> @Sendable () async -> Outcome in
            let device = devices[index]
            let report = checkpoint.report.devices[position[device.script.name]!]
            let cursor = checkpoint.cursor(device.script.name)
            return {
                let start = ContinuousClock.now
                do throws(ENError) {
                    let run = try await self.periodicRun(
                        of: device, day: day, server: server, report: report, cursor: cursor)
                    return (index, .success(run), ContinuousClock.now - start)
                } catch {
                    return (index, .failure(error), ContinuousClock.now - start)
                }
            }
        }
        var results = [Outcome?](repeating: nil, count: devices.count)
        var firstFailure: (index: Int, error: ENError)?
        await withTaskGroup(of: Outcome.self) { group in
            var started = 0
            while started < min(concurrentDetections, devices.count) {
                group.addTask(operation: task(started))
                started += 1
            }
            var delivered = 0
            for await outcome in group {
                results[outcome.index] = outcome
                if case .failure(let error) = outcome.result, firstFailure.map({ outcome.index < $0.index }) ?? true {
                    firstFailure = (outcome.index, error)
                }
                if firstFailure == nil && started < devices.count {
                    group.addTask(operation: task(started))
                    started += 1
                }
                while firstFailure == nil, delivered < devices.count, let done = results[delivered],
                    case .success(let run) = done.result
                {
                    onEvent(
                        .detected(
                            device: devices[delivered].script.name, files: run.files, notified: run.report.notified,
                            weightedMinutes: run.report.weightedMinutes, score: run.report.score,
                            elapsed: done.elapsed))
                    delivered += 1
                }
            }
        }
        if let firstFailure { throw firstFailure.error }
        return results.map { outcome in
            guard case .success(let run)? = outcome?.result else { preconditionFailure("every run finished") }
            return run
        }
    }

    /// Launches `device`'s app with `.periodicRun` through its launcher and returns what its handler did: download
    /// the files published after `cursor`, detect, and update `report`.
    private func periodicRun(
        of device: SimulatedDevice, day: Int, server: any SimulationKeyServer, report: ENSimulationReport.Device,
        cursor: SimulationFileCursor
    ) async throws(ENError) -> SimulatedDetection {
        try await device.app.launch(by: device.launcher, queue: device.manager.dispatchQueue) {
            () async throws(ENError) -> SimulatedDetection in
            let (urls, next) = try await server.files(after: cursor, for: device.script.name)
            var report = report
            try await self.detect(device, files: urls, day: day, report: &report)
            return SimulatedDetection(report: report, cursor: next, files: urls.count)
        }
    }

    /// `results` in an order that depends on their values only: by date, then by their JSON encoding. The
    /// framework returns windows and infos in no documented order, and it may differ between runs of the same
    /// scenario; the report must not.
    static func canonicalOrder<Result: Encodable>(_ results: [Result], date: KeyPath<Result, Date>) -> [Result] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return results.map { ($0, (try? encoder.encode($0)) ?? Data()) }
            .sorted { first, second in
                let (firstDate, secondDate) = (first.0[keyPath: date], second.0[keyPath: date])
                if firstDate != secondDate { return firstDate < secondDate }
                return first.1.lexicographicallyPrecedes(second.1)
            }
            .map(\.0)
    }

    /// The keys a positive device releases, stamped as a health authority would: a confirmed test,
    /// transmission risk level 4 and the days since symptom onset of each key's day.
    private func sharedKeys(
        of device: SimulatedDevice, diagnosis: ENScenario.Diagnosis
    ) async throws(ENError) -> (keys: [ENTemporaryExposureKey], symptomOnsetDay: UInt32) {
        let keys: [ENTemporaryExposureKey]
        switch diagnosis.sharing {
        case .direct:
            keys = try await device.manager.getDiagnosisKeys()
        case .preAuthorized:
            try await device.manager.preAuthorizeDiagnosisKeys()
            let received = Locked<[ENTemporaryExposureKey]>([])
            device.manager.diagnosisKeysAvailableHandler = { keys in received.withLock { $0 += keys } }
            try await device.manager.requestPreAuthorizedDiagnosisKeys()
            // The handler runs on the manager's serial queue: wait until the queue has passed it.
            let queue = device.manager.dispatchQueue
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in queue.async { done.resume() } }
            keys = received.withLock { $0 }
        }
        let onsetDay =
            (dayStart(diagnosis.day).enIntervalNumber / ENIntervalNumberPerDay)
            - UInt32(diagnosis.symptomOnsetDaysBeforeResult)
        let stamped = keys.map { key in
            var key = key
            key.diagnosisReportType = .confirmedTest
            key.transmissionRiskLevel = 4
            key.daysSinceOnsetOfSymptoms = Int(key.rollingStartNumber / ENIntervalNumberPerDay) - Int(onsetDay)
            return key
        }
        return (stamped, onsetDay)
    }

    /// Detects on the downloaded `files`, reads the windows or exposures, and updates the device's outcome.
    private func detect(
        _ device: SimulatedDevice, files urls: [URL], day: Int, report: inout ENSimulationReport.Device
    ) async throws(ENError) {
        let configuration = scenario.configuration
        let summary = try await device.manager.detectExposures(configuration: configuration, diagnosisKeyURLs: urls)
        report.detections += 1
        report.filesProcessed += urls.count
        let notified: Bool
        if device.script.apiVersion == 1 {
            let infos = try await device.manager.getExposureInfo(
                summary: summary, userExplanation: "You were near someone who tested positive.")
            report.exposureInfo = Self.canonicalOrder(infos, date: \.date)
            report.windows = []
            report.score = Double(summary.maximumRiskScore)
            report.weightedMinutes = summary.attenuationDurations.prefix(2).reduce(0, +) / 60
            notified = !infos.isEmpty && summary.maximumRiskScore >= max(1, configuration.minimumRiskScore)
        } else {
            report.windows = Self.canonicalOrder(
                try await device.manager.getExposureWindows(summary: summary), date: \.date)
            report.exposureInfo = []
            report.weightedMinutes = (summary.daySummaries.map(\.daySummary.weightedDurationSum).max() ?? 0) / 60
            report.score = summary.daySummaries.map(\.daySummary.scoreSum).max() ?? 0
            notified = report.weightedMinutes >= scenario.notificationThresholdMinutes
        }
        if notified && !report.notified {
            report.notified = true
            report.notifiedOnDay = day
        }
    }
}
