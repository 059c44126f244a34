import EntoolKit

/// The `entool` executable: the command and its subcommands live in EntoolKit, where tests and the fuzz targets
/// reach the input readers too.
@main
enum EntoolMain {
    static func main() async {
        await Entool.main()
    }
}
