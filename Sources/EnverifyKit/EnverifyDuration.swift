import Foundation

/// `enverify`'s durations: a positive whole number followed by `s`, `m`, `h` or `d` (`15m`, `24h`, `14d`).
enum EnverifyDuration {
    /// The seconds `text` stands for.
    ///
    /// - Throws: ``EnverifyFailure`` (exit 2) naming `option` when `text` is not such a duration.
    static func seconds(_ text: String, option: String) throws -> TimeInterval {
        let units: [Character: TimeInterval] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        guard let unit = text.last, let scale = units[unit], let count = Int(text.dropLast()), count > 0,
            text.dropLast().allSatisfy(\.isASCII), text.first?.isNumber == true,
            count <= Int(Int32.max)
        else {
            throw EnverifyFailure("\(option) \(text): want a positive duration such as 30s, 15m, 24h or 14d")
        }
        return TimeInterval(count) * scale
    }
}
