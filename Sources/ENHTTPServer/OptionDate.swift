internal import ENCore
package import Foundation

/// The dates a server's options take (`--now`, `--test-clock`): ISO 8601 with a time zone, as RFC 3339 writes them
/// (`2026-11-24T12:00:00Z`).
package enum OptionDate {
    /// The date `text` stands for.
    ///
    /// - Throws: ``ServerFailure`` (exit 2) naming `option` when `text` is not such a date.
    package static func date(_ text: String, option: String) throws(ServerFailure) -> Date {
        guard let date = RFC3339.date(from: text) else {
            throw ServerFailure("\(option) \(text): want an ISO 8601 date such as 2026-11-24T12:00:00Z")
        }
        return date
    }
}
