internal import ENCore
internal import ExposureNotificationKit
public import Foundation

/// The simulated air between devices: one ``ENEtherRadio`` per device, and encounters that carry each device's
/// broadcast to the other's scanner.
///
/// A device's `ENManager` broadcasts through its radio (the manager hands the radio its broadcast source); an
/// encounter asks the sender's source for the advertisement of each scan moment and hands the receiver's
/// scanner a sighting with a signal strength from the ``pathLoss`` model.
public final class ENEther: Sendable {
    /// The path-loss model.
    public let pathLoss: ENPathLossModel
    /// The scan timing of every device.
    public let scanTiming: ENScanTiming
    private let radios = Locked<[String: ENEtherRadio]>([:])

    /// Creates an ether.
    public init(pathLoss: ENPathLossModel = ENPathLossModel(), scanTiming: ENScanTiming = ENScanTiming()) {
        self.pathLoss = pathLoss
        self.scanTiming = scanTiming
    }

    /// The radio of device `name` (made on first use), with its transmit-power offset and its RSSI reading error.
    public func radio(for name: String, txPower: Double = 0, rssiCorrection: Double = 0) -> ENEtherRadio {
        radios.withLock { radios in
            if let radio = radios[name] { return radio }
            let radio = ENEtherRadio(name: name, txPower: txPower, rssiCorrection: rssiCorrection)
            radios[name] = radio
            return radio
        }
    }

    /// Lets every broadcasting radio transmit once at `date`, as phones do all day long (every 250 ms) whether
    /// anyone listens or not: a device makes the day's key when it first transmits in the day.
    public func transmitAll(at date: Date) {
        let all = radios.withLock { Array($0.values) }
        for radio in all { _ = try? radio.advertisement(at: date) }
    }

    /// Simulates `first` and `second` spending `length` seconds from `start` at `distance` meters: each hears
    /// the other at its own scans. Returns how many sightings each received (first's, second's). Nothing is
    /// heard from a device that does not broadcast, nor by one that does not scan.
    @discardableResult
    public func encounter(
        _ first: String, _ second: String, from start: Date, length: TimeInterval, distance: Double,
        using random: inout ENSeededRandom
    ) -> (first: Int, second: Int) {
        let (a, b) = (radio(for: first), radio(for: second))
        let heardByA = transmit(from: b, to: a, start: start, length: length, distance: distance, random: &random)
        let heardByB = transmit(from: a, to: b, start: start, length: length, distance: distance, random: &random)
        return (heardByA, heardByB)
    }

    private func transmit(
        from sender: ENEtherRadio, to receiver: ENEtherRadio, start: Date, length: TimeInterval, distance: Double,
        random: inout ENSeededRandom
    ) -> Int {
        let receptions = Self.receptions(
            timing: scanTiming, pathLoss: pathLoss, senderTxPower: sender.txPower,
            receiverCorrection: receiver.rssiCorrection, start: start, length: length, distance: distance,
            using: &random)
        let sightings = Self.sightings(from: sender, receptions)
        return receiver.hear(contentsOf: sightings) ? sightings.count : 0
    }

    /// What `sender` broadcast at each of `receptions`' moments, as read with its signal strength; nothing from a
    /// moment it did not broadcast.
    private static func sightings(
        from sender: ENEtherRadio, _ receptions: [(moment: Date, rssi: Int8)]
    ) -> [ENSighting] {
        receptions.compactMap { moment, rssi in
            guard let advertisement = try? sender.advertisement(at: moment) else { return nil }
            return ENSighting(rpi: advertisement.rpi, aem: advertisement.aem, timestamp: moment, rssi: rssi)
        }
    }

    /// What a receiver's scans read during an encounter, before anyone transmits: the scan moments of `timing`,
    /// then one RSSI per moment from `pathLoss`, drawn in that order from `random` (the one place the radio model
    /// draws, so the simulation and ``ENScenario/labelledEncountersJSON()`` read the same numbers).
    static func receptions(
        timing: ENScanTiming, pathLoss: ENPathLossModel, senderTxPower: Double, receiverCorrection: Double,
        start: Date, length: TimeInterval, distance: Double, using random: inout ENSeededRandom
    ) -> [(moment: Date, rssi: Int8)] {
        timing.scans(from: start, length: length, using: &random).map { moment in
            (
                moment,
                pathLoss.rssi(
                    distance: distance, senderTxPower: senderTxPower, receiverCorrection: receiverCorrection,
                    using: &random)
            )
        }
    }
}

/// One encounter of a batch handed to ``ENEther/encounters(_:)``: the two devices, when, how long, how far, and the
/// encounter's own random stream.
struct EtherEncounter {
    var first: String
    var second: String
    var start: Date
    var length: TimeInterval
    var distance: Double
    var random: ENSeededRandom
}

extension ENEther {
    /// Simulates `batch` as ``encounter(_:_:from:length:distance:using:)`` would one after the other, with the same
    /// receptions drawn from each encounter's stream, but several devices at once: every device hears its sightings
    /// in the batch's order (so its store receives them in the same order whatever the threads), and different
    /// devices hear theirs on different threads. The encounters must not depend on one another (no key release
    /// between them). Returns how many sightings each device of each encounter received (first's, second's).
    func encounters(_ batch: [EtherEncounter]) -> [(first: Int, second: Int)] {
        struct Delivery: Sendable {
            var encounter: Int
            var toFirst: Bool
            var sender: ENEtherRadio
            var receptions: [(moment: Date, rssi: Int8)]
        }
        var groups: [String: Int] = [:]
        var deliveries: [[Delivery]] = []
        func add(_ delivery: Delivery, to receiver: String) {
            if let group = groups[receiver] {
                deliveries[group].append(delivery)
            } else {
                groups[receiver] = deliveries.count
                deliveries.append([delivery])
            }
        }
        for (index, encounter) in batch.enumerated() {
            var random = encounter.random
            let (a, b) = (radio(for: encounter.first), radio(for: encounter.second))
            // In the order encounter(_:_:...) draws them: what the first hears, then what the second hears.
            for (sender, receiver, toFirst) in [(b, a, true), (a, b, false)] {
                let receptions = Self.receptions(
                    timing: scanTiming, pathLoss: pathLoss, senderTxPower: sender.txPower,
                    receiverCorrection: receiver.rssiCorrection, start: encounter.start, length: encounter.length,
                    distance: encounter.distance, using: &random)
                add(
                    Delivery(encounter: index, toFirst: toFirst, sender: sender, receptions: receptions),
                    to: receiver.name)
            }
        }
        let receivers = groups.sorted { $0.value < $1.value }.map { radio(for: $0.key) }
        let heard = Locked(Array(repeating: (first: 0, second: 0), count: batch.count))
        let work = deliveries
        DispatchQueue.concurrentPerform(iterations: receivers.count) { group in
            let receiver = receivers[group]
            var counts: [(encounter: Int, toFirst: Bool, heard: Int)] = []
            // The receiver's sightings of the whole batch, in order, reach its scanner as one batch.
            var sightings: [ENSighting] = []
            for delivery in work[group] {
                let heard = Self.sightings(from: delivery.sender, delivery.receptions)
                sightings += heard
                counts.append((delivery.encounter, delivery.toFirst, heard.count))
            }
            if !receiver.hear(contentsOf: sightings) {
                counts = counts.map { ($0.encounter, $0.toFirst, 0) }
            }
            heard.withLock { heard in
                for (encounter, toFirst, count) in counts {
                    if toFirst { heard[encounter].first = count } else { heard[encounter].second = count }
                }
            }
        }
        return heard.withLock { $0 }
    }
}
