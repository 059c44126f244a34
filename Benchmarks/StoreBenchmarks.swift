import ENCore
import ENStore
import Foundation

/// The store: sightings written per second one at a time and in batches (file store, WAL, one transaction per
/// batch), and the time to load a 14-day sighting set for the matcher.
let storeBenchmarkSuite = BenchmarkSuite(name: "store") { context, report in
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "StoreBenchmarks-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let now = Date(timeIntervalSinceReferenceDate: 800_000_000)
    let configuration = ENStoreConfiguration(now: { now })

    func sightings(count: Int, offset: Int, spread: TimeInterval) -> [ENSighting] {
        (0..<count).map { i in
            let n = UInt64(offset + i)
            return ENSighting(
                rpi: RollingProximityIdentifier(lowWord: n &* 0x9E37_79B9_7F4A_7C15, highWord: ~n),
                aem: AssociatedEncryptedMetadata(rawValue: UInt32(truncatingIfNeeded: n)),
                timestamp: now.addingTimeInterval(-spread * Double(i) / Double(max(count, 1))),
                rssi: Int8(truncatingIfNeeded: -40 - Int(n % 50)))
        }
    }

    // Writes: one sighting at a time (as the radio records them), and batches of 100 and 1,000 sightings, one
    // transaction each.
    for batchSize in [1, 100, 1_000] {
        let writesPerSample = (context.quick ? 5_000 : 50_000) / (batchSize == 1 ? 10 : 1)
        let store = try ENDeviceStore(
            path: directory.appendingPathComponent("writes-\(batchSize).sqlite").path, configuration: configuration)
        let batches = (0..<(writesPerSample / batchSize)).map { b in
            sightings(count: batchSize, offset: b * batchSize, spread: 600)
        }
        context.log("store: writing \(writesPerSample) sightings in batches of \(batchSize)")
        let timing = try measure(iterations: context.iterations, operations: writesPerSample) {
            for batch in batches { try store.write(.addSightings(batch)) }
        }
        report.add(
            BenchmarkResult(
                suite: "store", name: "write sightings, batches of \(batchSize)", unit: "sighting",
                best: timing.best, median: timing.median,
                details: ["batch": "\(batchSize)", "sightings/sample": "\(writesPerSample)", "journal": "WAL"]))
    }

    // Load: a 14-day set (retention window), as the matcher reads it.
    let setSize = context.quick ? 20_000 : 200_000
    let loadStore = try ENDeviceStore(
        path: directory.appendingPathComponent("load.sqlite").path, configuration: configuration)
    let all = sightings(count: setSize, offset: 0, spread: 14 * 86_400 - 60)
    for start in stride(from: 0, to: all.count, by: 10_000) {
        try loadStore.write(.addSightings(Array(all[start..<min(start + 10_000, all.count)])))
    }
    // Older sightings, outside the window, that the load must skip.
    try loadStore.write(
        .addSightings(
            sightings(count: setSize / 10, offset: setSize, spread: 3_600).map { sighting in
                var old = sighting
                old.timestamp = old.timestamp.addingTimeInterval(-15 * 86_400)
                return old
            }))
    context.log("store: loading a 14-day set of \(setSize) sightings")
    var loaded: [ENSighting] = []
    let timing = try measure(iterations: context.iterations, operations: setSize) {
        loaded = try loadStore.read(.retainedSightings)
    }
    if loaded.count != setSize || Set(loaded) != Set(all) {
        report.fail("store: the 14-day load returned \(loaded.count) sightings, expected the \(setSize) written")
    }
    report.add(
        BenchmarkResult(
            suite: "store", name: "load 14-day sighting set", unit: "sighting", best: timing.best,
            median: timing.median,
            details: [
                "sightings": "\(setSize)", "best ms": String(format: "%.1f", timing.best * Double(setSize) / 1e6),
            ]))
}
