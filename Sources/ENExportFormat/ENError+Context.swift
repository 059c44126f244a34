import ENCore

extension ENError {
    /// This error with `context` (which message or file part) in front of its reason.
    func within(_ context: String) -> ENError {
        ENError(code, "\(context): \(reason)")
    }
}
