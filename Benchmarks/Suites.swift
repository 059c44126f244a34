/// Every suite, in the order they run. Each area adds its line here.
let allBenchmarkSuites: [BenchmarkSuite] = [
    cryptoBenchmarkSuite,
    exportBenchmarkSuite,
    matchingBenchmarkSuite,
    detectionBenchmarkSuite,
    riskBenchmarkSuite,
    storeBenchmarkSuite,
    keyServerBenchmarkSuite,
    simulationBenchmarkSuite,
    evaluationBenchmarkSuite,
]
