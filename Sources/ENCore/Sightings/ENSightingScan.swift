public import Foundation

/// One scan's worth of a key's matched sightings: the unit both scoring versions measure time in.
///
/// Apple and Google describe a scan as the advertisements of one key received during one Bluetooth scan, and
/// "seconds since last scan" as the time the scan stands for. This package has sightings (single receptions)
/// rather than scans, so it forms scans with one documented rule (see ``ENKeyMatch/scans``):
/// - a scan is every sighting of the key within one UTC clock minute;
/// - its minimum attenuation is the smallest of theirs, its typical attenuation the mean rounded to the nearest
///   dB (Google: "most likely an average in the dB domain", `round(mean)`; Apple does not document the value);
/// - its `secondsSinceLastScan` is 60 times the minutes since the key's previous scan, at most 5 minutes, and
///   120 seconds for the key's first scan (Google's `SightingRecordWithMetadata` rule; Apple only documents that
///   the value is a whole number of minutes, which this rule keeps).
public struct ENSightingScan: Hashable, Sendable {
    /// When the scan's first sighting was received.
    public var timestamp: Date
    /// The smallest attenuation among the scan's sightings.
    public var minimumAttenuation: ENAttenuation
    /// The rounded mean attenuation of the scan's sightings.
    public var typicalAttenuation: ENAttenuation
    /// The time the scan stands for, in seconds: a whole number of minutes, 60...300.
    public var secondsSinceLastScan: Int
    /// The lowest calibration confidence among the scan's sightings.
    public var calibrationConfidence: ENCalibrationConfidence

    /// Creates a scan.
    public init(
        timestamp: Date,
        minimumAttenuation: ENAttenuation,
        typicalAttenuation: ENAttenuation,
        secondsSinceLastScan: Int,
        calibrationConfidence: ENCalibrationConfidence
    ) {
        self.timestamp = timestamp
        self.minimumAttenuation = minimumAttenuation
        self.typicalAttenuation = typicalAttenuation
        self.secondsSinceLastScan = secondsSinceLastScan
        self.calibrationConfidence = calibrationConfidence
    }

    /// The seconds a key's first scan stands for: 120 (Google's `defaultMinutesSinceLastScan` of 2).
    public static let firstScanSeconds = 120
    /// The most seconds one scan stands for: 300 (Google's `maxMinutesSinceLastScan` of 5).
    public static let maximumSeconds = 300
}

extension ENKeyMatch {
    /// The key's sightings grouped into scans, in time order, by the rule described at ``ENSightingScan``.
    public var scans: [ENSightingScan] {
        let ordered = sightings.sorted { $0.timestamp < $1.timestamp }
        var scans: [ENSightingScan] = []
        var index = ordered.startIndex
        var previousMinute: Int64?
        while index < ordered.endIndex {
            let minute = Self.minute(of: ordered[index].timestamp)
            var end = index
            var sum = 0
            var minimum = ENAttenuation(ENAttenuationMax)
            var confidence = ordered[index].sighting.calibrationConfidence
            while end < ordered.endIndex, Self.minute(of: ordered[end].timestamp) == minute {
                let attenuation = ordered[end].attenuation
                sum += Int(attenuation)
                minimum = min(minimum, attenuation)
                confidence = min(confidence, ordered[end].sighting.calibrationConfidence)
                end += 1
            }
            let count = end - index
            let typical = ENAttenuation(clamping: Int((Double(sum) / Double(count)).rounded()))
            let seconds: Int
            if let previousMinute {
                seconds = 60 * Int(min(Int64(ENSightingScan.maximumSeconds / 60), minute - previousMinute))
            } else {
                seconds = ENSightingScan.firstScanSeconds
            }
            scans.append(
                ENSightingScan(
                    timestamp: ordered[index].timestamp, minimumAttenuation: minimum, typicalAttenuation: typical,
                    secondsSinceLastScan: seconds, calibrationConfidence: confidence))
            previousMinute = minute
            index = end
        }
        return scans
    }

    private static func minute(of date: Date) -> Int64 {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite else { return 0 }
        return Int64((max(min(seconds, 1e15), -1e15) / 60).rounded(.down))
    }
}
