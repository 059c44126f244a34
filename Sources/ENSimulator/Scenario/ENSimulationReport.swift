internal import ENCore
public import ENRiskV1
public import ENRiskV2
internal import Foundation

/// What a simulation ends with: for each device, whether it was notified, with the exposure windows (version 2)
/// or exposure information (version 1) and scores of its last detection; and what the key server published.
///
/// The same scenario gives the same report on every run (wall-clock timings travel in ``ENSimulationEvent``s,
/// not here).
public struct ENSimulationReport: Hashable, Sendable, Codable {
    /// One device's outcome.
    public struct Device: Hashable, Sendable, Codable {
        /// The device's name.
        public var name: String
        /// The API version its app declares.
        public var apiVersion: Int
        /// How many sightings its radio recorded.
        public var sightings: Int
        /// How many keys it shared (0 unless it tested positive).
        public var keysShared: Int
        /// How many detections it ran.
        public var detections: Int
        /// How many key files its detections processed, in all.
        public var filesProcessed: Int
        /// Whether the device notified its user.
        public var notified: Bool
        /// The day of the first detection that notified, if any.
        public var notifiedOnDay: Int?
        /// The highest weighted exposure of a day in the last detection, in minutes (version 2).
        public var weightedMinutes: Double
        /// The highest day score of the last detection (version 2: the day summary's score sum; version 1:
        /// the summary's maximum risk score).
        public var score: Double
        /// The exposure windows of the last detection (version 2).
        public var windows: [ENExposureWindow]
        /// The exposures of the last detection (version 1).
        public var exposureInfo: [ENExposureInfo]

        /// Creates an outcome with nothing happened yet.
        public init(name: String, apiVersion: Int) {
            self.name = name
            self.apiVersion = apiVersion
            sightings = 0
            keysShared = 0
            detections = 0
            filesProcessed = 0
            notified = false
            notifiedOnDay = nil
            weightedMinutes = 0
            score = 0
            windows = []
            exposureInfo = []
        }
    }

    /// The scenario's name.
    public var scenario: String
    /// The scenario's seed.
    public var seed: UInt64
    /// The days simulated so far.
    public var daysCompleted: Int
    /// Each device's outcome, in the scenario's order.
    public var devices: [Device]
    /// Keys the key server accepted as new.
    public var keysAccepted: Int
    /// Keys posted again unchanged (stored once).
    public var duplicateKeys: Int
    /// The files the key server published.
    public var filesPublished: Int

    /// Creates an empty report for `scenario`.
    public init(scenario: ENScenario) {
        self.scenario = scenario.name
        seed = scenario.seed
        daysCompleted = 0
        devices = scenario.devices.map { Device(name: $0.name, apiVersion: $0.apiVersion) }
        keysAccepted = 0
        duplicateKeys = 0
        filesPublished = 0
    }

    /// The names of the devices that were notified.
    public var notifiedDevices: [String] { devices.filter(\.notified).map(\.name) }
}
