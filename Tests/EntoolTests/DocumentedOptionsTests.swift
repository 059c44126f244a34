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
