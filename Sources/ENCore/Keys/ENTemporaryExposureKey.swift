public import Foundation

/// A temporary exposure key (TEK): the daily secret from which a device's broadcast identifiers derive,
/// as the device keeps it and as a diagnosis server publishes it.
///
/// The properties keep Apple's names. Beyond Apple's four, the key carries the fields an export file
/// carries per key (report type, days since onset of symptoms, variant of concern), so that a key read
/// from a file loses nothing.
///
/// Construction does not validate, so that a decoder can hold a bad key long enough to report it;
/// call ``validate()`` (readers and writers in this package always do).
public struct ENTemporaryExposureKey: Hashable, Sendable {
    /// The key data as stored: 16 bytes inline as two words (no heap allocation, cheap to copy, compare and
    /// hash, and readable by the matcher without going through `Data`), any other length as `Data` so that
    /// ``validate()`` can report it.
    @usableFromInline var storage: KeyBytes

    /// The 16 secret bytes of the key.
    ///
    /// Any length can be assigned (``validate()`` reports a wrong one); 16 bytes are held inline.
    public var keyData: Data {
        get { storage.data }
        set { storage = KeyBytes(newValue) }
    }
    /// The first interval in which the key was (or will be) used.
    public var rollingStartNumber: ENIntervalNumber
    /// How many intervals the key was used for: 1...144, 144 by default (a whole day).
    public var rollingPeriod: ENIntervalNumber
    /// The deprecated transmission risk level, 0...8 (Apple's API documents 0...7; export files carry up to 8).
    public var transmissionRiskLevel: ENRiskLevel
    /// The report type attached by the server. ``ENDiagnosisReportType/unknown`` when absent.
    public var diagnosisReportType: ENDiagnosisReportType
    /// Days from symptom onset to the key's day, -14...14, or ``ENDaysSinceOnsetOfSymptomsUnknown``.
    public var daysSinceOnsetOfSymptoms: Int
    /// The variant of concern attached by the server.
    public var variantOfConcern: ENVariantOfConcernType

    /// The length of `keyData`: 16 bytes.
    public static let keyLength = 16
    /// The default and largest rolling period: 144 intervals.
    public static let defaultRollingPeriod: ENIntervalNumber = 144
    /// The valid range of `daysSinceOnsetOfSymptoms` when it is known.
    public static let daysSinceOnsetRange: ClosedRange<Int> = -14...14
    /// The valid range of `transmissionRiskLevel`.
    public static let transmissionRiskLevelRange: ClosedRange<ENRiskLevel> = 0...8

    /// Creates an empty key, as Apple's `ENTemporaryExposureKey()`: no key data, rolling start 0, the default
    /// rolling period of 144, transmission risk level 0, unknown report type and days since onset. Set the
    /// properties, then ``validate()``.
    public init() {
        self.init(keyData: Data(), rollingStartNumber: 0)
    }

    /// Creates a key. Nothing is checked here; see ``validate()``.
    public init(
        keyData: Data,
        rollingStartNumber: ENIntervalNumber,
        rollingPeriod: ENIntervalNumber = ENTemporaryExposureKey.defaultRollingPeriod,
        transmissionRiskLevel: ENRiskLevel = 0,
        diagnosisReportType: ENDiagnosisReportType = .unknown,
        daysSinceOnsetOfSymptoms: Int = ENDaysSinceOnsetOfSymptomsUnknown,
        variantOfConcern: ENVariantOfConcernType = .unknown
    ) {
        self = keyData.withUnsafeBytes { bytes in
            ENTemporaryExposureKey(
                keyDataBytes: bytes, rollingStartNumber: rollingStartNumber, rollingPeriod: rollingPeriod,
                transmissionRiskLevel: transmissionRiskLevel, diagnosisReportType: diagnosisReportType,
                daysSinceOnsetOfSymptoms: daysSinceOnsetOfSymptoms, variantOfConcern: variantOfConcern)
        }
    }

    /// Whether the days since onset of symptoms are known.
    public var hasKnownDaysSinceOnsetOfSymptoms: Bool { daysSinceOnsetOfSymptoms != ENDaysSinceOnsetOfSymptomsUnknown }

    /// The intervals the key was valid for: `rollingStartNumber ..< rollingStartNumber + rollingPeriod`.
    public var validityIntervals: Range<ENIntervalNumber> {
        rollingStartNumber..<rollingStartNumber.adding(Int(rollingPeriod))
    }

    /// The interval after the last one the key was valid for.
    public var rollingEndNumber: ENIntervalNumber { rollingStartNumber.adding(Int(rollingPeriod)) }

    /// Checks every field and throws ``ENError/Code/badParameter`` naming the first one that is wrong.
    ///
    /// - key data must be exactly 16 bytes;
    /// - the rolling period must be 1...144;
    /// - the transmission risk level must be 0...8;
    /// - days since onset must be -14...14 or ``ENDaysSinceOnsetOfSymptomsUnknown``;
    /// - the key's end must not pass the end of the `UInt32` interval range.
    public func validate() throws(ENError) {
        guard storage.count == Self.keyLength else {
            throw .badParameter(
                "must be \(Self.keyLength) bytes, got \(storage.count)", context: .init(field: "keyData"))
        }
        guard rollingPeriod >= 1, rollingPeriod <= Self.defaultRollingPeriod else {
            throw .badParameter(
                "must be 1...144 intervals, got \(rollingPeriod)", context: .init(field: "rollingPeriod"))
        }
        guard Self.transmissionRiskLevelRange.contains(transmissionRiskLevel) else {
            throw .badParameter(
                "must be 0...8, got \(transmissionRiskLevel)", context: .init(field: "transmissionRiskLevel"))
        }
        guard !hasKnownDaysSinceOnsetOfSymptoms || Self.daysSinceOnsetRange.contains(daysSinceOnsetOfSymptoms) else {
            throw .badParameter(
                "must be -14...14 or unknown, got \(daysSinceOnsetOfSymptoms)",
                context: .init(field: "daysSinceOnsetOfSymptoms"))
        }
        guard UInt64(rollingStartNumber) + UInt64(rollingPeriod) <= UInt64(UInt32.max) else {
            throw .badParameter(
                "rolling start \(rollingStartNumber) plus period \(rollingPeriod) overflows",
                context: .init(field: "rollingStartNumber"))
        }
    }
}

extension ENTemporaryExposureKey {
    /// Creates a key from key bytes read in place (a file's buffer), without an intermediate `Data`: 16 bytes
    /// are copied inline. For the package's decoders, which read millions of keys. Nothing is checked here.
    @inlinable package init(
        keyDataBytes: UnsafeRawBufferPointer,
        rollingStartNumber: ENIntervalNumber,
        rollingPeriod: ENIntervalNumber,
        transmissionRiskLevel: ENRiskLevel,
        diagnosisReportType: ENDiagnosisReportType,
        daysSinceOnsetOfSymptoms: Int,
        variantOfConcern: ENVariantOfConcernType
    ) {
        self.storage = KeyBytes(keyDataBytes)
        self.rollingStartNumber = rollingStartNumber
        self.rollingPeriod = rollingPeriod
        self.transmissionRiskLevel = transmissionRiskLevel
        self.diagnosisReportType = diagnosisReportType
        self.daysSinceOnsetOfSymptoms = daysSinceOnsetOfSymptoms
        self.variantOfConcern = variantOfConcern
    }

    /// The 16 key bytes as two little-endian words (bytes 0..<8 and 8..<16), or nil when the key data is not
    /// 16 bytes. For the package's hot paths (matching reads millions of keys), which must not pay for `Data`:
    /// inlinable, so that a reader in another module does not copy the key to ask.
    @inlinable package var keyDataWords: (low: UInt64, high: UInt64)? {
        if case .inline(let low, let high) = storage { return (low, high) }
        return nil
    }
}

/// Key data: 16 bytes inline, anything else (only ever seen in invalid input) as `Data`.
@usableFromInline enum KeyBytes: Hashable, Sendable {
    case inline(UInt64, UInt64)
    case other(Data)

    init(_ data: Data) {
        if data.count == ENTemporaryExposureKey.keyLength {
            self = data.withUnsafeBytes { KeyBytes($0) }
        } else {
            self = .other(data)
        }
    }

    @inlinable init(_ bytes: UnsafeRawBufferPointer) {
        if bytes.count == ENTemporaryExposureKey.keyLength {
            self = .inline(
                UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        } else {
            self = .other(Data(bytes))
        }
    }

    var count: Int {
        switch self {
        case .inline: ENTemporaryExposureKey.keyLength
        case .other(let data): data.count
        }
    }

    var data: Data {
        switch self {
        case .inline(let low, let high):
            var words = (low.littleEndian, high.littleEndian)
            return withUnsafeBytes(of: &words) { Data($0) }
        case .other(let data):
            return data
        }
    }
}
