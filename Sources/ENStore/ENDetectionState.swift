public import Foundation

/// Where exposure detection stands for the app: the sample app's `nextDiagnosisKeyFileIndex`,
/// `dateLastPerformedExposureDetection` and `exposureDetectionErrorLocalizedDescription`, kept in an
/// ``ENAppStore``.
public struct ENDetectionState: Hashable, Sendable {
    /// The index of the next key file to download from the server (0 before the first detection).
    public var nextKeyFileIndex: Int
    /// When the last successful detection finished, or `nil` before the first.
    public var lastDetectionDate: Date?
    /// Why the last detection failed, or `nil` when the last detection succeeded (or none ran).
    public var lastDetectionError: String?

    /// Creates a state.
    public init(nextKeyFileIndex: Int = 0, lastDetectionDate: Date? = nil, lastDetectionError: String? = nil) {
        self.nextKeyFileIndex = nextKeyFileIndex
        self.lastDetectionDate = lastDetectionDate
        self.lastDetectionError = lastDetectionError
    }
}
