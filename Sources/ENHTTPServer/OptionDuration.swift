package import Foundation

/// The durations a server's options take: a positive number, then `s`, `m`, `h` or `d` (`30s`, `15m`, `1.5h`,
/// `14d`). The unit is required: `15` could mean anything.
package enum OptionDuration {
    /// The seconds `text` stands for.
    ///
    /// - Throws: ``ServerFailure`` (exit 2) naming `option` when `text` is not such a duration.
    package static func seconds(_ text: String, option: String) throws(ServerFailure) -> TimeInterval {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        let number = Substring(text).dropLast()
        let unit = text.last.flatMap { units[$0] } ?? 0
        // A unit, digits and at most one point: no signs, exponents, `inf` or `nan`, which Double(_:) would take.
        guard unit > 0, !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
            number.filter({ $0 == "." }).count <= 1, let value = Double(number), value > 0,
            value * unit <= Double(Int32.max)
        else {
            throw ServerFailure("\(option) \(text): want a positive duration such as 30s, 15m, 24h or 14d")
        }
        return value * unit
    }
}
