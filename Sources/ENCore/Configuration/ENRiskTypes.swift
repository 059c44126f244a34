/// A signal attenuation in dB: advertised transmit power minus measured RSSI, 0...255.
///
/// The limits below are `Int`, as Apple's SDK imports them (`var ENRiskScoreMax: Int { get }`): convert them to
/// the value's type where they meet one, `ENAttenuation(ENAttenuationMax)`, `Double(ENRiskWeightDefault)`.
///
/// `0xFF` (``ENAttenuationMax``) also stands for "unknown", as when the metadata could not be decrypted.
public typealias ENAttenuation = UInt8

/// The smallest attenuation, 0 dB.
public let ENAttenuationMin: Int = 0
/// The largest attenuation, 255 dB, also used for "unknown".
public let ENAttenuationMax: Int = 0xFF

/// A risk level, 0...7 (version 1 scoring: an index into a configuration's level values).
public typealias ENRiskLevel = UInt8

/// The lowest risk level.
public let ENRiskLevelMin: Int = 0
/// The highest risk level.
public let ENRiskLevelMax: Int = 7

/// A risk level value, 0...8 (version 1 scoring: the value a configuration assigns to a bucket).
public typealias ENRiskLevelValue = UInt8

/// The lowest risk level value.
public let ENRiskLevelValueMin: Int = 0
/// The highest risk level value.
public let ENRiskLevelValueMax: Int = 8

/// A risk score, 0...255, where 255 is the highest risk.
public typealias ENRiskScore = UInt8

/// The lowest risk score.
public let ENRiskScoreMin: Int = 0
/// The highest risk score.
public let ENRiskScoreMax: Int = 255

/// The default version 1 weight (a multiplier).
public let ENRiskWeightDefault: Int = 1
/// The default version 2 weight, in percent.
public let ENRiskWeightDefaultV2: Int = 100
/// The smallest weight.
public let ENRiskWeightMin: Int = 0
/// The largest version 1 weight, in percent as Apple documents it.
public let ENRiskWeightMax: Int = 100
/// The largest version 2 weight, in percent.
public let ENRiskWeightMaxV2: Int = 250

/// The value of ``ENTemporaryExposureKey/daysSinceOnsetOfSymptoms`` when it is unknown: `Int.max`, as Apple's
/// `NSIntegerMax`. It is never written to a file; there the field is simply absent.
public let ENDaysSinceOnsetOfSymptomsUnknown: Int = .max
