// `import ExposureNotificationKit` replaces `import ExposureNotification`: the vocabulary and the result types
// come with it.
@_exported public import ENCore
@_exported public import ENRiskV1
@_exported public import ENRiskV2
