public import Foundation

extension ENError: CustomNSError {
    /// `"ENErrorDomain"`, as Apple's framework.
    public static var errorDomain: String { ENError.domain }
    /// The code's raw value.
    public var errorCode: Int { code.rawValue }
    /// The reason, under `NSLocalizedDescriptionKey` and `NSLocalizedFailureReasonErrorKey`.
    public var errorUserInfo: [String: Any] {
        [NSLocalizedDescriptionKey: description, NSLocalizedFailureReasonErrorKey: reason]
    }
}

extension ENError: LocalizedError {
    /// The error's description, including its reason.
    public var errorDescription: String? { description }
    /// The reason.
    public var failureReason: String? { reason }
}
