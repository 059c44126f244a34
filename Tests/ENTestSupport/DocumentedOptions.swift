public import Foundation

// The documentation's option tables and ArgumentParser's help, read for the tests that hold one to the other
// (EntoolTests' and EnserverTests' DocumentedOptionsTests).

/// `Documentation/NAME` in this package.
public func documentationURL(_ name: String) -> URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Documentation").appendingPathComponent(name)
}

/// A Markdown heading: its text and its words (what names subcommands).
public struct Heading: Sendable {
    /// The heading's text, without its `#` marks.
    public var text: String
    /// The heading's words.
    public var words: Set<String> {
        Set(text.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "-") }).map(String.init))
    }
}

/// One option table: the heading it stands under and the `--options` its first column names.
public struct OptionTable: Sendable {
    /// The heading the table stands under.
    public var heading: Heading
    /// The long options its first column names.
    public var options: Set<String>
}

/// The Markdown tables whose header's first cell is `option`, with the long options of their first column.
public func documentedOptionTables(_ markdown: String) -> [OptionTable] {
    var tables: [OptionTable] = []
    var heading = Heading(text: "")
    var inOptionTable = false
    var previousWasTable = false
    for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("#") {
            heading = Heading(text: trimmed.drop(while: { $0 == "#" }).trimmingCharacters(in: .whitespaces))
        }
        guard trimmed.hasPrefix("|") else {
            inOptionTable = false
            previousWasTable = false
            continue
        }
        let cells = trimmed.dropFirst().split(separator: "|", omittingEmptySubsequences: false)
        let first = cells.first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        if !previousWasTable {  // a header row
            inOptionTable = first.lowercased() == "option"
            if inOptionTable { tables.append(OptionTable(heading: heading, options: [])) }
        } else if inOptionTable && !first.hasPrefix("---") {
            tables[tables.count - 1].options.formUnion(longOptions(in: first))
        }
        previousWasTable = true
    }
    return tables
}

/// Every `--option` in `text`.
private func longOptions(in text: some StringProtocol) -> [String] {
    var options: [String] = []
    var rest = Substring(text)
    while let range = rest.range(of: "--") {
        let name = rest[range.upperBound...].prefix(while: { $0.isLowercase || $0.isNumber || $0 == "-" })
        if let head = name.first, head.isLowercase || head.isNumber { options.append("--" + name) }
        rest = rest[range.upperBound...].dropFirst(name.count)
    }
    return options
}

/// The long options an ArgumentParser help lists: in its `OPTIONS:` section, the names that open an entry (two
/// spaces in), not the options that help text mentions.
public func helpOptions(_ help: String) -> Set<String> {
    var options: Set<String> = []
    var inOptions = false
    for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
        if !line.hasPrefix(" ") && line.hasSuffix(":") {
            inOptions = line == "OPTIONS:"
            continue
        }
        guard inOptions, line.hasPrefix("  "), !line.hasPrefix("   ") else { continue }
        for token in line.split(separator: " ") {
            guard token.hasPrefix("-") || token.hasPrefix("<") else { break }
            if token.hasPrefix("--") { options.insert(String(token.trimmingCharacters(in: [","]))) }
        }
    }
    return options
}

/// The subcommand names an ArgumentParser help lists in its `SUBCOMMANDS:` section.
public func helpSubcommands(_ help: String) -> Set<String> {
    var names: Set<String> = []
    var inSubcommands = false
    for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
        if !line.hasPrefix(" ") {
            inSubcommands = line == "SUBCOMMANDS:"
            continue
        }
        guard inSubcommands, line.hasPrefix("  "), !line.hasPrefix("   ") else { continue }
        if let name = line.split(separator: " ").first { names.insert(String(name)) }
    }
    return names
}
