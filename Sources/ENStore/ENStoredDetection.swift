public import Foundation

/// A detection result read back from the store.
public struct ENStoredDetection<Result: Codable & Sendable>: Sendable {
    /// The store's identifier for the detection, increasing with each detection.
    public var id: Int64
    /// When the detection was computed.
    public var date: Date
    /// The label it was recorded with.
    public var kind: String
    /// The result.
    public var result: Result

    /// Creates a stored detection.
    public init(id: Int64, date: Date, kind: String, result: Result) {
        self.id = id
        self.date = date
        self.kind = kind
        self.result = result
    }
}

extension ENStoredDetection: Equatable where Result: Equatable {}
extension ENStoredDetection: Hashable where Result: Hashable {}
