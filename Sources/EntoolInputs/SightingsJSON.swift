package import ENCore
package import Foundation

/// The JSON shape of `entool detect --sightings`: `{"sightings": [{"rpi": HEX, "aem": HEX, "timestamp":
/// ISO8601, "rssi": INT}]}`, what a device's radio heard (calibration confidence high).
package struct SightingsJSON: Decodable {
    /// One advertisement heard.
    struct Sighting: Decodable {
        var rpi: String
        var aem: String
        var timestamp: String
        var rssi: Int
    }

    var sightings: [Sighting]

    /// Checks and converts a sightings document; `file` names it in errors.
    package static func sightings(from data: Data, file: String) throws(ENError) -> [ENSighting] {
        let decoded = try ScoreInput.decode(Self.self, from: data, file: file)
        return try decoded.sightings.enumerated().map { (index, sighting) throws(ENError) in
            try sighting.sighting(context: ENError.Context(file: file, section: "sightings", index: index))
        }
    }
}

extension SightingsJSON.Sighting {
    /// The sighting; `context` (file, section and index) locates it in errors.
    func sighting(context: ENError.Context) throws(ENError) -> ENSighting {
        func at(_ field: String) -> ENError.Context {
            ENError.Context(field: field).merged(into: context)
        }
        let identifier: RollingProximityIdentifier
        do throws(ENError) {
            identifier = try RollingProximityIdentifier(hexString: rpi)
        } catch {
            throw error.adding(at("rpi"))
        }
        let metadata: AssociatedEncryptedMetadata
        do throws(ENError) {
            metadata = try AssociatedEncryptedMetadata(hexString: aem)
        } catch {
            throw error.adding(at("aem"))
        }
        guard let date = ScoreInput.parseTimestamp(timestamp) else {
            throw .badParameter(
                "must be an ISO 8601 date and time such as 2020-07-10T12:00:00Z, got '\(timestamp)'",
                context: at("timestamp"))
        }
        guard let strength = Int8(exactly: rssi) else {
            throw .badParameter("must be -128...127 dBm, got \(rssi)", context: at("rssi"))
        }
        return ENSighting(rpi: identifier, aem: metadata, timestamp: date, rssi: strength)
    }
}
