import ArgumentParser
import ENHTTPServer
import Foundation

/// Where `enserver`'s options come from, as a service expects: the command line, then the environment, then a
/// configuration file, for every option of `serve` and `export` alike.
///
/// - **Environment**: `ENSERVER_` and the option's name in upper snake case (`--signing-key` is
///   `ENSERVER_SIGNING_KEY`); a repeatable option takes its values separated by commas; a flag takes `1`, `true` or
///   `yes` (set) and `0`, `false`, `no` or nothing (not set).
/// - **File**: `--config FILE` (or `ENSERVER_CONFIG`), a JSON object whose keys are option names without their
///   dashes (`"signing-key"`), with strings, numbers, booleans (flags) or arrays (repeatable options).
/// - The command line wins over the environment, which wins over the file: an option given in one place is taken
///   from there alone.
///
/// The values from the environment and the file are added to the arguments in this process only: they never
/// appear in the process's command line (`/proc/PID/cmdline`), which any user of the machine can read. For the same
/// reason a `--postgres` URL carrying a password is refused on the command line (it is accepted from the
/// environment or the file).
///
/// The options are ArgumentParser's own (read from the command's description), so an option added to `serve` or
/// `export` is at once available from the environment and the file.
package enum EnserverConfigurationSources {
    /// The environment variables' prefix.
    package static let environmentPrefix = "ENSERVER_"

    /// One option of a subcommand: its long name, whether it takes a value and whether it repeats.
    struct Option: Equatable {
        var name: String
        var takesValue: Bool
        var repeats: Bool

        var environmentName: String {
            environmentPrefix + name.uppercased().replacingOccurrences(of: "-", with: "_")
        }
    }

    /// The arguments `enserver` parses: `commandLine` (without the program's name) and, after it, the options the
    /// environment and the configuration file give that the command line does not.
    ///
    /// - Throws: ``EnserverFailure`` (exit 2) for an unreadable or malformed file, an unknown key, a value of the
    ///   wrong type, or a password on the command line.
    package static func arguments(
        _ commandLine: [String], environment: [String: String]
    ) throws(EnserverFailure) -> [String] {
        let passThrough: Set = ["-h", "--help", "help", "--version", "--experimental-dump-help"]
        if commandLine.contains(where: { passThrough.contains($0) }) { return commandLine }
        let subcommand = ["serve", "export"].contains(commandLine.first ?? "") ? commandLine[0] : "serve"
        let options = Self.options(of: subcommand)
        let given = givenOptions(commandLine)
        try refusePasswordOnCommandLine(commandLine)

        var added: [String] = []
        // The environment, for what the command line does not give.
        for option in options where !given.contains(option.name) && option.name != "config" {
            guard let value = environment[option.environmentName] else { continue }
            added += try arguments(
                for: option, values: option.repeats ? value.split(separator: ",").map(String.init) : [value],
                source: option.environmentName)
        }
        // The file, for what neither gives.
        let fileOption = value(of: "config", in: commandLine) ?? environment[environmentPrefix + "CONFIG"]
        if let path = fileOption {
            let fromEnvironment = Set(added.filter { $0.hasPrefix("--") }.map { String($0.dropFirst(2)) })
            let object = try configurationFile(path)
            let known = Dictionary(uniqueKeysWithValues: options.map { ($0.name, $0) })
            for key in object.keys.sorted() {
                guard let option = known[key], key != "config" else {
                    throw EnserverFailure(
                        "--config \(path): unknown option \"\(key)\" for enserver \(subcommand) (keys are option names "
                            + "without their dashes, such as \"signing-key\")")
                }
                guard !given.contains(key), !fromEnvironment.contains(key) else { continue }
                added += try arguments(
                    for: option, values: try values(object[key]!, option: option, path: path),
                    source: "--config \(path): \"\(key)\"")
            }
        }
        guard !added.isEmpty else { return commandLine }
        // Inserted before a `--` that ends the options, if any.
        var result = commandLine
        if commandLine.first != subcommand { result.insert(subcommand, at: 0) }
        let end = result.firstIndex(of: "--") ?? result.endIndex
        result.insert(contentsOf: added, at: end)
        return result
    }

    /// The long options of `subcommand`, from ArgumentParser's description of `enserver`.
    static func options(of subcommand: String) -> [Option] {
        struct ToolInfo: Decodable {
            struct Command: Decodable {
                var commandName: String
                var subcommands: [Command]?
                var arguments: [Argument]?
            }
            struct Argument: Decodable {
                struct Name: Decodable {
                    var kind: String
                    var name: String
                }
                var kind: String
                var names: [Name]?
                var isRepeating: Bool?
            }
            var command: Command
        }
        guard let info = try? JSONDecoder().decode(ToolInfo.self, from: Data(Enserver._dumpHelp().utf8)),
            let command = info.command.subcommands?.first(where: { $0.commandName == subcommand })
        else { return [] }
        return (command.arguments ?? []).compactMap { argument in
            guard argument.kind == "option" || argument.kind == "flag",
                let name = argument.names?.first(where: { $0.kind == "long" })?.name,
                !["help", "version"].contains(name)
            else { return nil }
            return Option(name: name, takesValue: argument.kind == "option", repeats: argument.isRepeating ?? false)
        }
    }

    /// The long options the command line names (`--name` or `--name=value`), up to a `--`.
    static func givenOptions(_ commandLine: [String]) -> Set<String> {
        var names: Set<String> = []
        for argument in commandLine {
            if argument == "--" { break }
            guard argument.hasPrefix("--") else { continue }
            names.insert(String(argument.dropFirst(2).prefix(while: { $0 != "=" })))
        }
        return names
    }

    /// The value the command line gives option `name`, if any.
    static func value(of name: String, in commandLine: [String]) -> String? {
        for (index, argument) in commandLine.enumerated() {
            if argument == "--" { break }
            if argument == "--" + name, index + 1 < commandLine.count { return commandLine[index + 1] }
            if argument.hasPrefix("--\(name)=") { return String(argument.dropFirst(name.count + 3)) }
        }
        return nil
    }

    private static func refusePasswordOnCommandLine(_ commandLine: [String]) throws(EnserverFailure) {
        guard let url = value(of: "postgres", in: commandLine), let components = URLComponents(string: url),
            components.password != nil
        else { return }
        throw EnserverFailure(
            "--postgres: the URL carries a password, which every user of this machine can read on a command line; "
                + "give the URL in ENSERVER_POSTGRES or the --config file, or the password in "
                + "ENSERVER_POSTGRES_PASSWORD or --postgres-password-file")
    }

    private static func arguments(
        for option: Option, values: [String], source: String
    ) throws(EnserverFailure) -> [String] {
        guard option.takesValue else {
            switch values.first?.lowercased() ?? "" {
            case "1", "true", "yes": return ["--" + option.name]
            case "0", "false", "no", "": return []
            case let other:
                throw EnserverFailure("\(source): \(other) is not a flag value (want true or false, 1 or 0)")
            }
        }
        return values.flatMap { ["--" + option.name, $0] }
    }

    /// A value of the configuration file.
    enum Value: Decodable {
        case scalar(String)
        case flag(Bool)
        case list([Value])
        case other

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let flag = try? container.decode(Bool.self) {
                self = .flag(flag)
            } else if let number = try? container.decode(Int.self) {
                self = .scalar(String(number))
            } else if let number = try? container.decode(Double.self) {
                self = .scalar(String(number))
            } else if let string = try? container.decode(String.self) {
                self = .scalar(string)
            } else if let list = try? container.decode([Value].self) {
                self = .list(list)
            } else {
                self = .other
            }
        }
    }

    private static func configurationFile(_ path: String) throws(EnserverFailure) -> [String: Value] {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw EnserverFailure("--config \(path): cannot read the file: \(error.localizedDescription)")
        }
        guard data.count <= 1 << 20 else { throw EnserverFailure("--config \(path): the file is over 1 MiB") }
        guard let object = try? JSONDecoder().decode([String: Value].self, from: data) else {
            throw EnserverFailure("--config \(path): want a JSON object of option names and values")
        }
        return object
    }

    private static func values(_ value: Value, option: Option, path: String) throws(EnserverFailure) -> [String] {
        func scalar(_ value: Value) -> String? {
            switch value {
            case .scalar(let string): string
            case .flag(let flag): flag ? "true" : "false"
            case .list, .other: nil
            }
        }
        if case .list(let list) = value, option.repeats {
            var strings: [String] = []
            for element in list {
                guard let string = scalar(element) else {
                    throw EnserverFailure("--config \(path): \"\(option.name)\" wants strings or numbers")
                }
                strings.append(string)
            }
            return strings
        }
        guard let string = scalar(value) else {
            throw EnserverFailure(
                "--config \(path): \"\(option.name)\" wants a \(option.takesValue ? "string or number" : "boolean")"
                    + (option.repeats ? " or an array" : ""))
        }
        return [string]
    }
}
