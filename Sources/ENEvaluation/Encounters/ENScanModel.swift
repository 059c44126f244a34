public import Foundation

/// When a receiver's radio listened: turns an `rssiSeries` observation (raw per-advertisement RSSI samples) into
/// the scans a phone would have logged.
///
/// ENEvaluation reads no clock and draws no random numbers, so the model is injected. `entool evaluate` passes the
/// simulator's documented scan model (`ENScanTiming` of the ENSimulator module: a scan every 300 s ± 90 s for 4 s,
/// at a random phase), seeded per encounter, so one implementation of the scan model serves the simulator and the
/// evaluation.
public struct ENScanModel: Sendable {
    /// The scans during `interval` of the encounter named `encounter`, each as the interval its radio listened.
    public var scans: @Sendable (_ interval: DateInterval, _ encounter: String) -> [DateInterval]

    /// Creates a model from its scan function.
    public init(scans: @escaping @Sendable (_ interval: DateInterval, _ encounter: String) -> [DateInterval]) {
        self.scans = scans
    }

    /// A scan every `interval` seconds lasting `duration`, from the series' first sample: a deterministic model
    /// for tests and for data logged by a scanner with a fixed period.
    public static func periodic(interval: TimeInterval, duration: TimeInterval) -> ENScanModel {
        ENScanModel { span, _ in
            guard interval > 0 else { return [] }
            var result: [DateInterval] = []
            var start = span.start
            while start <= span.end {
                result.append(DateInterval(start: start, duration: duration))
                start += interval
            }
            return result
        }
    }
}
