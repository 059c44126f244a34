package import ENCore

extension ENVerificationSubject {
    /// A subject from its stored columns (a test type's name and `YYYY-MM-DD` dates), as every storage keeps it.
    ///
    /// - Parameters:
    ///   - storedTestType: the test type's raw value.
    ///   - symptomDate: the symptom date's text, if any.
    ///   - testDate: the test date's text, if any.
    /// - Throws: `ENError.Code.badFormat` naming the column that holds something else.
    package init(storedTestType: String, symptomDate: String?, testDate: String?) throws(ENError) {
        guard let type = ENVerificationTestType(rawValue: storedTestType) else {
            throw ENError.badFormat("a stored test type \(storedTestType) is not known")
        }
        func date(_ text: String?, _ column: String) throws(ENError) -> ENVerificationDate? {
            guard let text else { return nil }
            guard let date = ENVerificationDate(text) else {
                throw ENError.badFormat("a stored \(column) \(text) is not a date")
            }
            return date
        }
        self.init(
            testType: type, symptomDate: try date(symptomDate, "symptom_date"),
            testDate: try date(testDate, "test_date"))
    }
}
