public import ENCore
public import Foundation

/// The test targets' one factory of temporary exposure keys: deterministic keys named by an index, random ones
/// drawn from a ``SeededRandomNumberGenerator`` (or any generator), and fresh ones, each with any start interval, rolling period, transmission risk
/// level, report type, days since onset and variant.
///
/// ```swift
/// let key = TestKeys.key(3, start: dayStart, reportType: .confirmedTest)  // the same key on every run
/// var random = SeededRandomNumberGenerator.forTest()
/// let keys = (0..<100).map { _ in TestKeys.random(using: &random) }  // every field random
/// ```
public enum TestKeys {
    /// The start of 2020-04-02 (UTC), the interval keys start at unless told otherwise.
    public static let defaultStart = ENIntervalNumber(2_642_976)

    /// The key data of key `index`: the index's eight little-endian bytes, then eight bytes 0x5A. Different
    /// indexes give different key data.
    public static func keyData(_ index: Int) -> Data {
        var data = Data(repeating: 0x5A, count: 16)
        withUnsafeBytes(of: UInt64(truncatingIfNeeded: index).littleEndian) { data.replaceSubrange(0..<8, with: $0) }
        return data
    }

    /// Key `index` (its data is ``keyData(_:)``), with the other fields as given; Apple's defaults otherwise,
    /// except the start (``defaultStart``).
    public static func key(
        _ index: Int = 0, start: ENIntervalNumber = defaultStart, period: UInt32 = 144,
        transmissionRiskLevel: ENRiskLevel = 0, reportType: ENDiagnosisReportType = .unknown,
        daysSinceOnset: Int = ENDaysSinceOnsetOfSymptomsUnknown, variant: ENVariantOfConcernType = .unknown
    ) -> ENTemporaryExposureKey {
        key(
            data: keyData(index), start: start, period: period, transmissionRiskLevel: transmissionRiskLevel,
            reportType: reportType, daysSinceOnset: daysSinceOnset, variant: variant)
    }

    /// A key with exactly `data` as its key data (of any length, for the tests of validation), with the other
    /// fields as given.
    public static func key(
        data: Data, start: ENIntervalNumber = defaultStart, period: UInt32 = 144,
        transmissionRiskLevel: ENRiskLevel = 0, reportType: ENDiagnosisReportType = .unknown,
        daysSinceOnset: Int = ENDaysSinceOnsetOfSymptomsUnknown, variant: ENVariantOfConcernType = .unknown
    ) -> ENTemporaryExposureKey {
        ENTemporaryExposureKey(
            keyData: data, rollingStartNumber: start, rollingPeriod: period,
            transmissionRiskLevel: transmissionRiskLevel,
            diagnosisReportType: reportType, daysSinceOnsetOfSymptoms: daysSinceOnset, variantOfConcern: variant)
    }

    /// A key with random key data from `generator`, and the other fields as given.
    public static func random(
        start: ENIntervalNumber, period: UInt32 = 144, transmissionRiskLevel: ENRiskLevel = 0,
        reportType: ENDiagnosisReportType = .unknown, daysSinceOnset: Int = ENDaysSinceOnsetOfSymptomsUnknown,
        variant: ENVariantOfConcernType = .unknown, using generator: inout some RandomNumberGenerator
    ) -> ENTemporaryExposureKey {
        key(
            data: randomData(using: &generator), start: start, period: period,
            transmissionRiskLevel: transmissionRiskLevel, reportType: reportType, daysSinceOnset: daysSinceOnset,
            variant: variant)
    }

    /// A key with fresh key data from the system's generator, as `ENTemporaryExposureKey.generate` makes one, and
    /// the other fields as given: for tests that need keys no other test uses, whatever their bytes.
    public static func fresh(
        start: ENIntervalNumber, period: UInt32 = 144, transmissionRiskLevel: ENRiskLevel = 0,
        reportType: ENDiagnosisReportType = .unknown, daysSinceOnset: Int = ENDaysSinceOnsetOfSymptomsUnknown,
        variant: ENVariantOfConcernType = .unknown
    ) -> ENTemporaryExposureKey {
        // The system's generator is used by value, not passed `inout`: ThreadSanitizer's instrumentation of an
        // `inout` access to this empty struct reads the shadow of an address that is not one, and crashes.
        key(
            data: Data((0..<16).map { _ in UInt8.random(in: 0...255) }), start: start, period: period,
            transmissionRiskLevel: transmissionRiskLevel, reportType: reportType, daysSinceOnset: daysSinceOnset,
            variant: variant)
    }

    /// A random valid key from `generator`: every field random, every optional field sometimes present.
    public static func random(using generator: inout some RandomNumberGenerator) -> ENTemporaryExposureKey {
        let data = randomData(using: &generator)
        return key(
            data: data, start: ENIntervalNumber(UInt32.random(in: 0...3_000_000, using: &generator)),
            period: UInt32.random(in: 1...144, using: &generator),
            transmissionRiskLevel: UInt8.random(in: 0...8, using: &generator),
            reportType: ENDiagnosisReportType.allCases.randomElement(using: &generator)!,
            daysSinceOnset: Bool.random(using: &generator)
                ? Int.random(in: -14...14, using: &generator) : ENDaysSinceOnsetOfSymptomsUnknown,
            variant: ENVariantOfConcernType.allCases.randomElement(using: &generator)!)
    }

    /// Sixteen random bytes from `generator`.
    public static func randomData(using generator: inout some RandomNumberGenerator) -> Data {
        Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }
}
