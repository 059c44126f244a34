import Foundation

/// The environment variables `enverify` reads its secret from: the process's, or in tests a task's own (so that
/// tests running in parallel in one process do not share them).
package enum EnverifyEnvironment {
    /// The variables in effect for the current task.
    @TaskLocal package static var current: [String: String] = ProcessInfo.processInfo.environment
}
