package import Foundation

/// RFC 3339 timestamps (`2020-07-10T12:00:00Z`, `2020-07-10T14:00:00.250+02:00`), read by arithmetic alone.
///
/// Inputs that come from outside (sightings and score files, labelled encounters, command-line dates) are read with
/// this instead of `ISO8601DateFormatter`: ICU's date parser, under it, traps with a floating-point exception on
/// some hostile strings (found by the `sightings` fuzz target), and it accepts more than RFC 3339 says.
package enum RFC3339 {
    /// The date `text` names, or `nil` when it is not `YYYY-MM-DDTHH:MM:SS[.FRACTION](Z|±HH:MM)` with every field in
    /// range (the separator `T` or `t`, the zone `Z` or `z`; seconds 00-59, fractions of any length).
    package static func date(from text: String) -> Date? {
        var bytes = Array(text.utf8)[...]
        func number(_ digits: Int) -> Int? {
            guard bytes.count >= digits else { return nil }
            var value = 0
            for byte in bytes.prefix(digits) {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            bytes = bytes.dropFirst(digits)
            return value
        }
        func expect(_ characters: Character...) -> Bool {
            guard let first = bytes.first, characters.contains(where: { $0.asciiValue == first }) else { return false }
            bytes = bytes.dropFirst()
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
            expect("T", "t"), let hour = number(2), expect(":"), let minute = number(2), expect(":"),
            let second = number(2)
        else { return nil }
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day), hour < 24, minute < 60,
            second < 60
        else { return nil }
        var fraction = 0.0
        if expect(".") {
            var scale = 0.1
            var digits = 0
            while let byte = bytes.first, byte >= 0x30, byte <= 0x39 {
                fraction += Double(byte - 0x30) * scale
                scale /= 10
                digits += 1
                bytes = bytes.dropFirst()
            }
            guard digits > 0 else { return nil }
        }
        var offset = 0
        if expect("Z", "z") {
            offset = 0
        } else if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            bytes = bytes.dropFirst()
            guard let hours = number(2), expect(":"), let minutes = number(2), hours < 24, minutes < 60 else {
                return nil
            }
            offset = (hours * 60 + minutes) * 60 * (sign == UInt8(ascii: "-") ? -1 : 1)
        } else {
            return nil
        }
        guard bytes.isEmpty else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// The days of `month` in `year` (proleptic Gregorian).
    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to the given civil date (proleptic Gregorian; Howard Hinnant's `days_from_civil`).
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
