/// The app's data as an older version kept it: in the framework store's file (schemas v1 and v2), or in the
/// sample app's `LocalStore` (user defaults). ``ENStoreUpdate/importLegacyData(_:)`` copies it into an
/// ``ENAppStore``.
public struct ENLegacyAppData: Hashable, Sendable {
    /// Whether the user finished onboarding.
    public var isOnboarded: Bool
    /// The next key-file index, the last detection date and error.
    public var detectionState: ENDetectionState
    /// The test results.
    public var testResults: [ENTestResult]
    /// The exposures, oldest first.
    public var exposures: [ENExposureRecord]

    /// Creates legacy data, for example from the sample app's `LocalStore`.
    public init(
        isOnboarded: Bool = false, detectionState: ENDetectionState = ENDetectionState(),
        testResults: [ENTestResult] = [], exposures: [ENExposureRecord] = []
    ) {
        self.isOnboarded = isOnboarded
        self.detectionState = detectionState
        self.testResults = testResults
        self.exposures = exposures
    }
}
