public import ENCore
import ENRiskV2
public import Foundation

/// A `gaen-labelled-encounters` file, version 1: a data set's name and its encounters.
///
/// Decoding is strict where a value would change a result (every error names the encounter and the field) and
/// ignores unknown keys elsewhere.
public struct ENLabelledEncounterSet: Hashable, Sendable {
    /// The data set's `name`.
    public var name: String
    /// The data set's `title`, `source`, `licence` and other string metadata, for reports.
    public var metadata: [String: String]
    /// The encounters, in file order.
    public var encounters: [ENLabelledEncounter]

    /// Creates a set.
    public init(name: String, metadata: [String: String] = [:], encounters: [ENLabelledEncounter]) {
        self.name = name
        self.metadata = metadata
        self.encounters = encounters
    }

    /// The value of the `format` member.
    public static let format = "gaen-labelled-encounters"

    /// Decodes a file.
    ///
    /// - Parameters:
    ///   - jsonData: the file's bytes.
    ///   - scanModel: samples `rssiSeries` observations into scans (see ``ENScanModel``); without one they are
    ///     refused.
    /// - Throws: `ENError.Code.badFormat` with the encounter (`encounter <id>`, or `encounters[<index>]`) as
    ///   the context's section and the path of the bad value as its field; `ENError.Code.unsupported` for
    ///   `rssiSeries` observations when no scan model is given.
    public init(jsonData: Data, scanModel: ENScanModel? = nil) throws(ENError) {
        let root = try JSONNode.root(jsonData, section: "encounters file")
        guard try root.required("format").string() == Self.format else {
            throw root.failure("must be \"\(Self.format)\"", field: "format")
        }
        guard try root.required("version").integer(in: 0...Int.max) == 1 else {
            throw root.failure("must be 1", field: "version")
        }
        let dataset = try root.required("dataset")
        name = try dataset.required("name").string()
        var metadata: [String: String] = [:]
        for (key, value) in try dataset.object() { if let text = value as? String { metadata[key] = text } }
        self.metadata = metadata
        let devices = try root.optional("devices")
        var seen = Set<String>()
        var encounters: [ENLabelledEncounter] = []
        for (index, node) in try root.required("encounters").array().enumerated() {
            var item = node.renamed(section: "encounters[\(index)]")
            _ = try item.object()
            let id = try item.required("id").string()
            item = JSONNode(value: node.value, path: "", section: "encounter \(id)")
            guard seen.insert(id).inserted else { throw item.failure("duplicate id", field: "id") }
            encounters.append(try Self.encounter(item, id: id, devices: devices, scanModel: scanModel))
        }
        self.encounters = encounters
    }

    static func encounter(
        _ node: JSONNode, id: String, devices: JSONNode?, scanModel: ENScanModel?
    ) throws(ENError) -> ENLabelledEncounter {
        let truth = try node.required("groundTruth")
        var distance: Double?
        var series: [ENGroundTruth.DistancePoint] = []
        if let fixed = try truth.optional("distanceMeters") { distance = try fixed.number(in: 0...Double.infinity) }
        if let points = try truth.optional("distanceSeries") {
            for point in try points.array() {
                let time = try point.required("t").number()
                if let last = series.last, time < last.time { throw point.failure("t must not decrease") }
                series.append(.init(time: time, meters: try point.required("meters").number(in: 0...Double.infinity)))
            }
        }
        guard distance != nil || !series.isEmpty else {
            throw truth.failure("needs distanceMeters or a non-empty distanceSeries")
        }
        let duration = try truth.optional("durationSeconds")?.number(in: 0...Double.infinity)
        var metadata = ENKeyMetadata()
        if let meta = try node.optional("keyMetadata") {
            metadata.transmissionRiskLevel = try meta.optional("transmissionRiskLevel").map {
                (n) throws(ENError) in ENRiskLevel(try n.integer(in: 0...8))
            }
            metadata.reportType = try meta.optional("reportType").map(reportType)
            metadata.infectiousness = try meta.optional("infectiousness").map(infectiousness)
            metadata.daysSinceExposure = try meta.optional("daysSinceExposure")?.integer(in: 0...36_500)
        }
        let observation = try Self.observation(
            try node.required("observation"), id: id, devices: devices, scanModel: scanModel)
        return ENLabelledEncounter(
            id: id,
            groundTruth: ENGroundTruth(distanceMeters: distance, distanceSeries: series, durationSeconds: duration),
            keyMetadata: metadata, observation: observation)
    }

    static func reportType(_ node: JSONNode) throws(ENError) -> ENDiagnosisReportType {
        ENDiagnosisReportType(rawValue: UInt32(try node.integer(in: 0...5)))!
    }

    static func infectiousness(_ node: JSONNode) throws(ENError) -> ENInfectiousness {
        ENInfectiousness(rawValue: UInt32(try node.integer(in: 0...2)))!
    }

    static func observation(
        _ node: JSONNode, id: String, devices: JSONNode?, scanModel: ENScanModel?
    ) throws(ENError) -> ENObservation {
        let kind = try node.required("kind")
        switch try kind.string() {
        case "attenuationHistogram": return .attenuationHistogram(try histogram(node))
        case "scanInstances": return .exposureWindows(try windows(node))
        case "sightings": return .exposureWindows(try sightings(node))
        case "rssiSeries":
            guard let scanModel else {
                throw ENError.unsupported(
                    "rssiSeries observations need a scan model (entool uses the simulator's)",
                    context: ENError.Context(section: node.section, field: kind.path))
            }
            return .exposureWindows(try rssiSeries(node, id: id, scanModel: scanModel))
        default: throw kind.failure("unknown observation kind")
        }
    }

    static func histogram(_ node: JSONNode) throws(ENError) -> ENAttenuationHistogram {
        var scale = 60.0
        if let unit = try node.optional("unit") {
            switch try unit.string() {
            case "minutes": scale = 60
            case "seconds": scale = 1
            default: throw unit.failure("must be \"minutes\" or \"seconds\"")
            }
        }
        if let semantics = try node.optional("binSemantics"), try semantics.string() != "integerLoInclusiveHiExclusive"
        {
            throw semantics.failure("must be \"integerLoInclusiveHiExclusive\"")
        }
        var coverage: ClosedRange<Int>?
        if let range = try node.optional("coverage") {
            let low = try range.required("min").integer(in: 0...256)
            let high = try range.required("max").integer(in: 0...256)
            guard low <= high else { throw range.failure("min must not exceed max") }
            coverage = low...high
        }
        let binNodes = try node.required("bins").array()
        var bins: [ENAttenuationHistogram.Bin] = []
        for bin in binNodes {
            let lo = try bin.required("lo").integer(in: 0...255)
            let hi = try bin.required("hi").integer(in: 1...256)
            guard hi > lo else { throw bin.failure("hi must be greater than lo", field: "\(bin.path).hi") }
            let value = try bin.required("value")
            guard try value.number() >= 0 else { throw value.failure("must be at least 0, got \(try value.number())") }
            bins.append(.init(lo: lo, hi: hi, seconds: try value.number() * scale))
        }
        let histogram = ENAttenuationHistogram(bins: bins, coverage: coverage)
        do {
            try histogram.validate()
        } catch {
            let index = error.context.index ?? 0
            throw node.failure("overlaps another bin", field: binNodes[min(index, binNodes.count - 1)].path)
        }
        return histogram
    }

    static func day(_ node: JSONNode) throws(ENError) -> Date {
        let text = try node.string()
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            (1...12).contains(month), (1...31).contains(day)
        else { throw node.failure("must be a date YYYY-MM-DD, got \"\(text)\"") }
        var components = DateComponents()
        (components.year, components.month, components.day) = (year, month, day)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        guard let date = calendar.date(from: components), calendar.component(.day, from: date) == day else {
            throw node.failure("must be a date YYYY-MM-DD, got \"\(text)\"")
        }
        return date
    }

    static func windows(_ node: JSONNode) throws(ENError) -> [ENObservedWindow] {
        var result: [ENObservedWindow] = []
        for window in try node.required("windows").array() {
            var scans: [ENScanInstance] = []
            for scan in try window.required("scanInstances").array() {
                scans.append(
                    ENScanInstance(
                        minimumAttenuation: ENAttenuation(try scan.required("minimumAttenuation").integer(in: 0...255)),
                        typicalAttenuation: ENAttenuation(try scan.required("typicalAttenuation").integer(in: 0...255)),
                        secondsSinceLastScan: try scan.required("secondsSinceLastScan").integer(in: -86_400...86_400)))
            }
            let confidence = try window.optional("calibrationConfidence").map {
                (n) throws(ENError) in ENCalibrationConfidence(rawValue: UInt8(try n.integer(in: 0...3)))!
            }
            result.append(
                ENObservedWindow(
                    date: try day(try window.required("date")),
                    reportType: try window.optional("diagnosisReportType").map(reportType),
                    infectiousness: try window.optional("infectiousness").map(infectiousness),
                    calibrationConfidence: confidence ?? .high, scanInstances: scans))
        }
        return result
    }

    /// Logged scans (start, length, RSSI list) through the package's own scan and window rules
    /// (`ENKeyMatch.scans`, `ENScoringV2.exposureWindows(from:configuration:)`): every RSSI of a logged scan is a
    /// sighting at the scan's start, attenuation = max(txPower − (rssi + rssiCorrection), 0).
    static func sightings(_ node: JSONNode) throws(ENError) -> [ENObservedWindow] {
        let txPower = try node.required("txPower").integer(in: -127...127)
        let correction = try node.optional("rssiCorrection")?.integer(in: -127...127) ?? 0
        var scans: [(date: Date, rssi: [Int])] = []
        for scan in try node.required("scans").array() {
            let time = try scan.required("t")
            guard let date = RFC3339.date(from: try time.string()) else {
                throw time.failure("must be an ISO 8601 date-time")
            }
            var values: [Int] = []
            for rssi in try scan.required("rssi").array() { values.append(try rssi.integer(in: -127...20)) }
            scans.append((date, values))
        }
        return windows(scans: scans, txPower: txPower, correction: correction)
    }

    /// `rssiSeries`: the samples (`t` in seconds since 1970, not decreasing) fall into the scans of the scan
    /// model (a sample belongs to a scan when `start <= t < end`); scans that heard nothing are left out; the
    /// rest are logged scans, turned into windows as `sightings` are. `rssiCalibrated` samples already include
    /// the receiver's correction.
    static func rssiSeries(_ node: JSONNode, id: String, scanModel: ENScanModel) throws(ENError) -> [ENObservedWindow] {
        let txPower = try node.required("txPower").integer(in: -127...127)
        let calibrated = try node.optional("rssiCalibrated")?.bool() ?? false
        var correction = try node.optional("rssiCorrection")?.integer(in: -127...127) ?? 0
        if calibrated { correction = 0 }
        var samples: [(time: Double, rssi: Int)] = []
        for sample in try node.required("samples").array() {
            let time = try sample.required("t").number(in: 0...1e11)
            if let last = samples.last, time < last.time { throw sample.failure("t must not decrease") }
            samples.append((time, try sample.required("rssi").integer(in: -127...20)))
        }
        guard let first = samples.first, let last = samples.last else { return [] }
        let span = DateInterval(
            start: Date(timeIntervalSince1970: first.time), end: Date(timeIntervalSince1970: last.time))
        var scans: [(date: Date, rssi: [Int])] = []
        var index = 0
        for scan in scanModel.scans(span, id).sorted(by: { $0.start < $1.start }) {
            let start = scan.start.timeIntervalSince1970
            let end = scan.end.timeIntervalSince1970
            while index < samples.count, samples[index].time < start { index += 1 }
            var heard: [Int] = []
            var cursor = index
            while cursor < samples.count, samples[cursor].time < end {
                heard.append(samples[cursor].rssi)
                cursor += 1
            }
            if !heard.isEmpty { scans.append((scan.start, heard)) }
        }
        return windows(scans: scans, txPower: txPower, correction: correction)
    }

    /// Logged scans to windows: every RSSI of a scan is a sighting at the scan's start.
    static func windows(scans: [(date: Date, rssi: [Int])], txPower: Int, correction: Int) -> [ENObservedWindow] {
        var sightings: [ENMatchedSighting] = []
        for scan in scans {
            for rssi in scan.rssi {
                let sighting = ENSighting(
                    rpi: RollingProximityIdentifier(lowWord: 0, highWord: 0),
                    aem: AssociatedEncryptedMetadata(rawValue: 0),
                    timestamp: scan.date, rssi: Int8(clamping: rssi + correction))
                sightings.append(
                    ENMatchedSighting(
                        sighting: sighting, derivedInterval: ENIntervalNumber(date: scan.date),
                        txPower: Int8(clamping: txPower)))
            }
        }
        var neutral = ENExposureConfiguration()
        neutral.reportTypeNoneMap = .confirmedTest
        neutral.infectiousnessByDaysSinceOnsetOfSymptoms = [ENDaysSinceOnsetOfSymptomsUnknown: .standard]
        let match = ENKeyMatch(key: ENTemporaryExposureKey(), sightings: sightings)
        return ENScoringV2.exposureWindows(from: match, configuration: neutral).map {
            ENObservedWindow(
                date: $0.date, calibrationConfidence: $0.calibrationConfidence, scanInstances: $0.scanInstances)
        }
    }
}
