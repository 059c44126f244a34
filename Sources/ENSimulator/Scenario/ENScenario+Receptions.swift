internal import Foundation

extension ENScenario {
    /// What each device's scans read during encounter `index` of ``encounters``: the receptions of the first
    /// device hearing the second, then of the second hearing the first, drawn from the encounter's own seeded
    /// stream exactly as the simulation draws them (through ``ENEther``'s one radio model), so that the
    /// scenario's encounter file and its ground truth read the same numbers as the run.
    ///
    /// `devices` are the scenario's devices by name; `nil` when the encounter names an unknown device.
    func receptions(
        ofEncounter index: Int, devices: [String: Device]
    ) -> (first: [(moment: Date, rssi: Int8)], second: [(moment: Date, rssi: Int8)])? {
        let encounter = encounters[index]
        guard encounter.devices.count == 2, let first = devices[encounter.devices[0]],
            let second = devices[encounter.devices[1]]
        else { return nil }
        var random = ENSeededRandom(seed: seed, stream: [UInt64(encounter.day), UInt64(index)])
        let start = self.start + TimeInterval(encounter.day) * 86_400 + TimeInterval(encounter.minute * 60)
        let length = TimeInterval(encounter.minutes * 60)
        // The order of the simulation: first hears second, then second hears first.
        let heardByFirst = ENEther.receptions(
            timing: scanTiming, pathLoss: pathLoss, senderTxPower: second.txPower,
            receiverCorrection: first.rssiCorrection, start: start, length: length, distance: encounter.distance,
            using: &random)
        let heardBySecond = ENEther.receptions(
            timing: scanTiming, pathLoss: pathLoss, senderTxPower: first.txPower,
            receiverCorrection: second.rssiCorrection, start: start, length: length, distance: encounter.distance,
            using: &random)
        return (heardByFirst, heardBySecond)
    }
}
