import ArgumentParser
import ENTestSupport
import EnverifyKit
import Foundation
import Testing

/// `Documentation/enverify.md` documents the options in tables (first column `option`), each under a heading that
/// names the subcommands it applies to (`create`, `serve`). These tests hold those tables to the help of each leaf
/// subcommand of `Enverify`, printed in process: an option the help lists and no table documents, or a documented
/// option the help does not list, fails with its name.
@Suite struct EnverifyDocumentedOptionsTests {
    /// The options every command has from ArgumentParser itself.
    static let automatic: Set<String> = ["--help", "--version"]

    /// The subcommands that run (those without subcommands of their own).
    static func leaves(_ command: any ParsableCommand.Type) -> [any ParsableCommand.Type] {
        let children = command.configuration.subcommands
        return children.isEmpty ? [command] : children.flatMap { leaves($0) }
    }

    @Test func everySubcommandsOptionsAreTheDocumentedOnes() throws {
        let documentation = try String(contentsOf: documentationURL("enverify.md"), encoding: .utf8)
        let subcommands = Self.leaves(Enverify.self)
        try #require(subcommands.count == 2)
        let names = Set(subcommands.map { $0._commandName })
        let tables = documentedOptionTables(documentation)
        try #require(!tables.isEmpty)

        for table in tables where table.heading.words.isDisjoint(with: names) {
            Issue.record("enverify.md: the option table under \"\(table.heading.text)\" names no subcommand")
        }
        for subcommand in subcommands {
            let name = subcommand._commandName
            let help = Enverify.helpMessage(for: subcommand, columns: 100)
            let offered = helpOptions(help).subtracting(Self.automatic)
            try #require(!offered.isEmpty, "enverify \(name): no options read from its help:\n\(help)")
            let mine = tables.filter { $0.heading.words.contains(name) }
            guard !mine.isEmpty else {
                Issue.record("enverify.md has no option table under a heading naming `\(name)`")
                continue
            }
            let documented = mine.reduce(into: Set<String>()) { $0.formUnion($1.options) }
            for option in offered.subtracting(documented).sorted() {
                Issue.record("enverify \(name): \(option) is in --help but not in enverify.md's option tables")
            }
            for option in documented.subtracting(offered).sorted() {
                Issue.record("enverify \(name): \(option) is in enverify.md's option tables but not in --help")
            }
        }
    }
}
