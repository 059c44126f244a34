import Foundation

/// The error every module of this package throws.
///
/// `ENError` has the shape of the error of Apple's ExposureNotification framework: a ``Code`` with Apple's raw
/// values, `init(_:userInfo:)`, ``code`` and `errorCode`. Beside Apple's shape it carries what a person needs to
/// act on a failure: a ``reason`` (what was expected, what was found) and a structured ``context`` (which file,
/// which section of it, which key, which field), both shown in ``description``.
///
/// Equality and hashing consider the ``code`` only, as swift-asn1's `ASN1Error` does, so that code which
/// handles an error, and tests that expect one, match on what kind of failure it is, never on message text:
///
/// ```swift
/// do {
///     try key.validate()
/// } catch ENError.badParameter {
///     // handle
/// }
/// #expect(throws: ENError(.badFormat)) { try ENKeyExport(exportBinary: data) }
/// ```
///
/// Where a failure happened is read from ``context``, a value (`error.context.index == 3`), never parsed out of
/// the text.
public struct ENError: Error, Hashable, Sendable {
    /// Apple's `ENError.Code`: the kind of failure, with Apple's names and raw values.
    public enum Code: Int, Hashable, Sendable, CaseIterable {
        /// Underlying failure with an unknown cause.
        case unknown = 1
        /// A parameter is missing or incorrect.
        case badParameter
        /// The calling process doesn't have the correct entitlement.
        case notEntitled
        /// The user denied this process access to Exposure Notification.
        case notAuthorized
        /// The operation is not supported.
        case unsupported
        /// `invalidate` was called before the operation completed normally.
        case invalidated
        /// Bluetooth was turned off by the user.
        case bluetoothOff
        /// There is not enough storage space to enable Exposure Notification.
        case insufficientStorage
        /// Exposure Notification has not been enabled.
        case notEnabled
        /// The API was used incorrectly (for example, called before `activate`).
        case apiMisuse
        /// An internal error: a bug in this package or a failure of an underlying library.
        case `internal`
        /// Not enough memory to complete the operation.
        case insufficientMemory
        /// The API was called too frequently.
        case rateLimited
        /// Exposure Notification is disabled due to system policies.
        case restricted
        /// A file or data format problem.
        case badFormat
        /// The device must be unlocked before the data is accessible.
        case dataInaccessible
        /// Travel status is not available.
        case travelStatusNotAvailable
    }

    /// Where in the input a failure was found: each part is optional and set by the layer that knows it.
    ///
    /// A decoder knows the section, the key's index and the field; the layer that opened the file adds the file
    /// name with ``ENError/adding(_:)``. ``description`` prints the parts that are set, for example
    /// `keys.zip: export.bin: keys[3].rolling_period`.
    public struct Context: Hashable, Sendable {
        /// The input file, by the path the caller gave (so that it can find the file again).
        public var file: String?
        /// The part of the input: an entry of a zip (`export.bin`), a list of a message (`keys`,
        /// `revised_keys`), a JSON array, a table.
        public var section: String?
        /// The index of the record within ``section`` (a key's position in its list, counted from 0).
        public var index: Int?
        /// The field of the record that was wrong, by its name in the input's format (`rolling_period`).
        public var field: String?

        /// Creates a context; every part is optional.
        public init(file: String? = nil, section: String? = nil, index: Int? = nil, field: String? = nil) {
            self.file = file
            self.section = section
            self.index = index
            self.field = field
        }

        /// Whether no part is set.
        public var isEmpty: Bool { file == nil && section == nil && index == nil && field == nil }

        /// This context with every part that is not set taken from `outer`.
        public func merged(into outer: Context) -> Context {
            Context(
                file: file ?? outer.file, section: section ?? outer.section, index: index ?? outer.index,
                field: field ?? outer.field)
        }
    }

    private let backing: Backing

    /// The kind of failure.
    public var code: Code { backing.code }
    /// What went wrong, for a developer or an operator: what was expected and what was found.
    ///
    /// For display; handle errors by ``code`` and ``context``, never by this text.
    public var reason: String { backing.reason }
    /// Where in the input the failure was found.
    public var context: Context { backing.context }

    /// What the error was created with by Apple's initialiser ``init(_:userInfo:)``, as Apple's `ENError.userInfo`
    /// (empty for the package's own errors, whose ``reason`` and ``context`` say what went wrong).
    public var userInfo: [String: Any] { backing.userInfo }

    /// Creates an error with Apple's initialiser; a string under `NSLocalizedDescriptionKey` (or
    /// `NSLocalizedFailureReasonErrorKey`) becomes the ``reason``, and ``userInfo`` keeps everything given.
    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        let reason =
            userInfo[NSLocalizedFailureReasonErrorKey] as? String ?? userInfo[NSLocalizedDescriptionKey] as? String
            ?? ""
        backing = Backing(code: code, reason: reason, context: Context(), userInfo: userInfo)
    }

    /// Creates an error with a code, a reason and where in the input it was found.
    public init(_ code: Code, _ reason: String, context: Context = Context()) {
        backing = Backing(code: code, reason: reason, context: context)
    }

    /// This error with the parts of `outer` that its own context does not set: how a layer that knows more
    /// of the place (the file, the section) adds it to an error from below, without touching the text.
    public func adding(_ outer: Context) -> ENError {
        ENError(code, reason, context: context.merged(into: outer))
    }

    /// Errors are equal when their codes are equal; reason and context are not compared.
    public static func == (lhs: ENError, rhs: ENError) -> Bool { lhs.code == rhs.code }

    /// Hashes the code only, consistently with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// The error domain Apple's framework uses, `"ENErrorDomain"`.
    public static let domain = "ENErrorDomain"

    /// `@unchecked Sendable`: every field is immutable; `userInfo` holds what an app passed to Apple's initialiser
    /// (as `NSError` does, the error shares it with every thread it reaches).
    private final class Backing: @unchecked Sendable {
        let code: Code
        let reason: String
        let context: Context
        let userInfo: [String: Any]

        init(code: Code, reason: String, context: Context, userInfo: [String: Any] = [:]) {
            self.code = code
            self.reason = reason
            self.context = context
            self.userInfo = userInfo
        }
    }
}

extension ENError {
    /// A ``Code/badParameter`` error.
    public static func badParameter(_ reason: String, context: Context = Context()) -> ENError {
        ENError(.badParameter, reason, context: context)
    }
    /// A ``Code/badFormat`` error.
    public static func badFormat(_ reason: String, context: Context = Context()) -> ENError {
        ENError(.badFormat, reason, context: context)
    }
    /// A ``Code/internal`` error.
    public static func `internal`(_ reason: String, context: Context = Context()) -> ENError {
        ENError(.internal, reason, context: context)
    }
    /// A ``Code/apiMisuse`` error.
    public static func apiMisuse(_ reason: String, context: Context = Context()) -> ENError {
        ENError(.apiMisuse, reason, context: context)
    }
    /// A ``Code/unsupported`` error.
    public static func unsupported(_ reason: String, context: Context = Context()) -> ENError {
        ENError(.unsupported, reason, context: context)
    }
}

extension ENError {
    // Apple's shortcuts for the codes, as the framework's bridged error declares them, so that
    // `catch ENError.notAuthorized` and `error.code == ENError.rateLimited` compile unchanged.
    /// ``Code/unknown``.
    public static var unknown: Code { .unknown }
    /// ``Code/badParameter``.
    public static var badParameter: Code { .badParameter }
    /// ``Code/notEntitled``.
    public static var notEntitled: Code { .notEntitled }
    /// ``Code/notAuthorized``.
    public static var notAuthorized: Code { .notAuthorized }
    /// ``Code/unsupported``.
    public static var unsupported: Code { .unsupported }
    /// ``Code/invalidated``.
    public static var invalidated: Code { .invalidated }
    /// ``Code/bluetoothOff``.
    public static var bluetoothOff: Code { .bluetoothOff }
    /// ``Code/insufficientStorage``.
    public static var insufficientStorage: Code { .insufficientStorage }
    /// ``Code/notEnabled``.
    public static var notEnabled: Code { .notEnabled }
    /// ``Code/apiMisuse``.
    public static var apiMisuse: Code { .apiMisuse }
    /// ``Code/internal``.
    public static var `internal`: Code { .`internal` }
    /// ``Code/insufficientMemory``.
    public static var insufficientMemory: Code { .insufficientMemory }
    /// ``Code/rateLimited``.
    public static var rateLimited: Code { .rateLimited }
    /// ``Code/restricted``.
    public static var restricted: Code { .restricted }
    /// ``Code/badFormat``.
    public static var badFormat: Code { .badFormat }
    /// ``Code/dataInaccessible``.
    public static var dataInaccessible: Code { .dataInaccessible }
    /// ``Code/travelStatusNotAvailable``.
    public static var travelStatusNotAvailable: Code { .travelStatusNotAvailable }
}

extension ENError.Code {
    /// Lets a `catch` clause match a code: `catch ENError.badFormat { ... }`.
    public static func ~= (code: ENError.Code, error: any Error) -> Bool {
        (error as? ENError)?.code == code
    }
}
