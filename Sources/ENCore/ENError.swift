/// The error every module of this package throws.
///
/// `ENError` mirrors the error of Apple's ExposureNotification framework: it carries one of Apple's
/// ``Code`` values (with Apple's raw values, so codes compare and persist identically) plus a
/// ``reason`` a person can act on: which file, key or field was wrong and what was expected.
///
/// Match on the code, not on the reason text:
///
/// ```swift
/// do {
///     try key.validate()
/// } catch ENError.Code.badParameter {
///     // handle
/// }
/// ```
public struct ENError: Error, Hashable, Sendable {
    /// Apple's `ENError.Code`: the kind of failure, with Apple's raw values.
    ///
    /// The type is an extensible struct rather than a closed enum, so that adding a code never breaks a
    /// client's exhaustive `switch`.
    public struct Code: RawRepresentable, Hashable, Sendable {
        /// The numeric value, identical to Apple's `ENErrorCode`.
        public let rawValue: Int

        /// Creates a code from its raw value. Values outside Apple's 1...17 are allowed and print as `code(N)`.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Underlying failure with an unknown cause.
        public static let unknown = Code(rawValue: 1)
        /// A parameter is missing or incorrect.
        public static let badParameter = Code(rawValue: 2)
        /// The calling process doesn't have the correct entitlement.
        public static let notEntitled = Code(rawValue: 3)
        /// The user denied this process access to Exposure Notification.
        public static let notAuthorized = Code(rawValue: 4)
        /// The operation is not supported.
        public static let unsupported = Code(rawValue: 5)
        /// `invalidate` was called before the operation completed normally.
        public static let invalidated = Code(rawValue: 6)
        /// Bluetooth was turned off by the user.
        public static let bluetoothOff = Code(rawValue: 7)
        /// There is not enough storage space to enable Exposure Notification.
        public static let insufficientStorage = Code(rawValue: 8)
        /// Exposure Notification has not been enabled.
        public static let notEnabled = Code(rawValue: 9)
        /// The API was used incorrectly (for example, called before `activate`).
        public static let apiMisuse = Code(rawValue: 10)
        /// An internal error: a bug in this package or a failure of an underlying library.
        public static let `internal` = Code(rawValue: 11)
        /// Not enough memory to complete the operation.
        public static let insufficientMemory = Code(rawValue: 12)
        /// The API was called too frequently.
        public static let rateLimited = Code(rawValue: 13)
        /// Exposure Notification is disabled due to system policies.
        public static let restricted = Code(rawValue: 14)
        /// A file or data format problem.
        public static let badFormat = Code(rawValue: 15)
        /// The device must be unlocked before the data is accessible.
        public static let dataInaccessible = Code(rawValue: 16)
        /// Travel status is not available.
        public static let travelStatusNotAvailable = Code(rawValue: 17)

        /// All of Apple's codes, in raw-value order.
        public static let allAppleCodes: [Code] = [
            .unknown, .badParameter, .notEntitled, .notAuthorized, .unsupported, .invalidated, .bluetoothOff,
            .insufficientStorage, .notEnabled, .apiMisuse, .internal, .insufficientMemory, .rateLimited,
            .restricted, .badFormat, .dataInaccessible, .travelStatusNotAvailable,
        ]
    }

    /// The kind of failure.
    public var code: Code
    /// What went wrong, for a developer or an operator: which input, which field, what was expected.
    public var reason: String

    /// Creates an error with a code and a reason.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    /// The error domain Apple's framework uses, `"ENErrorDomain"`.
    public static let domain = "ENErrorDomain"
}

extension ENError {
    /// A ``Code/badParameter`` error.
    public static func badParameter(_ reason: String) -> ENError { ENError(.badParameter, reason) }
    /// A ``Code/badFormat`` error.
    public static func badFormat(_ reason: String) -> ENError { ENError(.badFormat, reason) }
    /// A ``Code/internal`` error.
    public static func `internal`(_ reason: String) -> ENError { ENError(.internal, reason) }
    /// A ``Code/apiMisuse`` error.
    public static func apiMisuse(_ reason: String) -> ENError { ENError(.apiMisuse, reason) }
    /// A ``Code/unsupported`` error.
    public static func unsupported(_ reason: String) -> ENError { ENError(.unsupported, reason) }
}

extension ENError.Code {
    /// Lets a `catch` clause match a code: `catch ENError.Code.badFormat { ... }`.
    public static func ~= (code: ENError.Code, error: any Error) -> Bool {
        (error as? ENError)?.code == code
    }
}
