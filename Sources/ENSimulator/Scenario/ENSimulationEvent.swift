public import Foundation

/// What a running simulation reports as it goes, for narration and progress bars.
public enum ENSimulationEvent: Hashable, Sendable {
    /// A day begins (`day` of `days`, 0-based); `resumed` when earlier days were restored from a store.
    case dayStarted(day: Int, days: Int, date: Date, resumed: Bool)
    /// Two devices met; each heard the other this many times.
    case encounter(first: String, second: String, minutes: Int, distance: Double, heardByFirst: Int, heardBySecond: Int)
    /// A device tested positive and shared its keys; the server accepted some and found others already stored.
    case shared(device: String, sharing: ENScenario.Sharing, keys: Int, accepted: Int, duplicates: Int)
    /// The key server published files.
    case published(files: [String], elapsed: Duration)
    /// A device detected exposures.
    case detected(device: String, files: Int, notified: Bool, weightedMinutes: Double, score: Double, elapsed: Duration)
    /// A day ended; the run is `day + 1` of `days` done.
    case dayFinished(day: Int, days: Int, elapsed: Duration)
}
