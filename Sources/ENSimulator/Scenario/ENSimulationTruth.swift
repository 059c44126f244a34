internal import Foundation

/// What really happened in a simulation, set beside what the phones concluded: the simulator knows every
/// encounter, so it knows which phones were exposed, and the report says which were notified.
///
/// Definitions (the same for every scenario):
/// - An *exposure* is an encounter with a phone that tests positive in the scenario, within that phone's
///   ``keyDays`` days: on the day of its positive result (starting before the result's minute) or on one of the
///   13 days before, the days whose keys a positive phone shares. Each encounter is seen from both phones: one
///   encounter between two positive phones is two exposures.
/// - A *contact* is an exposure within ``contactMeters`` metres for at least ``contactMinutes-swift.type.property`` minutes (the
///   "15 minutes within 2 metres" of the measurement studies, `ENContactRule`'s default). A phone is *exposed in
///   truth* from the day of its first contact on.
/// - Each day's figures are cumulative, at the end of the day: ``Day/exposed`` phones exposed in truth so far,
///   ``Day/notified`` phones notified so far (the report's `notifiedOnDay`), ``Day/truePositives`` those in both,
///   ``Day/falsePositives`` notified but not exposed, ``Day/falseNegatives`` exposed but not notified.
/// - The exposures fall into four ``Group``s, by whether they are contacts and whether the receiving phone was
///   notified during the run; each group has the distribution of the exposures' attenuation and duration.
///   Attenuation is the mean over the scans the receiving phone made during the exposure of the attenuation its
///   framework computes (announced TX power 0 minus the RSSI read), from the same draws as the run; an exposure
///   shorter than the scan interval may have no scan (``Distribution/unscanned``).
///
/// The histogram buckets are given by their edges (``attenuationEdges``, ``minutesEdges``): with edges
/// `e0 < e1 < … < eN` the buckets are `below e0`, `[e0, e1)`, …, `[eN-1, eN)` and `eN or more`, so each
/// histogram has one bucket more than it has edges.
public struct ENSimulationTruth: Hashable, Sendable, Codable {
    /// One day's cumulative figures.
    public struct Day: Hashable, Sendable, Codable {
        /// The day (0 is the scenario's first day).
        public var day: Int
        /// The day's UTC date, `YYYY-MM-DD`.
        public var date: String
        /// Phones exposed in truth by the end of the day (a contact on this day or before).
        public var exposed: Int
        /// Phones notified by the end of the day.
        public var notified: Int
        /// Phones notified and exposed in truth.
        public var truePositives: Int
        /// Phones notified but not exposed in truth.
        public var falsePositives: Int
        /// Phones exposed in truth but not notified (missed so far).
        public var falseNegatives: Int

        /// Creates a day's figures.
        public init(
            day: Int, date: String, exposed: Int, notified: Int, truePositives: Int, falsePositives: Int,
            falseNegatives: Int
        ) {
            self.day = day
            self.date = date
            self.exposed = exposed
            self.notified = notified
            self.truePositives = truePositives
            self.falsePositives = falsePositives
            self.falseNegatives = falseNegatives
        }
    }

    /// The four kinds of exposure, by whether they are contacts and whether their receiving phone was notified.
    public enum Group: String, Hashable, Sendable, Codable, CaseIterable {
        /// Contacts whose phone was notified.
        case notifiedContacts
        /// Contacts whose phone was never notified.
        case missedContacts
        /// Exposures that are not contacts, whose phone was notified.
        case notifiedNonContacts
        /// Exposures that are not contacts, whose phone was never notified.
        case quietNonContacts
    }

    /// One group's exposures: how many, and the histograms of their attenuation and duration.
    public struct Distribution: Hashable, Sendable, Codable {
        /// The group.
        public var group: Group
        /// How many exposures it holds.
        public var exposures: Int
        /// The exposures by mean attenuation, one count per bucket of ``ENSimulationTruth/attenuationEdges``
        /// (exposures without a scan are not counted here).
        public var attenuation: [Int]
        /// Exposures during which the receiving phone made no scan.
        public var unscanned: Int
        /// The exposures by duration, one count per bucket of ``ENSimulationTruth/minutesEdges``.
        public var minutes: [Int]

        /// Creates an empty distribution with `attenuationBuckets` and `minutesBuckets` buckets.
        public init(group: Group, attenuationBuckets: Int, minutesBuckets: Int) {
            self.group = group
            exposures = 0
            attenuation = Array(repeating: 0, count: attenuationBuckets)
            unscanned = 0
            minutes = Array(repeating: 0, count: minutesBuckets)
        }
    }

    /// How close a contact is at most, in metres: 2.
    public static let contactMeters = 2.0
    /// How long a contact lasts at least, in minutes: 15.
    public static let contactMinutes = 15
    /// The days before a positive result (the result's day included) whose encounters are exposures: 14.
    public static let keyDays = 14
    /// The attenuation buckets' edges, in dB: 5 dB buckets from 45 to 75 (the path-loss model's median is about
    /// 44 dB at 0.5 m, 56 dB at 2 m and 71 dB at 5 m; the default configuration's thresholds are 55, 63, 70).
    public static let defaultAttenuationEdges: [Double] = [45, 50, 55, 60, 65, 70, 75]
    /// The duration buckets' edges, in minutes: 5-minute buckets up to 30, then 30-45, 45-60 and 60 or more.
    public static let defaultMinutesEdges: [Int] = [5, 10, 15, 20, 25, 30, 45, 60]

    /// The scenario's name.
    public var scenario: String
    /// The contact rule's distance, in metres (``contactMeters``).
    public var contactWithinMeters: Double
    /// The contact rule's duration, in minutes (``contactMinutes-swift.type.property``).
    public var contactMinutes: Int
    /// The attenuation buckets' edges, in dB.
    public var attenuationEdges: [Double]
    /// The duration buckets' edges, in minutes.
    public var minutesEdges: [Int]
    /// Phones in the scenario.
    public var phones: Int
    /// Each simulated day's figures, in order.
    public var days: [Day]
    /// Each group's exposures, in ``Group``'s order.
    public var distributions: [Distribution]

    /// The truth of `scenario`'s run that ended with `report`, over the days the report completed.
    public init(scenario: ENScenario, report: ENSimulationReport) {
        self.scenario = scenario.name
        contactWithinMeters = Self.contactMeters
        contactMinutes = Self.contactMinutes
        attenuationEdges = Self.defaultAttenuationEdges
        minutesEdges = Self.defaultMinutesEdges
        phones = scenario.devices.count
        distributions = Group.allCases.map {
            Distribution(
                group: $0, attenuationBuckets: Self.defaultAttenuationEdges.count + 1,
                minutesBuckets: Self.defaultMinutesEdges.count + 1)
        }
        let byName = Dictionary(scenario.devices.map { ($0.name, $0) }) { first, _ in first }
        let position = Dictionary(scenario.devices.enumerated().map { ($1.name, $0) }) { first, _ in first }
        let notified = scenario.devices.indices.map { index in
            index < report.devices.count && report.devices[index].notified
        }
        var results: [String: [(day: Int, minute: Int)]] = [:]
        for diagnosis in scenario.diagnoses {
            results[diagnosis.device, default: []].append((diagnosis.day, diagnosis.minute))
        }
        /// Whether an encounter at `day`, `minute` falls in the shared days of `transmitter`'s positive result.
        func isExposure(to transmitter: String, day: Int, minute: Int) -> Bool {
            (results[transmitter] ?? []).contains { result in
                day > result.day - Self.keyDays && (day < result.day || (day == result.day && minute < result.minute))
            }
        }
        var firstContact = [Int?](repeating: nil, count: scenario.devices.count)
        for (index, encounter) in scenario.encounters.enumerated() where encounter.devices.count == 2 {
            let (first, second) = (encounter.devices[0], encounter.devices[1])
            let exposed = [
                isExposure(to: second, day: encounter.day, minute: encounter.minute),
                isExposure(to: first, day: encounter.day, minute: encounter.minute),
            ]
            guard exposed.contains(true),
                let heard = scenario.receptions(ofEncounter: index, devices: byName)
            else { continue }
            let contact =
                encounter.distance <= Self.contactMeters && encounter.minutes >= Self.contactMinutes
            for (receiver, receptions, isExposed) in [
                (first, heard.first, exposed[0]), (second, heard.second, exposed[1]),
            ]
            where isExposed {
                guard let receiverIndex = position[receiver] else { continue }
                if contact {
                    firstContact[receiverIndex] = min(firstContact[receiverIndex] ?? encounter.day, encounter.day)
                }
                let group: Group =
                    switch (contact, notified[receiverIndex]) {
                    case (true, true): .notifiedContacts
                    case (true, false): .missedContacts
                    case (false, true): .notifiedNonContacts
                    case (false, false): .quietNonContacts
                    }
                let slot = Group.allCases.firstIndex(of: group)!
                distributions[slot].exposures += 1
                distributions[slot].minutes[
                    Self.bucket(Double(encounter.minutes), edges: minutesEdges.map(Double.init))] += 1
                if receptions.isEmpty {
                    distributions[slot].unscanned += 1
                } else {
                    let attenuation = receptions.reduce(0.0) { $0 - Double($1.rssi) } / Double(receptions.count)
                    distributions[slot].attenuation[Self.bucket(attenuation, edges: attenuationEdges)] += 1
                }
            }
        }
        let notifiedOnDay = scenario.devices.indices.map { index in
            index < report.devices.count ? report.devices[index].notifiedOnDay : nil
        }
        days = (0..<report.daysCompleted).map { day in
            var figures = Day(
                day: day, date: Self.utcDate(scenario.start + TimeInterval(day) * 86_400), exposed: 0, notified: 0,
                truePositives: 0, falsePositives: 0, falseNegatives: 0)
            for (contactDay, notifiedDay) in zip(firstContact, notifiedOnDay) {
                let exposed = contactDay.map { $0 <= day } ?? false
                let notified = notifiedDay.map { $0 <= day } ?? false
                if exposed { figures.exposed += 1 }
                if notified { figures.notified += 1 }
                switch (exposed, notified) {
                case (true, true): figures.truePositives += 1
                case (false, true): figures.falsePositives += 1
                case (true, false): figures.falseNegatives += 1
                case (false, false): break
                }
            }
            return figures
        }
    }

    /// `date`'s UTC day as `YYYY-MM-DD`.
    static func utcDate(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    /// The bucket of `value` among the buckets of `edges` (see the type's documentation).
    public static func bucket(_ value: Double, edges: [Double]) -> Int {
        edges.firstIndex { value < $0 } ?? edges.count
    }

    /// The distribution of `group`.
    public func distribution(_ group: Group) -> Distribution {
        distributions.first { $0.group == group }
            ?? Distribution(
                group: group, attenuationBuckets: attenuationEdges.count + 1, minutesBuckets: minutesEdges.count + 1)
    }
}
