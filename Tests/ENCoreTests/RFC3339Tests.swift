import ENCore
import Foundation
import Testing

@Suite("RFC 3339 timestamps")
struct RFC3339Tests {
    @Test func readsWhatFoundationsISO8601FormatterReads() throws {
        // Foundation's formatter as the outside checker, on dates spread over four centuries, every offset form and
        // fractions.
        let plain = ISO8601DateFormatter()
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let year = Int.random(in: 1900...2300, using: &generator)
            let month = Int.random(in: 1...12, using: &generator)
            let day = Int.random(in: 1...28, using: &generator)
            let (hour, minute, second) = (
                Int.random(in: 0...23, using: &generator), Int.random(in: 0...59, using: &generator),
                Int.random(in: 0...59, using: &generator)
            )
            let zone = ["Z", "+02:00", "-05:30", "+14:00", "-00:00"].randomElement(using: &generator)!
            let base = String(format: "%04d-%02d-%02dT%02d:%02d:%02d", year, month, day, hour, minute, second)
            let text = base + zone
            #expect(RFC3339.date(from: text) == plain.date(from: text), "\(text)")
            let withFraction = base + ".250" + zone
            let ours = try #require(RFC3339.date(from: withFraction))
            let theirs = try #require(fractional.date(from: withFraction))
            #expect(abs(ours.timeIntervalSince(theirs)) < 0.000_5, "\(withFraction)")
        }
        #expect(RFC3339.date(from: "1970-01-01T00:00:00Z") == Date(timeIntervalSince1970: 0))
        #expect(RFC3339.date(from: "2020-07-10T12:00:00Z") == Date(timeIntervalSince1970: 1_594_382_400))
        #expect(RFC3339.date(from: "2024-02-29t23:59:59z") == Date(timeIntervalSince1970: 1_709_251_199))
    }

    @Test(arguments: [
        "", "2020-07-10", "2020-07-10T12:00:00", "2020-07-10 12:00:00Z", "2020-13-10T12:00:00Z",
        "2021-02-29T12:00:00Z", "2020-07-32T12:00:00Z", "2020-07-10T24:00:00Z", "2020-07-10T12:60:00Z",
        "2020-07-10T12:00:60Z", "2020-07-10T12:00:00.Z", "2020-07-10T12:00:00+2:00", "2020-07-10T12:00:00+24:00",
        "2020-07-10T12:00:00Zjunk", "２０２０-07-10T12:00:00Z", "+2020-07-10T12:00:00Z", "2020-07-10T12:00:00Z\u{0}",
        String(repeating: "9", count: 4_000) + "-07-10T12:00:00Z",
        "2020-07-10T12:00:00." + String(repeating: "9", count: 5_000),
    ])
    func refusesWhatIsNotRFC3339(_ text: String) {
        #expect(RFC3339.date(from: text) == nil)
    }
}
