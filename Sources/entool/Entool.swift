import ArgumentParser

@main
struct Entool: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "entool", abstract: "Exposure Notification tool.")
}
