internal import ENCore
internal import Foundation

/// The keys of one imported file, as Google's export-importer turns them into exposures
/// (`internal/exportimport/import.go` `ImportExportFile` and `transformer.transform`,
/// `internal/publish/model/exposure_model.go` `FromExportKey`), and the one write that stores them.
struct ImportedKeys {
    var insertions: [ENKeyServerInsertion] = []
    var revisions: [ENKeyServerRevision] = []
    var dropped = 0

    /// Transforms `keys` and `revisedKeys` of a file imported at `now` by `configuration`, against the stored keys
    /// `stored` (by key data).
    init(
        keys: [ENTemporaryExposureKey], revisedKeys: [ENTemporaryExposureKey],
        stored: [Data: ENStoredDiagnosisKey], configuration: ENExportImportConfiguration, at now: Date
    ) {
        let origin = ENKeyServerKeyOrigin(
            regions: [configuration.region], traveler: configuration.traveler, importName: configuration.name)
        // Primary keys: new ones are inserted; a stored key is skipped (`SkipRevisions`); revoked is refused.
        var inserted: [Data: ENTemporaryExposureKey] = [:]
        for key in keys {
            guard let (transformed, exportableAt) = Self.transform(key, revised: false, configuration, now) else {
                dropped += 1
                continue
            }
            guard stored[key.keyData] == nil, inserted[key.keyData] == nil else { continue }
            inserted[key.keyData] = transformed
            insertions.append(ENKeyServerInsertion(key: transformed, exportableAt: exportableAt, origin: origin))
        }
        // Revised keys: only confirmed or revoked, only of keys this import brought (`OnlyRevisions`,
        // `RequireExportImportID`), with Google's transitions.
        var revised = Set<Data>()
        for key in revisedKeys {
            guard let (transformed, revisedAt) = Self.transform(key, revised: true, configuration, now) else {
                dropped += 1
                continue
            }
            let existing: (type: ENDiagnosisReportType, revision: ENKeyServerRevision?, origin: ENKeyServerKeyOrigin)
            if let old = stored[key.keyData] {
                existing = (old.key.diagnosisReportType, old.revision, old.origin)
            } else if let new = inserted[key.keyData] {
                existing = (new.diagnosisReportType, nil, origin)
            } else {
                continue
            }
            let newType = transformed.diagnosisReportType
            guard existing.origin.importName == configuration.name, !revised.contains(key.keyData) else {
                dropped += 1
                continue
            }
            if existing.type == newType || existing.revision?.reportType == newType { continue }
            guard existing.revision == nil, PublishRevision.isAllowedTransition(from: existing.type, to: newType)
            else {
                dropped += 1
                continue
            }
            var regions = existing.origin
            regions.add([configuration.region])
            revised.insert(key.keyData)
            revisions.append(
                ENKeyServerRevision(
                    keyData: key.keyData, reportType: newType,
                    daysSinceOnsetOfSymptoms: transformed.daysSinceOnsetOfSymptoms, revisedAt: revisedAt,
                    regions: regions.regions))
        }
    }

    /// Google's `FromExportKey` with the importer's settings, then the time from which the key may be exported (the
    /// import's hour, or for a key still valid the hour after its end); `nil` for a key Google drops.
    static func transform(
        _ key: ENTemporaryExposureKey, revised: Bool, _ configuration: ENExportImportConfiguration, _ now: Date
    ) -> (ENTemporaryExposureKey, Date)? {
        guard key.keyData.count == ENTemporaryExposureKey.keyLength else { return nil }
        var type = key.diagnosisReportType
        switch type {
        case .unknown: type = configuration.backfillReportType
        case .recursive: return nil
        default: break
        }
        // Primary keys: self-report and likely allowed, negative not; revised keys: the reverse.
        switch type {
        case .revoked where !revised: return nil
        case .selfReported, .confirmedClinicalDiagnosis: if revised { return nil }
        default: break
        }
        guard key.transmissionRiskLevel <= 8, (1...144).contains(key.rollingPeriod) else { return nil }
        var daysSinceOnset = ENDaysSinceOnsetOfSymptomsUnknown
        if key.hasKnownDaysSinceOnsetOfSymptoms {
            guard abs(key.daysSinceOnsetOfSymptoms) <= configuration.maximumSymptomOnsetDays else { return nil }
            daysSinceOnset = key.daysSinceOnsetOfSymptoms
        } else if let backfill = configuration.backfillDaysSinceOnset {
            daysSinceOnset = backfill
        }
        let risk = PublishTransform.backfilledTransmissionRisk(type, Int(key.transmissionRiskLevel))
        let window = configuration.truncateWindow
        var exportable = PublishTransform.truncate(now.timeIntervalSince1970, to: window)
        let end = Double(UInt64(key.rollingStartNumber) + UInt64(key.rollingPeriod)) * 600
        if exportable < end { exportable = PublishTransform.truncate(end + window, to: window) }
        let transformed = ENTemporaryExposureKey(
            keyData: key.keyData, rollingStartNumber: key.rollingStartNumber, rollingPeriod: key.rollingPeriod,
            transmissionRiskLevel: UInt8(risk), diagnosisReportType: type, daysSinceOnsetOfSymptoms: daysSinceOnset,
            variantOfConcern: key.variantOfConcern)
        return (transformed, Date(timeIntervalSince1970: exportable))
    }
}
