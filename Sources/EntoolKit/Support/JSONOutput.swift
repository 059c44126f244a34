import ENCore
import Foundation

/// Prints `value` as JSON on standard output: sorted keys, pretty-printed, slashes unescaped.
func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    var data = try encoder.encode(value)
    data.append(0x0A)
    FileHandle.standardOutput.write(data)
}

/// Reads a whole file, turning a missing or unreadable file into a bad-input failure that names it.
func readInputFile(_ path: String, what: String) throws(EntoolFailure) -> Data {
    do {
        return try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
        throw .badInput("cannot read \(what) '\(path)': \(error.localizedDescription)")
    }
}

/// Parses lower- or upper-case hex of an exact byte length, naming the option when it is wrong.
func parseHex(_ text: String, bytes: Int, option: String) throws(EntoolFailure) -> Data {
    guard let data = Data(hexString: text) else {
        throw .badInput("\(option) must be hexadecimal, got '\(text)'")
    }
    guard data.count == bytes else {
        throw .badInput("\(option) must be \(bytes) bytes (\(2 * bytes) hex digits), got \(data.count) bytes")
    }
    return data
}
