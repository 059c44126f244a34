internal import ENCore
internal import EntoolInputs
internal import Foundation

extension FuzzTarget {
    /// The configuration score inputs are scored with: Apple's defaults plus infectiousness for every day, so that
    /// version 2 windows are scored rather than dropped.
    static let scoreConfiguration: ENExposureConfiguration = {
        var configuration = ENExposureConfiguration()
        configuration.infectiousnessByDaysSinceOnsetOfSymptoms = Dictionary(
            uniqueKeysWithValues: ((-14...14).map { ($0, ENInfectiousness.standard) })
                + [(ENDaysSinceOnsetOfSymptomsUnknown, .high)])
        configuration.attenuationDurationThresholds = [50, 70]
        return configuration
    }()

    /// "Now" for scoring: 2020-08-01 00:00 UTC, near the dates real inputs carry.
    static let scoreNow = Date(timeIntervalSince1970: 1_596_240_000)

    static func fuzzScoreInput(_ input: Data) throws(FuzzViolation) {
        do {
            let output = try ScoreInput.scoreV1(input: input, configuration: scoreConfiguration, now: scoreNow)
            try checkEncodes(output, target: .scoreInput)
        } catch let violation as FuzzViolation {
            throw violation
        } catch {
            guard error is ENError else { throw FuzzViolation(.scoreInput, "version 1 threw a non-ENError: \(error)") }
        }
        do {
            let output = try ScoreInput.scoreV2(input: input, configuration: scoreConfiguration, now: scoreNow)
            try checkEncodes(output, target: .scoreInput)
        } catch let violation as FuzzViolation {
            throw violation
        } catch {
            guard error is ENError else { throw FuzzViolation(.scoreInput, "version 2 threw a non-ENError: \(error)") }
        }
    }

    static func fuzzSightings(_ input: Data) throws(FuzzViolation) {
        guard let sightings = try? SightingsJSON.sightings(from: input, file: "sightings.json") else { return }
        for sighting in sightings where !sighting.timestamp.timeIntervalSince1970.isFinite {
            throw FuzzViolation(.sightings, "a sighting has a timestamp that is not a finite date")
        }
    }

    /// A result the command prints encodes as JSON (no NaN or infinity reaches the output).
    private static func checkEncodes(_ output: some Encodable, target: FuzzTarget) throws(FuzzViolation) {
        do {
            _ = try JSONEncoder().encode(output)
        } catch {
            throw FuzzViolation(target, "a scored result does not encode as JSON: \(error)")
        }
    }
}
