/// A rule of the package that a fuzz target found broken on an input.
public struct FuzzViolation: Error, CustomStringConvertible, Sendable {
    /// The target that found it.
    public var target: FuzzTarget
    /// What was wrong.
    public var rule: String

    /// Creates a violation.
    public init(_ target: FuzzTarget, _ rule: String) {
        self.target = target
        self.rule = rule
    }

    /// `target: rule`.
    public var description: String { "\(target.rawValue): \(rule)" }
}
