public import ENCore
internal import ExposureNotificationKit
public import Foundation

/// A simulation's script: the devices, who meets whom when and how close, who tests positive and shares keys,
/// and when devices detect. Loads from JSON (see the format in the module's documentation).
public struct ENScenario: Hashable, Sendable, Codable {
    /// One simulated phone.
    public struct Device: Hashable, Sendable, Codable {
        /// The device's name, unique in the scenario.
        public var name: String
        /// How far its real transmit power is above what its metadata announces, in dB. Default 0.
        public var txPower: Double
        /// How many dB too low its radio reads signal strength. Default 0.
        public var rssiCorrection: Double
        /// The API version its app declares: 1 or 2. Default 2.
        public var apiVersion: Int

        /// Creates a device.
        public init(name: String, txPower: Double = 0, rssiCorrection: Double = 0, apiVersion: Int = 2) {
            self.name = name
            self.txPower = txPower
            self.rssiCorrection = rssiCorrection
            self.apiVersion = apiVersion
        }

        private enum CodingKeys: String, CodingKey { case name, txPower, rssiCorrection, apiVersion }

        /// Decodes a device; only `name` is required.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            txPower = try container.decodeIfPresent(Double.self, forKey: .txPower) ?? 0
            rssiCorrection = try container.decodeIfPresent(Double.self, forKey: .rssiCorrection) ?? 0
            apiVersion = try container.decodeIfPresent(Int.self, forKey: .apiVersion) ?? 2
        }
    }

    /// Two devices near each other for a while.
    public struct Encounter: Hashable, Sendable, Codable {
        /// The two devices' names.
        public var devices: [String]
        /// The day (0 is the scenario's first day).
        public var day: Int
        /// When it starts, in minutes after midnight UTC.
        public var minute: Int
        /// How long it lasts, in minutes.
        public var minutes: Int
        /// How far apart the devices are, in meters.
        public var distance: Double

        /// Creates an encounter.
        public init(devices: [String], day: Int, minute: Int, minutes: Int, distance: Double) {
            self.devices = devices
            self.day = day
            self.minute = minute
            self.minutes = minutes
            self.distance = distance
        }
    }

    /// How a positive device's keys reach the key server.
    public enum Sharing: String, Hashable, Sendable, Codable {
        /// The app calls `getDiagnosisKeys` (the user agrees at the prompt) and posts the keys.
        case direct
        /// The user pre-authorized release earlier (`preAuthorizeDiagnosisKeys`); when the result arrives the
        /// app calls `requestPreAuthorizedDiagnosisKeys` and posts what its handler receives.
        case preAuthorized
    }

    /// A device that tests positive and shares its keys.
    public struct Diagnosis: Hashable, Sendable, Codable {
        /// The device's name.
        public var device: String
        /// The day of the positive result.
        public var day: Int
        /// When it arrives, in minutes after midnight UTC.
        public var minute: Int
        /// How the keys are shared.
        public var sharing: Sharing
        /// The days since the onset of symptoms written into the keys, relative to each key's day: the number
        /// of days before the result that symptoms began. Default 2.
        public var symptomOnsetDaysBeforeResult: Int

        /// Creates a diagnosis.
        public init(
            device: String, day: Int, minute: Int, sharing: Sharing = .direct, symptomOnsetDaysBeforeResult: Int = 2
        ) {
            self.device = device
            self.day = day
            self.minute = minute
            self.sharing = sharing
            self.symptomOnsetDaysBeforeResult = symptomOnsetDaysBeforeResult
        }

        private enum CodingKeys: String, CodingKey { case device, day, minute, sharing, symptomOnsetDaysBeforeResult }

        /// Decodes a diagnosis; `sharing` defaults to `direct`, `symptomOnsetDaysBeforeResult` to 2.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            device = try container.decode(String.self, forKey: .device)
            day = try container.decode(Int.self, forKey: .day)
            minute = try container.decode(Int.self, forKey: .minute)
            sharing = try container.decodeIfPresent(Sharing.self, forKey: .sharing) ?? .direct
            symptomOnsetDaysBeforeResult =
                try container.decodeIfPresent(Int.self, forKey: .symptomOnsetDaysBeforeResult) ?? 2
        }
    }

    /// A name for reports.
    public var name: String
    /// The seed of every random choice (scan phases, signal noise).
    public var seed: UInt64
    /// Midnight UTC of day 0.
    public var start: Date
    /// How many days the simulation runs.
    public var days: Int
    /// The devices.
    public var devices: [Device]
    /// The encounters.
    public var encounters: [Encounter]
    /// The positive results.
    public var diagnoses: [Diagnosis]
    /// When the key server publishes and every device detects, each day, in minutes after midnight UTC.
    public var detectionMinute: Int
    /// The weighted minutes of exposure in a day (the day summary's weighted duration) at which a version 2
    /// device notifies its user; for version 1, the total risk score of the detection must reach
    /// `ENExposureConfiguration.minimumRiskScore` (or be above zero when it is 0). Default 10.
    public var notificationThresholdMinutes: Double
    /// The health authority's exposure configuration; ``defaultConfiguration`` when absent.
    public var configuration: ENExposureConfiguration
    /// The signal model.
    public var pathLoss: ENPathLossModel
    /// The scan timing.
    public var scanTiming: ENScanTiming

    /// Creates a scenario.
    public init(
        name: String, seed: UInt64, start: Date, days: Int, devices: [Device], encounters: [Encounter] = [],
        diagnoses: [Diagnosis] = [], detectionMinute: Int = 22 * 60, notificationThresholdMinutes: Double = 10,
        configuration: ENExposureConfiguration = ENScenario.defaultConfiguration,
        pathLoss: ENPathLossModel = ENPathLossModel(), scanTiming: ENScanTiming = ENScanTiming()
    ) {
        self.name = name
        self.seed = seed
        self.start = start
        self.days = days
        self.devices = devices
        self.encounters = encounters
        self.diagnoses = diagnoses
        self.detectionMinute = detectionMinute
        self.notificationThresholdMinutes = notificationThresholdMinutes
        self.configuration = configuration
        self.pathLoss = pathLoss
        self.scanTiming = scanTiming
    }

    private enum CodingKeys: String, CodingKey {
        case name, seed, start, days, devices, encounters, diagnoses, detectionMinute, notificationThresholdMinutes
        case configuration, pathLoss, scanTiming
    }

    /// Decodes a scenario; `days`, `devices` and `start` (an ISO 8601 date) are required.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeIfPresent(String.self, forKey: .name) ?? "scenario"
        seed = try container.decodeIfPresent(UInt64.self, forKey: .seed) ?? 1
        start = try container.decode(Date.self, forKey: .start)
        days = try container.decode(Int.self, forKey: .days)
        devices = try container.decode([Device].self, forKey: .devices)
        encounters = try container.decodeIfPresent([Encounter].self, forKey: .encounters) ?? []
        diagnoses = try container.decodeIfPresent([Diagnosis].self, forKey: .diagnoses) ?? []
        detectionMinute = try container.decodeIfPresent(Int.self, forKey: .detectionMinute) ?? 22 * 60
        notificationThresholdMinutes =
            try container.decodeIfPresent(Double.self, forKey: .notificationThresholdMinutes) ?? 10
        configuration =
            try container.decodeIfPresent(ENExposureConfiguration.self, forKey: .configuration)
            ?? Self.defaultConfiguration
        pathLoss = try container.decodeIfPresent(ENPathLossModel.self, forKey: .pathLoss) ?? ENPathLossModel()
        scanTiming = try container.decodeIfPresent(ENScanTiming.self, forKey: .scanTiming) ?? ENScanTiming()
    }

    /// The scenario in `json` (dates in ISO 8601).
    ///
    /// - Throws: `badFormat` naming what is wrong when the JSON does not decode; `badParameter` when the
    ///   scenario refers to an unknown device, repeats a name, or has a value out of range.
    public init(json: Data) throws(ENError) {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            self = try decoder.decode(ENScenario.self, from: json)
        } catch {
            throw ENError(.badFormat, "the scenario is not valid JSON of the documented format: \(error)")
        }
        try validate()
    }

    /// The scenario as JSON (dates in ISO 8601, keys sorted).
    public func jsonData() throws(ENError) -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do { return try encoder.encode(self) } catch {
            throw ENError(.badParameter, "the scenario cannot be encoded: \(error)")
        }
    }

    /// Checks the script's consistency.
    ///
    /// - Throws: `badParameter` with the offending part in the error's context.
    public func validate() throws(ENError) {
        func fail(_ reason: String, _ field: String, _ index: Int? = nil) -> ENError {
            ENError(.badParameter, reason, context: ENError.Context(section: field, index: index))
        }
        guard (1...366).contains(days) else { throw fail("days must be 1...366, got \(days)", "days") }
        guard !devices.isEmpty, devices.count <= 100_000 else {
            throw fail("a scenario needs 1...100000 devices, got \(devices.count)", "devices")
        }
        guard (0..<1440).contains(detectionMinute) else {
            throw fail("detectionMinute must be 0...1439, got \(detectionMinute)", "detectionMinute")
        }
        var names = Set<String>()
        for (index, device) in devices.enumerated() {
            guard names.insert(device.name).inserted, !device.name.isEmpty else {
                throw fail("device names must be unique and not empty: \"\(device.name)\"", "devices", index)
            }
            guard device.apiVersion == 1 || device.apiVersion == 2 else {
                throw fail("apiVersion must be 1 or 2, got \(device.apiVersion)", "devices", index)
            }
            guard device.txPower.isFinite, device.rssiCorrection.isFinite, abs(device.txPower) <= 50,
                abs(device.rssiCorrection) <= 50
            else { throw fail("txPower and rssiCorrection must be within ±50 dB", "devices", index) }
        }
        for (index, encounter) in encounters.enumerated() {
            guard encounter.devices.count == 2, encounter.devices[0] != encounter.devices[1],
                encounter.devices.allSatisfy(names.contains)
            else { throw fail("an encounter names two different known devices", "encounters", index) }
            guard (0..<days).contains(encounter.day), (0..<1440).contains(encounter.minute),
                (1...1440).contains(encounter.minutes), encounter.distance.isFinite,
                (0...100).contains(encounter.distance)
            else {
                throw fail(
                    "day must be within the run, minute 0...1439, minutes 1...1440, distance 0...100 m",
                    "encounters", index)
            }
        }
        for (index, diagnosis) in diagnoses.enumerated() {
            guard names.contains(diagnosis.device) else {
                throw fail("unknown device \"\(diagnosis.device)\"", "diagnoses", index)
            }
            guard (0..<days).contains(diagnosis.day), (0..<1440).contains(diagnosis.minute),
                (0...14).contains(diagnosis.symptomOnsetDaysBeforeResult)
            else {
                throw fail("day must be within the run, minute 0...1439, onset 0...14 days", "diagnoses", index)
            }
        }
        guard pathLoss.noise.isFinite, (0...30).contains(pathLoss.noise) else {
            throw fail("pathLoss.noise must be 0...30 dB", "pathLoss")
        }
        guard scanTiming.interval.isFinite, scanTiming.jitter.isFinite, scanTiming.duration.isFinite,
            (10...3600).contains(scanTiming.interval), scanTiming.jitter >= 0
        else { throw fail("scanTiming.interval must be 10...3600 s and jitter not negative", "scanTiming") }
        do { try configuration.validate() } catch { throw error.adding(ENError.Context(section: "configuration")) }
    }

    /// The configuration a scenario uses unless it gives one: every day since symptom onset counts as standard
    /// infectiousness, confirmed tests at full weight, attenuation buckets at 55/63/70 dB weighted 100/50/0 %,
    /// version 1 level values rising with risk.
    public static var defaultConfiguration: ENExposureConfiguration {
        var configuration = ENExposureConfiguration()
        configuration.infectiousnessByDaysSinceOnsetOfSymptoms = Dictionary(
            uniqueKeysWithValues: ((-14...14).map { ($0, ENInfectiousness.standard) })
                + [(ENDaysSinceOnsetOfSymptomsUnknown, .standard)])
        configuration.attenuationDurationThresholds = [55, 63, 70]
        configuration.immediateDurationWeight = 100
        configuration.nearDurationWeight = 100
        configuration.mediumDurationWeight = 50
        configuration.otherDurationWeight = 0
        configuration.attenuationLevelValues = [1, 2, 3, 4, 5, 6, 7, 8]
        configuration.daysSinceLastExposureLevelValues = [1, 2, 3, 4, 5, 6, 7, 8]
        configuration.durationLevelValues = [1, 2, 3, 4, 5, 6, 7, 8]
        configuration.transmissionRiskLevelValues = [1, 2, 3, 4, 5, 6, 7, 8]
        return configuration
    }
}
