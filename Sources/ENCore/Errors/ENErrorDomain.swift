/// The error domain of Exposure Notification errors, `"ENErrorDomain"`, as Apple's global constant (the same as
/// ``ENError/domain`` and `ENError.errorDomain`).
public let ENErrorDomain: String = ENError.domain
