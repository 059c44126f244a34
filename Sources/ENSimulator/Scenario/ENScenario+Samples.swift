internal import Foundation

extension ENScenario {
    /// The sample app's story, over five days from 2020-04-01: A and B spend 20 minutes 1.5 m apart on day 0;
    /// C passes A for 5 minutes at 3 m the same day; A tests positive on day 2 and shares its keys; on day 4 C
    /// sits next to A for 30 minutes, on a key A never shares. Every device detects at 22:00. B is notified,
    /// C is not.
    public static func sampleStory(seed: UInt64 = 2020) -> ENScenario {
        ENScenario(
            name: "sample story", seed: seed, start: Date(timeIntervalSince1970: 1_585_699_200), days: 5,
            devices: [ENScenario.Device(name: "A"), ENScenario.Device(name: "B"), ENScenario.Device(name: "C")],
            encounters: [
                Encounter(devices: ["A", "B"], day: 0, minute: 10 * 60, minutes: 20, distance: 1.5),
                Encounter(devices: ["A", "C"], day: 0, minute: 12 * 60, minutes: 5, distance: 3),
                Encounter(devices: ["A", "C"], day: 4, minute: 10 * 60, minutes: 30, distance: 1),
            ],
            diagnoses: [Diagnosis(device: "A", day: 2, minute: 9 * 60, sharing: .direct)])
    }

    /// A random town of `devices` devices over `days` days: each device meets three others a day (1 to 30
    /// minutes, 0.5 to 5 m, between 08:00 and 20:00), and one device in fifty tests positive on a random day,
    /// half of them sharing by pre-authorization. The same arguments give the same scenario.
    public static func randomTown(devices: Int, days: Int, seed: UInt64 = 1) -> ENScenario {
        var random = ENSeededRandom(seed: seed, stream: [0x70_776E])
        let count = max(devices, 2)
        let names = (0..<count).map { "D\($0 + 1)" }
        var encounters: [Encounter] = []
        for day in 0..<days {
            for index in 0..<count {
                for _ in 0..<3 where index % 2 == 0 || count < 4 {
                    var other = Int.random(in: 0..<count - 1, using: &random)
                    if other >= index { other += 1 }
                    encounters.append(
                        Encounter(
                            devices: [names[index], names[other]], day: day,
                            minute: Int.random(in: 8 * 60..<20 * 60, using: &random),
                            minutes: Int.random(in: 1...30, using: &random),
                            distance: (Double.random(in: 0.5...5, using: &random) * 10).rounded() / 10))
                }
            }
        }
        var diagnoses: [Diagnosis] = []
        for index in 0..<count where Int.random(in: 0..<50, using: &random) == 0 || (index == 0) {
            diagnoses.append(
                Diagnosis(
                    device: names[index], day: Int.random(in: 0..<days, using: &random),
                    minute: Int.random(in: 8 * 60..<20 * 60, using: &random),
                    sharing: Bool.random(using: &random) ? .direct : .preAuthorized))
        }
        return ENScenario(
            name: "random town of \(count) devices over \(days) days", seed: seed,
            start: Date(timeIntervalSince1970: 1_585_699_200), days: days,
            devices: names.map { ENScenario.Device(name: $0) }, encounters: encounters, diagnoses: diagnoses)
    }
}
