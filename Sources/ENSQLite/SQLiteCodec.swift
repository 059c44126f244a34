package import ENCore
package import Foundation
package import GRDB

/// Conversions between ENCore values and the store's columns.
///
/// Dates are stored as `timeIntervalSinceReferenceDate` (the `Double` a `Date` holds), so they read back
/// bit for bit.
package enum SQLiteCodec {
    package static func column(_ date: Date) -> Double { date.timeIntervalSinceReferenceDate }
    package static func date(_ column: Double) -> Date { Date(timeIntervalSinceReferenceDate: column) }

    /// The length of a sighting's payload: RPI 16, AEM 4, RSSI 1, calibration 1, timestamp 8.
    package static let sightingPayloadLength = 30

    package static func sightingPayload(_ sighting: ENSighting) -> Data {
        var bytes = [UInt8]()
        bytes.reserveCapacity(sightingPayloadLength)
        bytes.append(contentsOf: sighting.rpi.bytes)
        bytes.append(contentsOf: sighting.aem.bytes)
        bytes.append(UInt8(bitPattern: sighting.rssi))
        bytes.append(sighting.calibrationConfidence.rawValue)
        let bits = sighting.timestamp.timeIntervalSinceReferenceDate.bitPattern
        for i in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: bits >> UInt64(8 * i))) }
        return Data(bytes)
    }

    package static func sighting(fromPayload payload: Data) throws(ENError) -> ENSighting {
        guard payload.count == sightingPayloadLength else {
            throw ENError(.badFormat, "a stored sighting is \(sightingPayloadLength) bytes, found \(payload.count)")
        }
        // Little-endian word loads: this is the matcher's load path, run for every retained sighting.
        let (low, high, aem, rssi, confidenceRaw, bits) = payload.withUnsafeBytes { raw in
            (
                UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)),
                UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 16, as: UInt32.self)),
                raw[20], raw[21],
                UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 22, as: UInt64.self))
            )
        }
        guard let confidence = ENCalibrationConfidence(rawValue: confidenceRaw) else {
            throw ENError(.badFormat, "a stored sighting has calibration confidence \(confidenceRaw), expected 0...3")
        }
        return ENSighting(
            rpi: RollingProximityIdentifier(lowWord: low, highWord: high),
            aem: AssociatedEncryptedMetadata(rawValue: aem),
            timestamp: Date(timeIntervalSinceReferenceDate: Double(bitPattern: bits)),
            rssi: Int8(bitPattern: rssi), calibrationConfidence: confidence)
    }

    /// Associated data that binds a sealed value to its table and interval.
    package static func context(_ table: String, _ interval: UInt32) -> Data {
        var data = Data("ENStore.\(table).".utf8)
        withUnsafeBytes(of: interval.littleEndian) { data.append(contentsOf: $0) }
        return data
    }

    // MARK: Diagnosis keys (the column layout of ENKeyServer's posted keys)

    package static let keyColumns =
        "key_data, rolling_start, rolling_period, transmission_risk_level, report_type, days_since_onset, variant"

    package static func keyArguments(_ key: ENTemporaryExposureKey) -> StatementArguments {
        let daysSinceOnset: Int64? =
            key.hasKnownDaysSinceOnsetOfSymptoms ? Int64(key.daysSinceOnsetOfSymptoms) : nil
        return [
            key.keyData, Int64(key.rollingStartNumber), Int64(key.rollingPeriod),
            Int64(key.transmissionRiskLevel), Int64(key.diagnosisReportType.rawValue), daysSinceOnset,
            Int64(key.variantOfConcern.rawValue),
        ]
    }

    package static func key(from row: Row) throws(ENError) -> ENTemporaryExposureKey {
        let keyData: Data = try row.stored("key_data")
        let reportRaw: Int64 = try row.stored("report_type")
        let variantRaw: Int64 = try row.stored("variant")
        let trl: Int64 = try row.stored("transmission_risk_level")
        let dsos: Int64? = try row.stored("days_since_onset")
        guard let report = ENDiagnosisReportType(rawValue: UInt32(clamping: reportRaw)),
            let variant = ENVariantOfConcernType(rawValue: UInt32(clamping: variantRaw))
        else {
            throw ENError(.badFormat, "a stored diagnosis key has report type \(reportRaw) or variant \(variantRaw)")
        }
        let key = ENTemporaryExposureKey(
            keyData: keyData,
            rollingStartNumber: ENIntervalNumber(UInt32(clamping: (try row.stored("rolling_start", as: Int64.self)))),
            rollingPeriod: UInt32(clamping: (try row.stored("rolling_period", as: Int64.self))),
            transmissionRiskLevel: UInt8(clamping: trl),
            diagnosisReportType: report,
            daysSinceOnsetOfSymptoms: dsos.map { Int($0) } ?? ENDaysSinceOnsetOfSymptomsUnknown,
            variantOfConcern: variant)
        return key
    }
}
