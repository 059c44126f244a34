import ENTestSupport
import Foundation
import Testing

/// `Documentation/entool.md` documents every subcommand's options in a table (first column `option`) under a
/// heading that names the subcommand. These tests hold those tables to what `entool <subcommand> --help` prints:
/// an option the help lists and no table documents, or a documented option the help does not list, fails with its
/// name. The subcommands come from `entool --help`, so a new subcommand without a table fails too.
@Suite struct DocumentedOptionsTests {
    /// The options every command has from ArgumentParser itself, described once by the conventions.
    static let automatic: Set<String> = ["--help", "--version"]

    @Test func everySubcommandsOptionsAreTheDocumentedOnes() throws {
        let documentation = try String(contentsOf: documentationURL("entool.md"), encoding: .utf8)
        let root = try runEntool(["--help"])
        try #require(root.status == 0, "entool --help exited \(root.status): \(root.stderr)")
        let subcommands = helpSubcommands(root.output)
        try #require(!subcommands.isEmpty, "entool --help lists no subcommands:\n\(root.output)")
        let tables = documentedOptionTables(documentation)

        for table in tables where table.heading.words.isDisjoint(with: subcommands) {
            Issue.record("entool.md: the option table under \"\(table.heading.text)\" names no subcommand of entool")
        }
        for subcommand in subcommands {
            let help = try runEntool([subcommand, "--help"])
            try #require(help.status == 0, "entool \(subcommand) --help exited \(help.status): \(help.stderr)")
            let offered = helpOptions(help.output).subtracting(Self.automatic)
            let mine = tables.filter { $0.heading.words.contains(subcommand) }
            guard !mine.isEmpty else {
                Issue.record("entool.md has no option table under a heading naming `\(subcommand)`")
                continue
            }
            let documented = mine.reduce(into: Set<String>()) { $0.formUnion($1.options) }
            for option in offered.subtracting(documented).sorted() {
                Issue.record("entool \(subcommand): \(option) is in --help but not in entool.md's option table")
            }
            for option in documented.subtracting(offered).sorted() {
                Issue.record("entool \(subcommand): \(option) is in entool.md's option table but not in --help")
            }
        }
    }

    /// The parsers themselves: a table row naming two options, a flag, a help line wrapped under an option.
    @Test func theParsersReadTablesAndHelp() {
        let markdown = """
            ## derive

            | option | meaning | default |
            |---|---|---|
            | `--tek HEX`, `--interval N` | the key | required |
            | `--json` | JSON | |

            ## other
            """
        let tables = documentedOptionTables(markdown)
        #expect(tables.count == 1)
        #expect(tables.first?.heading.words == ["derive"])
        #expect(tables.first?.options == ["--tek", "--interval", "--json"])

        let help = """
            USAGE: entool derive --tek <tek> [--json]

            OPTIONS:
              --tek <tek>             The key; see --other.
              --a-very-long-option-name <a-very-long-option-name>
                                      Wrapped, mentioning --not-an-option.
              --json                  JSON.
              -h, --help              Show help information.

            """
        #expect(helpOptions(help) == ["--tek", "--a-very-long-option-name", "--json", "--help"])
        #expect(
            helpSubcommands("SUBCOMMANDS:\n  derive   Derive.\n  demo (default)   Demo.\n\n  See more.\n")
                == ["derive", "demo"])
    }
}

// MARK: - Reading the documentation and the help (the same in EnserverTests' DocumentedOptionsTests)

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

/// The subcommand names an ArgumentParser help lists in its `SUBCOMMANDS:` section.
private func helpSubcommands(_ help: String) -> Set<String> {
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
