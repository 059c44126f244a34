public import ENCore

/// The `async` names that Swift gives Apple's completion-handler methods when it imports the SDK
/// (`getDiagnosisKeys(completionHandler:)` becomes `diagnosisKeys()`): app code written with them compiles here.
extension ExposureManaging {
    /// Apple's imported name of ``getDiagnosisKeys()``.
    public func diagnosisKeys() async throws(ENError) -> [ENTemporaryExposureKey] { try await getDiagnosisKeys() }

    /// Apple's imported name of ``getTestDiagnosisKeys()``.
    public func testDiagnosisKeys() async throws(ENError) -> [ENTemporaryExposureKey] {
        try await getTestDiagnosisKeys()
    }

    /// Apple's imported name of ``getUserTraveled()``.
    public func userTraveled() async throws(ENError) -> Bool { try await getUserTraveled() }
}
