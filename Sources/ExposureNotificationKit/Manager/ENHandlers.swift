public import ENCore
public import ENRiskV1
public import ENRiskV2

/// Apple's handler of an operation that returns nothing: the error, or `nil` on success.
public typealias ENErrorHandler = (_ error: (any Error)?) -> Void

/// Apple's handler of `getDiagnosisKeys` and `getTestDiagnosisKeys`.
public typealias ENGetDiagnosisKeysHandler = (_ keys: [ENTemporaryExposureKey]?, _ error: (any Error)?) -> Void

/// Apple's handler of `detectExposures`: the summary, or the error.
public typealias ENDetectExposuresHandler = (
    _ summary: ENExposureDetectionSummary?, _ error: (any Error)?
) -> Void

/// Apple's handler of `getExposureInfo(summary:userExplanation:completionHandler:)`.
public typealias ENGetExposureInfoHandler = (_ exposures: [ENExposureInfo]?, _ error: (any Error)?) -> Void

/// Apple's handler of `getExposureWindows(summary:completionHandler:)`.
public typealias ENGetExposureWindowsHandler = (_ exposureWindows: [ENExposureWindow]?, _ error: (any Error)?) -> Void

/// Apple's handler of `getUserTraveled`.
public typealias ENGetUserTraveledHandler = (_ traveled: Bool, _ error: (any Error)?) -> Void

/// Apple's handler of pre-authorized keys: called with the keys once the user's pre-authorization releases them.
public typealias ENDiagnosisKeysAvailableHandler = (_ keys: [ENTemporaryExposureKey]) -> Void

/// Apple's handler of background activity.
public typealias ENActivityHandler = (_ activityFlags: ENActivityFlags) -> Void
