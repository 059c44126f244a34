public import ENCore
public import Foundation

extension ENScenario {
    /// The scenario's encounters as a `gaen-labelled-encounters` file (version 1), for `ENEvaluation` and
    /// `entool evaluate`.
    ///
    /// Each scripted encounter gives two labelled encounters, one per receiver (`e<index>-<receiver>`, in script
    /// order): observation kind `sightings`, the scans the receiver's radio read with the RSSI of each, drawn
    /// exactly as the simulation draws them (the same seeded stream per encounter, through the ether's one radio
    /// model); ground truth, the scripted distance and duration. The framework advertises TX power 0 and applies
    /// no RSSI correction, so the file's `txPower` and `rssiCorrection` are 0 and attenuation = −RSSI. Scan times
    /// are written in whole seconds (rounded down: the scan's UTC minute is kept). Both devices are taken to
    /// broadcast and scan throughout, as every scenario device does.
    ///
    /// - Throws: `ENError.Code.badParameter` when the scenario is not valid.
    public func labelledEncountersJSON() throws(ENError) -> Data {
        try validate()
        let devices = Dictionary(uniqueKeysWithValues: self.devices.map { ($0.name, $0) })
        let formatter = ISO8601DateFormatter()
        var encounters: [[String: Any]] = []
        for (index, encounter) in self.encounters.enumerated() {
            guard let (heardByFirst, heardBySecond) = receptions(ofEncounter: index, devices: devices),
                let first = devices[encounter.devices[0]], let second = devices[encounter.devices[1]]
            else { continue }
            let length = TimeInterval(encounter.minutes * 60)
            for (receiver, sender, receptions) in [(first, second, heardByFirst), (second, first, heardBySecond)] {
                let scans: [[String: Any]] = receptions.map { reception in
                    let second = reception.moment.timeIntervalSince1970.rounded(.down)
                    return [
                        "t": formatter.string(from: Date(timeIntervalSince1970: second)),
                        "durationSeconds": scanTiming.duration, "rssi": [Int(reception.rssi)],
                    ]
                }
                encounters.append([
                    "id": "e\(index)-\(receiver.name)",
                    "receiver": ["id": receiver.name], "transmitter": ["id": sender.name],
                    "groundTruth": ["distanceMeters": encounter.distance, "durationSeconds": length],
                    "observation": [
                        "kind": "sightings", "producedBy": "ENSimulator (seed \(seed))", "receiver": receiver.name,
                        "txPower": 0, "rssiCorrection": 0, "scans": scans,
                    ] as [String: Any],
                ])
            }
        }
        let file: [String: Any] = [
            "format": "gaen-labelled-encounters", "version": 1,
            "dataset": [
                "name": name, "source": "ENSimulator scenario \(name), seed \(seed)",
                "licence": "generated; no rights reserved",
            ],
            "encounters": encounters,
        ]
        do {
            return try JSONSerialization.data(withJSONObject: file, options: [.prettyPrinted, .sortedKeys])
        } catch {
            throw ENError.badParameter("the scenario's encounters cannot be written as JSON")
        }
    }
}
