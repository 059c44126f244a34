import ArgumentParser

@main
struct Benchmarks: ParsableCommand {}
