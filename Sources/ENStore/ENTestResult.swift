public import Foundation

/// A test result the user entered: the sample app's `TestResult`.
public struct ENTestResult: Hashable, Sendable, Codable, Identifiable {
    /// A unique identifier for this test result.
    public var id: UUID
    /// Whether the user completed the add-positive-diagnosis flow for this test result.
    public var isAdded: Bool
    /// The date the test was administered.
    public var dateAdministered: Date
    /// Whether diagnosis keys were shared with the health authority to notify others.
    public var isShared: Bool

    /// Creates a test result.
    public init(id: UUID = UUID(), isAdded: Bool = false, dateAdministered: Date, isShared: Bool = false) {
        self.id = id
        self.isAdded = isAdded
        self.dateAdministered = dateAdministered
        self.isShared = isShared
    }
}
