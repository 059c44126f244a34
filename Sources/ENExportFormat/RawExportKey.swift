import ENCore
import Foundation

/// The fields of one `TemporaryExposureKey` message as they appear on the wire, before any defaulting.
///
/// Both decoders (swift-protobuf for whole messages, `WireReader` for the streaming scanner) fill this and
/// call `makeKey(section:index:)`, so that the two agree on every effective value and every refusal.
struct RawExportKey {
    /// key_data: a decoded message's `Data`, or the bytes in place in the file's buffer (the streaming
    /// scanner, which then copies 16 bytes into the key and allocates nothing per key). A borrowed value is
    /// valid only inside the closure that lends the buffer, where the scanner builds the key at once.
    enum KeyData {
        case copied(Data)
        case borrowed(UnsafeRawBufferPointer)

        var count: Int {
            switch self {
            case .copied(let data): data.count
            case .borrowed(let bytes): bytes.count
            }
        }
    }

    var keyData: KeyData?
    var transmissionRiskLevel: Int32?
    var rollingStartIntervalNumber: Int32?
    var rollingPeriod: Int32?
    var reportType: Int32?
    var daysSinceOnsetOfSymptoms: Int32?
    var variantOfConcern: Int32?

    /// The effective key, or a `badFormat` error naming the key and the field.
    ///
    /// - key_data must be present and 16 bytes;
    /// - an absent rolling_start_interval_number is 0 (servers omit zero), a negative one is refused;
    /// - an absent rolling_period is 144; one outside 1...144 is refused;
    /// - an absent transmission_risk_level is 0; one outside 0...8 is refused;
    /// - a report type or variant outside the enum reads as unknown (proto2 keeps unknown enum values aside, so
    ///   the decoders never store one here, and an earlier recognised value of a repeated field stands);
    /// - days since onset outside -14...14 (country-specific encodings reach 4000) read as unknown.
    func makeKey(section: ENExportKeySection, index: Int) throws(ENError) -> ENTemporaryExposureKey {
        func fail(_ reason: String) -> ENError {
            .badFormat("export.bin \(section.fieldName)[\(index)]: \(reason)")
        }
        guard let keyData else { throw fail("key_data is missing") }
        guard keyData.count == ENTemporaryExposureKey.keyLength else {
            throw fail("key_data is \(keyData.count) bytes, expected \(ENTemporaryExposureKey.keyLength)")
        }
        let start = rollingStartIntervalNumber ?? 0
        guard start >= 0 else { throw fail("rolling_start_interval_number \(start) is negative") }
        let period = rollingPeriod ?? Int32(ENTemporaryExposureKey.defaultRollingPeriod)
        guard period >= 1, period <= Int32(ENTemporaryExposureKey.defaultRollingPeriod) else {
            throw fail("rolling_period \(period) is outside 1...144")
        }
        let risk = transmissionRiskLevel ?? 0
        guard risk >= 0, risk <= Int32(ENTemporaryExposureKey.transmissionRiskLevelRange.upperBound) else {
            throw fail("transmission_risk_level \(risk) is outside 0...8")
        }
        let reportType = reportType.flatMap { $0 >= 0 ? ENDiagnosisReportType(rawValue: UInt32($0)) : nil }
        let variant = variantOfConcern.flatMap { $0 >= 0 ? ENVariantOfConcernType(rawValue: UInt32($0)) : nil }
        var days = ENDaysSinceOnsetOfSymptomsUnknown
        if let dsos = daysSinceOnsetOfSymptoms, ENTemporaryExposureKey.daysSinceOnsetRange.contains(Int(dsos)) {
            days = Int(dsos)
        }
        func key(_ bytes: UnsafeRawBufferPointer) -> ENTemporaryExposureKey {
            ENTemporaryExposureKey(
                keyDataBytes: bytes,
                rollingStartNumber: ENIntervalNumber(UInt32(start)),
                rollingPeriod: UInt32(period),
                transmissionRiskLevel: ENRiskLevel(risk),
                diagnosisReportType: reportType ?? .unknown,
                daysSinceOnsetOfSymptoms: days,
                variantOfConcern: variant ?? .unknown
            )
        }
        let key =
            switch keyData {
            case .copied(let data): data.withUnsafeBytes { key($0) }
            case .borrowed(let bytes): key(bytes)
            }
        do {
            try key.validate()
        } catch {
            throw fail(error.reason)
        }
        return key
    }
}
