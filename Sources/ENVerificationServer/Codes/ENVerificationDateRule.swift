public import Foundation

/// How an issue request's dates are checked (Google's `issueapi.parseDate` and `ValidateDate`): a date must be
/// on or after the UTC date ``maximumAge`` before today (one day earlier when the user's time-zone offset is
/// negative) and on or before today's UTC date; only the offset's sign matters.
public struct ENVerificationDateRule: Hashable, Sendable {
    /// How far back a date may be: Google's `AllowedSymptomAge`, 28 days by default.
    public var maximumAge: TimeInterval

    /// Creates a rule.
    public init(maximumAge: TimeInterval = 28 * 86_400) { self.maximumAge = maximumAge }

    /// Checks `text` (empty: no date) for the field `name` (`symptom onset` or `test`).
    ///
    /// - Throws: ``ENVerificationAPIError`` 400 `unparsable_request` when it is not `YYYY-MM-DD`, 400
    ///   `invalid_date` when it is out of range.
    public func check(_ text: String, name: String, tzOffset: Int, now: Date) throws(ENVerificationAPIError)
        -> ENVerificationDate?
    {
        guard !text.isEmpty else { return nil }
        guard let date = ENVerificationDate(text) else {
            throw ENVerificationAPIError(
                status: 400,
                message: "failed to process \(name) date: parsing time \(GoJSONValue.quoted(text)) "
                    + "as \"2006-01-02\": cannot parse", code: .unparsableRequest)
        }
        let maxDate = ENVerificationDate(utcDayOf: now)
        let minDate = ENVerificationDate(utcDayOf: maxDate.startDate.addingTimeInterval(-maximumAge))
        let lowest = tzOffset < 0 ? ENVerificationDate(daysSinceEpoch: minDate.daysSinceEpoch - 1) : minDate
        guard date >= lowest, date <= maxDate else {
            throw ENVerificationAPIError(
                status: 400,
                message: "\(name) date must be on/after \(minDate) and on/before \(maxDate). Received \(date)",
                code: .invalidDate)
        }
        return date
    }
}
