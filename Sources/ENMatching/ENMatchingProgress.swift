/// How far a matching run has come, reported after each batch of keys.
public struct ENMatchingProgress: Hashable, Sendable {
    /// Keys read from the input so far.
    public var keysProcessed: Int
    /// Keys matched so far (before de-duplication and revocation are applied at the end).
    public var keysMatched: Int

    /// Creates a progress report.
    public init(keysProcessed: Int, keysMatched: Int) {
        self.keysProcessed = keysProcessed
        self.keysMatched = keysMatched
    }
}
