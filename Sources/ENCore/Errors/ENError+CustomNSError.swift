public import Foundation

extension ENError: CustomNSError {
    /// `"ENErrorDomain"`, as Apple's framework.
    public static var errorDomain: String { ENError.domain }
    /// The code's raw value.
    public var errorCode: Int { code.rawValue }
    /// What the error was created with (``userInfo``), and the reason under `NSLocalizedDescriptionKey` and
    /// `NSLocalizedFailureReasonErrorKey`.
    public var errorUserInfo: [String: Any] {
        userInfo.merging([NSLocalizedDescriptionKey: description, NSLocalizedFailureReasonErrorKey: reason]) {
            given, _ in
            given
        }
    }
}

extension ENError: LocalizedError {
    /// The error's description, including its reason.
    public var errorDescription: String? { description }
    /// The reason.
    public var failureReason: String? { reason }
}
