import ENCore
import EntoolInputs
import Foundation

extension SightingsJSON {
    /// Reads and checks the sightings file at `path`.
    ///
    /// - Throws: `badFormat` for JSON of another shape, `badParameter` for a wrong value; the context names
    ///   the file and the field (`sightings.json: sightings[3].rssi`).
    static func read(_ path: String) throws -> [ENSighting] {
        try sightings(from: readInputFile(path, what: "sightings"), file: URL(fileURLWithPath: path).lastPathComponent)
    }
}
