import ENTestSupport
import Foundation
import Testing

/// `SampleAppExample` run as a program, as a newcomer runs it (`swift run SampleAppExample`): the sample app's
/// story must end with the encounter found by the periodic run and by the session flow, the file index past the
/// processed file and the user's keys posted.
@Suite struct SampleAppExampleTests {
    /// What the program printed after `Outcome:`, by field.
    struct Outcome {
        var output: String
        var fields: [String: String]
    }

    @Test(arguments: [1, 2]) func theStoryEndsAsExpected(apiVersion: Int) throws {
        let outcome = try run(["--api-version", "\(apiVersion)"])
        #expect(outcome.output.contains("ENAPIVersion \(apiVersion)"), "\(outcome.output)")
        // The scheduler launched the app's activity handler, which downloaded the neighbour's file and found the
        // encounter of the first day (V2 windows or V1 infos by the API version); the file index moved past it.
        #expect(outcome.output.contains("periodic run (.periodicRun): the app downloads the new key files"))
        #expect(
            outcome.output.contains(
                "after the periodic run: exposures [2021-03-01], next file index 1, last error none"))
        // With no new file the framework answers for the cached keys again (ENManager's rule), and the sample
        // appends what it gets; the index stays.
        #expect(
            outcome.output.contains(
                "after a periodic run without new files: exposures [2021-03-01, 2021-03-01], next file index 1"))
        // The earlier API finds the same encounter, with its duration and score (V1 values).
        #expect(outcome.output.contains("ENExposureDetectionSession flow: succeeded"))
        #expect(outcome.output.contains(", 2021-03-01 "), "the session's exposure")
        // The user's own keys reach the server both ways, and are published after the last detection.
        let posted = outcome.output.split(separator: "\n").filter { $0.contains(" posts ") }
        #expect(posted.count == 2)
        #expect(posted.allSatisfy { !$0.contains("posts 0 keys") })
        #expect(outcome.fields["nextDiagnosisKeyFileIndex"] == "1")
        #expect(outcome.fields["serverFiles"] == "2")
        #expect(outcome.fields["lastError"] == "none")
        #expect(outcome.fields["onboarded"] == "true")
        #expect(outcome.fields["testResults"] == "1, shared: 1")
    }

    @Test func aBadArgumentIsRefused() throws {
        let process = try launch(["--api-version", "3"])
        #expect(process.status == 2)
        #expect(process.output.contains("usage:"))
    }

    func run(_ arguments: [String]) throws -> Outcome {
        let (status, output) = try launch(arguments)
        try #require(status == 0, "exit status \(status): \(output)")
        var fields: [String: String] = [:]
        let lines = output.split(separator: "\n").drop { $0 != "Outcome:" }.dropFirst()
        for line in lines {
            let parts = line.trimmingCharacters(in: .whitespaces).split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            fields[String(parts[0])] = parts[1].trimmingCharacters(in: .whitespaces)
        }
        return Outcome(output: output, fields: fields)
    }

    /// Runs the built example (beside the test bundle) with a two-minute limit.
    func launch(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let url = Bundle.main.bundleURL.appendingPathComponent("SampleAppExample")
        try #require(FileManager.default.isExecutableFile(atPath: url.path), "SampleAppExample not at \(url.path)")
        let directory = try TemporaryDirectory(prefix: "SampleAppExample")
        defer { directory.cleanUp() }
        let output = directory.path("output")
        let process = try ChildProcess(
            url.path, arguments, standardOutput: .file(output), standardError: .standardOutput)
        let deadline = ContinuousClock.now + .seconds(120)
        while process.isRunning && ContinuousClock.now < deadline { usleep(10_000) }
        if process.isRunning { process.send(SIGTERM) }
        let termination = process.waitForExit()
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        return (termination.exitStatus ?? -1, text)
    }
}
