package import ENCore
import ENRiskV1
import ENRiskV2
package import Foundation

/// Parsing, checking and scoring of `entool score` input, apart from the command so that it reads as one unit.
package enum ScoreInput {
    struct V1Input: Decodable {
        struct Exposure: Decodable {
            var date: String
            var transmissionRiskLevel: Int
            var attenuationSegments: [Segment]
        }
        struct Segment: Decodable {
            var attenuation: Int
            var seconds: Double
        }
        var exposures: [Exposure]
    }

    struct V2Input: Decodable {
        var windows: [ExposureWindowJSON]
    }

    package static func scoreV1(input: Data, configuration: ENExposureConfiguration, now: Date) throws -> ScoreV1Output
    {
        let decoded = try decode(V1Input.self, from: input)
        var exposures: [ENScoringV1.Exposure] = []
        for (index, exposure) in decoded.exposures.enumerated() {
            let path = "exposures[\(index)]"
            var segments: [ENScoringV1.AttenuationSegment] = []
            for (segmentIndex, segment) in exposure.attenuationSegments.enumerated() {
                let segmentPath = "\(path).attenuationSegments[\(segmentIndex)]"
                guard segment.seconds >= 0, segment.seconds <= 1e9 else {
                    throw ENError.badParameter("\(segmentPath).seconds must be 0...1e9, got \(segment.seconds)")
                }
                segments.append(
                    ENScoringV1.AttenuationSegment(
                        attenuation: try attenuation(segment.attenuation, "\(segmentPath).attenuation"),
                        duration: segment.seconds))
            }
            guard (0...8).contains(exposure.transmissionRiskLevel) else {
                throw ENError.badParameter(
                    "\(path).transmissionRiskLevel must be 0...8, got \(exposure.transmissionRiskLevel)")
            }
            exposures.append(
                ENScoringV1.Exposure(
                    date: try day(exposure.date, "\(path).date"),
                    transmissionRiskLevel: ENRiskLevel(exposure.transmissionRiskLevel), attenuationSegments: segments))
        }
        let result = ENScoringV1.evaluate(exposures, configuration: configuration, now: now)
        return ScoreV1Output(result)
    }

    package static func scoreV2(input: Data, configuration: ENExposureConfiguration, now: Date) throws -> ScoreV2Output
    {
        let decoded = try decode(V2Input.self, from: input)
        let windows = try decoded.windows.enumerated().map { (index, window) throws(ENError) in
            try window.window(where: "windows[\(index)]")
        }
        return ScoreV2Output(ENScoringV2.daySummaries(for: windows, configuration: configuration, now: now))
    }

    // MARK: Helpers

    /// Decodes JSON input; a decoding error becomes `badFormat` naming the path of what was wrong, with `file`
    /// (the input's name) as its context.
    package static func decode<T: Decodable>(_ type: T.Type, from data: Data, file: String = "input") throws(ENError)
        -> T
    {
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch let error as DecodingError {
            throw ENError.badFormat(describe(error), context: ENError.Context(file: file))
        } catch {
            throw ENError.badFormat("\(error)", context: ENError.Context(file: file))
        }
    }

    package static func describe(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
                .trimmingCharacters(in: CharacterSet(charactersIn: "."))
        }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = path(context.codingPath)
            return "missing \(parent.isEmpty ? "" : parent + ".")\(key.stringValue)"
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath).isEmpty ? "top level" : path(context.codingPath)) must be \(type)"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)) must be \(type), got null"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON" : "\(path(context.codingPath)) is invalid"
        @unknown default:
            return "not valid input"
        }
    }

    package static func attenuation(_ value: Int, _ path: String) throws(ENError) -> ENAttenuation {
        guard let attenuation = ENAttenuation(exactly: value) else {
            throw ENError.badParameter("\(path) must be 0...255 dB, got \(value)")
        }
        return attenuation
    }

    /// Parses `YYYY-MM-DD` as the UTC midnight that starts the day.
    package static func day(_ text: String, _ path: String) throws(ENError) -> Date {
        guard let date = parseDay(text) else {
            throw ENError.badParameter("\(path) must be a date YYYY-MM-DD, got '\(text)'")
        }
        return date
    }

    package static func parseDay(_ text: String) -> Date? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: year, month: month, day: day)
        guard let date = calendar.date(from: components),
            calendar.dateComponents([.year, .month, .day], from: date) == components
        else { return nil }
        return date
    }

    /// Formats the UTC day of `date` as `YYYY-MM-DD`.
    package static func formatDay(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0)
    }

    /// Parses an ISO 8601 date and time (with or without fractional seconds), or a bare date as UTC midnight.
    package static func parseTimestamp(_ text: String) -> Date? {
        RFC3339.date(from: text) ?? parseDay(text)
    }
}
