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
        var heard = 0
        let receptions = Self.receptions(
            timing: scanTiming, pathLoss: pathLoss, senderTxPower: sender.txPower,
            receiverCorrection: receiver.rssiCorrection, start: start, length: length, distance: distance,
            using: &random)
        for (moment, rssi) in receptions {
            guard let advertisement = try? sender.advertisement(at: moment) else { continue }
            if receiver.hear(ENSighting(rpi: advertisement.rpi, aem: advertisement.aem, timestamp: moment, rssi: rssi))
            {
                heard += 1
            }
        }
        return heard
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
