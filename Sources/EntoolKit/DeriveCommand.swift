import ArgumentParser
import ENCore
import ENCrypto
import Foundation

/// `entool derive`: the key schedule of one temporary exposure key.
struct DeriveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "derive",
        abstract: "Derive RPIK, AEMK and the rolling proximity identifiers of a temporary exposure key.",
        discussion: """
            Example (the official test vector):
              entool derive --tek 75c734c6dd1a782de7a965da5eb93125 --interval 2642976 --count 3 --metadata 40080000
            """
    )

    @Option(help: "The temporary exposure key, 16 bytes as 32 hex digits.")
    var tek: String

    @Option(help: "The first interval number (10-minute intervals since 1970).")
    var interval: UInt32

    @Option(help: "How many consecutive intervals to derive (1...144).")
    var count: Int = 144

    @Option(help: "Bluetooth metadata, 4 bytes as hex (e.g. 40080000: version 1.0, +8 dBm); adds the AEM.")
    var metadata: String?

    @OptionGroup var output: OutputOptions

    /// The JSON shape of `entool derive --json`.
    struct Result: Encodable {
        struct Identifier: Encodable {
            var interval: UInt32
            var rpi: String
            var aem: String?
        }
        var rpik: String
        var aemk: String
        var identifiers: [Identifier]
    }

    func run() throws {
        let keyData = try parseHex(tek, bytes: 16, option: "--tek")
        guard (1...144).contains(count) else { throw EntoolFailure.badInput("--count must be 1...144, got \(count)") }
        guard UInt64(interval) + UInt64(count) <= UInt64(UInt32.max) + 1 else {
            throw EntoolFailure.badInput("--interval \(interval) plus --count \(count) runs past the interval range")
        }
        let bluetoothMetadata = try metadata.map { text throws in
            try BluetoothMetadata(bytes: parseHex(text, bytes: 4, option: "--metadata"))
        }
        let rpik = try RollingProximityIdentifierKey(keyData: keyData)
        let aemk = try AssociatedEncryptedMetadataKey(keyData: keyData)
        let rpis = try rpik.identifiers(startingAt: ENIntervalNumber(interval), count: count)
        var identifiers: [Result.Identifier] = []
        for (offset, rpi) in rpis.enumerated() {
            let aem = try bluetoothMetadata.map { try aemk.encrypt($0, for: rpi).description }
            identifiers.append(Result.Identifier(interval: interval + UInt32(offset), rpi: rpi.description, aem: aem))
        }
        let result = Result(rpik: rpik.keyBytes.hexString, aemk: aemk.keyBytes.hexString, identifiers: identifiers)
        if output.json {
            try printJSON(result)
        } else {
            print("RPIK  \(result.rpik)")
            print("AEMK  \(result.aemk)")
            print("")
            print(
                bluetoothMetadata == nil
                    ? "interval  date (UTC)         RPI"
                    : "interval  date (UTC)         RPI                               AEM")
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [
                .withFullDate, .withTime, .withColonSeparatorInTime, .withSpaceBetweenDateAndTime,
            ]
            formatter.timeZone = TimeZone(identifier: "UTC")
            for identifier in identifiers {
                let date = formatter.string(from: ENIntervalNumber(identifier.interval).date).prefix(16)
                print("\(identifier.interval)   \(date)  \(identifier.rpi)  \(identifier.aem ?? "")")
            }
        }
    }
}
