import Foundation

/// The environment variables `enserver` reads its options and secrets from: the process's, or in tests a task's
/// own (so that tests running in parallel in one process do not share them).
package enum EnserverEnvironment {
    /// The variables in effect for the current task.
    @TaskLocal package static var current: [String: String] = ProcessInfo.processInfo.environment
}
