/// What a token says about its code (Google's `database.Subject`): the test type and the dates, written in the
/// token's `sub` as `testType.symptomDate.testDate` with empty parts for absent dates.
public struct ENVerificationSubject: Hashable, Sendable, CustomStringConvertible {
    /// The test type.
    public var testType: ENVerificationTestType
    /// The symptom onset date.
    public var symptomDate: ENVerificationDate?
    /// The test date.
    public var testDate: ENVerificationDate?

    /// Creates a subject.
    public init(
        testType: ENVerificationTestType, symptomDate: ENVerificationDate? = nil, testDate: ENVerificationDate? = nil
    ) {
        self.testType = testType
        self.symptomDate = symptomDate
        self.testDate = testDate
    }

    /// `testType.symptomDate.testDate`.
    public var description: String {
        "\(testType.rawValue).\(symptomDate?.description ?? "").\(testDate?.description ?? "")"
    }

    /// Parses a `sub` as Google's `ParseSubject`: two or three parts, dates `YYYY-MM-DD` or empty; `nil` otherwise
    /// (and for a test type this server does not know).
    public init?(parsing text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard (2...3).contains(parts.count), let type = ENVerificationTestType(rawValue: parts[0]) else { return nil }
        testType = type
        if parts[1].isEmpty {
            symptomDate = nil
        } else {
            guard let date = ENVerificationDate(parts[1]) else { return nil }
            symptomDate = date
        }
        if parts.count == 3, !parts[2].isEmpty {
            guard let date = ENVerificationDate(parts[2]) else { return nil }
            testDate = date
        } else {
            testDate = nil
        }
    }
}
