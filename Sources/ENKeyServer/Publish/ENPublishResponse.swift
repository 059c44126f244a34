/// A publish response, as Google's exposure-notifications-server defines it (`PublishResponse`).
///
/// Every field is optional on the wire (`omitempty`): ``jsonData()`` leaves out the empty ones, so
/// `insertedExposures` is absent when 0.
public struct ENPublishResponse: Hashable, Sendable {
    /// The base64 revision token that allows these keys to be revised later, JSON `revisionToken`.
    public var revisionToken: String
    /// How many keys were stored, JSON `insertedExposures`.
    public var insertedExposures: Int
    /// What went wrong, for a developer, JSON `error`.
    public var error: String
    /// What went wrong, for a program, JSON `code`.
    public var code: ENPublishErrorCode?
    /// Random base64 padding that hides the response's size, JSON `padding`.
    public var padding: String
    /// Keys dropped without failing the request (days since onset out of range), JSON `warnings`.
    public var warnings: [String]

    /// Creates a response.
    public init(
        revisionToken: String = "", insertedExposures: Int = 0, error: String = "", code: ENPublishErrorCode? = nil,
        padding: String = "", warnings: [String] = []
    ) {
        self.revisionToken = revisionToken
        self.insertedExposures = insertedExposures
        self.error = error
        self.code = code
        self.padding = padding
        self.warnings = warnings
    }
}
