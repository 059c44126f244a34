import ArgumentParser
import ENTestSupport
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
