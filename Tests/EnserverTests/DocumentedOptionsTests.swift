import ArgumentParser
import EnserverKit
import Foundation
import Testing

/// `Documentation/enserver.md` documents the options in tables (first column `option`), each under a heading that
/// names the subcommands it applies to (`serve`, `export`). These tests hold those tables to the help of each
/// subcommand of `Enserver`, printed in process: an option the help lists and no table documents, or a documented
/// option the help does not list, fails with its name. The subcommands come from the command's configuration, so
/// a new subcommand without a table fails too.
@Suite struct DocumentedOptionsTests {
    /// The options every command has from ArgumentParser itself.
    static let automatic: Set<String> = ["--help", "--version"]

    @Test func everySubcommandsOptionsAreTheDocumentedOnes() throws {
        let documentation = try String(contentsOf: documentationURL("enserver.md"), encoding: .utf8)
        let subcommands = Enserver.configuration.subcommands
        try #require(!subcommands.isEmpty)
        let names = Set(subcommands.map { $0._commandName })
        let tables = documentedOptionTables(documentation)

        for table in tables where table.heading.words.isDisjoint(with: names) {
            Issue.record(
                "enserver.md: the option table under \"\(table.heading.text)\" names no subcommand of enserver")
        }
        for subcommand in subcommands {
            let name = subcommand._commandName
            let help = Enserver.helpMessage(for: subcommand, columns: 100)
            let offered = helpOptions(help).subtracting(Self.automatic)
            try #require(!offered.isEmpty, "enserver \(name): no options read from its help:\n\(help)")
            let mine = tables.filter { $0.heading.words.contains(name) }
            guard !mine.isEmpty else {
                Issue.record("enserver.md has no option table under a heading naming `\(name)`")
                continue
            }
            let documented = mine.reduce(into: Set<String>()) { $0.formUnion($1.options) }
            for option in offered.subtracting(documented).sorted() {
                Issue.record("enserver \(name): \(option) is in --help but not in enserver.md's option tables")
            }
            for option in documented.subtracting(offered).sorted() {
                Issue.record("enserver \(name): \(option) is in enserver.md's option tables but not in --help")
            }
        }
    }
}

// MARK: - Reading the documentation and the help (the same in EntoolTests' DocumentedOptionsTests)

/// `Documentation/NAME` in this package.
private func documentationURL(_ name: String) -> URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Documentation").appendingPathComponent(name)
}

/// A Markdown heading: its text and its words (what names subcommands).
private struct Heading {
    var text: String
    var words: Set<String> {
        Set(text.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "-") }).map(String.init))
    }
}

/// One option table: the heading it stands under and the `--options` its first column names.
private struct OptionTable {
    var heading: Heading
    var options: Set<String>
}

/// The Markdown tables whose header's first cell is `option`, with the long options of their first column.
private func documentedOptionTables(_ markdown: String) -> [OptionTable] {
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
private func helpOptions(_ help: String) -> Set<String> {
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
