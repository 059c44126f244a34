import ArgumentParser

/// Options every subcommand shares.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print machine-readable JSON on standard output.")
    var json = false
}
