internal import ENCore
public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A program the tests run as a child process: started with `posix_spawn`, waited for with `waitpid`, its output
/// written to files.
///
/// Why not Foundation's `Process`: on Linux it learns that a child exited when a socket the child inherits reaches
/// its end, and it creates that socket (and the pipes it is given) without close-on-exec. A child that another
/// thread spawns at that moment inherits them too, and then `waitUntilExit()` and `readDataToEndOfFile()` wait
/// for *that* child as well. The tests start long-lived children (a private PostgreSQL, `enserver`) while other
/// tests wait synchronously on Swift's cooperative threads, of which there are as many as cores: two such waits
/// on each other's children stalled a whole test run. Here a child inherits only its standard input, output and
/// error (every other descriptor is closed when it starts), its output goes to files rather than pipes, and its
/// exit is what `waitpid` says.
public final class ChildProcess: Sendable {
    /// How a child ended.
    public struct Termination: Sendable, Equatable, CustomStringConvertible {
        /// The status it exited with; `nil` when a signal ended it.
        public var exitStatus: Int32?
        /// The signal that ended it; `nil` when it exited.
        public var signal: Int32?

        /// Whether it exited with status 0.
        public var succeeded: Bool { exitStatus == 0 }

        /// The exit status, or 128 plus the signal's number (as a shell reports it).
        public var status: Int32 { exitStatus ?? 128 + (signal ?? 0) }

        public var description: String {
            if let exitStatus { return "exit status \(exitStatus)" }
            return "signal \(signal ?? 0)"
        }
    }

    /// Where a child's standard output or error goes.
    public enum Destination: Sendable {
        /// `/dev/null`.
        case null
        /// The file at this path, created or truncated.
        case file(String)
        /// Where standard output goes (for standard error only).
        case standardOutput
    }

    /// What ``run(_:_:standardInput:currentDirectory:environment:timeout:)`` collected.
    public struct Outcome: Sendable {
        /// How the program ended (`SIGKILL` when it ran past its time limit).
        public var termination: Termination
        /// Everything it wrote to standard output.
        public var standardOutput: Data
        /// Everything it wrote to standard error.
        public var standardError: Data
        /// Whether it ran past its time limit and was killed.
        public var timedOut: Bool

        /// The exit status, or 128 plus the signal's number.
        public var status: Int32 { termination.status }
    }

    /// The child's process identifier.
    public let processIdentifier: pid_t
    private let termination = Locked<Termination?>(nil)

    /// Starts `executable` with `arguments`: standard input from the file at `standardInput` (`/dev/null` when
    /// `nil`), standard output and error to `standardOutput` and `standardError`, in `currentDirectory` (the
    /// tests' when `nil`), with `environment` (the tests' when `nil`).
    ///
    /// - Throws: ``Failure`` when the program cannot be started.
    public init(
        _ executable: String, _ arguments: [String], standardInput: String? = nil,
        standardOutput: Destination = .null, standardError: Destination = .null, currentDirectory: String? = nil,
        environment: [String: String]? = nil
    ) throws {
        #if canImport(Darwin)
            var actions: posix_spawn_file_actions_t? = nil
            var attributes: posix_spawnattr_t? = nil
        #else
            var actions = posix_spawn_file_actions_t()
            var attributes = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }

        posix_spawn_file_actions_addopen(&actions, 0, standardInput ?? "/dev/null", O_RDONLY, 0)
        for (descriptor, destination) in [(Int32(1), standardOutput), (2, standardError)] {
            switch destination {
            case .null:
                posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", O_WRONLY, 0)
            case .file(let path):
                posix_spawn_file_actions_addopen(&actions, descriptor, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            case .standardOutput:
                posix_spawn_file_actions_adddup2(&actions, 1, descriptor)
            }
        }
        // Nothing else is inherited: no descriptor of this process, whichever thread opened it and whenever.
        #if canImport(Darwin)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_CLOEXEC_DEFAULT))
        #else
            if let closeFrom = Self.addCloseFrom {
                _ = closeFrom(&actions, 3)
            } else {
                for descriptor in 3..<Int32(min(sysconf(Int32(_SC_OPEN_MAX)), 65_536)) {
                    if fcntl(descriptor, F_GETFD) != -1 { posix_spawn_file_actions_addclose(&actions, descriptor) }
                }
            }
        #endif

        // A working directory: through `sh -c 'cd DIR && exec PROGRAM ARGUMENTS'`, which every system has (glibc's
        // `posix_spawn_file_actions_addchdir_np` is hidden from Swift).
        var program = executable
        var argv = [executable] + arguments
        if let currentDirectory {
            program = "/bin/sh"
            argv = ["/bin/sh", "-c", #"cd "$1" && shift && exec "$@""#, "sh", currentDirectory, executable] + arguments
        }
        let environmentStrings = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        var pid = pid_t()
        let result = Self.withCStrings(argv) { argvPointer in
            Self.withCStrings(environmentStrings) { environmentPointer in
                posix_spawn(&pid, program, &actions, &attributes, argvPointer, environmentPointer)
            }
        }
        guard result == 0 else {
            throw Failure(message: "cannot start \(executable): \(String(cString: strerror(result)))")
        }
        processIdentifier = pid
    }

    deinit {
        // Never leave a zombie, nor a child running after its test.
        if termination.withLock({ $0 }) == nil {
            kill(processIdentifier, SIGKILL)
            _ = waitForExit()
        }
    }

    /// Whether the child has not exited yet.
    public var isRunning: Bool { reap() == nil }

    /// Sends `signal` to the child (nothing once it has exited and been waited for).
    public func send(_ signal: Int32) {
        termination.withLock { termination in
            if termination == nil { _ = kill(processIdentifier, signal) }
        }
    }

    /// Waits until the child exits (blocking the calling thread).
    @discardableResult
    public func waitForExit() -> Termination {
        while true {
            if let done = reap() { return done }
            usleep(2_000)
        }
    }

    /// Waits until the child exits, without blocking a thread.
    @discardableResult
    public func waitForExit() async -> Termination {
        while true {
            if let done = reap() { return done }
            if (try? await Task.sleep(for: .milliseconds(2))) == nil { usleep(2_000) }
        }
    }

    /// Waits until the child exits, without blocking a thread, for at most `timeout`; `nil` when it still runs.
    public func waitForExit(timeout: Duration) async -> Termination? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let done = reap() { return done }
            if (try? await Task.sleep(for: .milliseconds(2))) == nil { usleep(2_000) }
        }
        return reap()
    }

    /// Runs `executable` with `arguments` to its end, feeding it `standardInput`, and collects its output; past
    /// `timeout` it is killed. It blocks its thread while it waits: from async code, use
    /// ``runAsync(_:_:standardInput:currentDirectory:environment:timeout:)``.
    public static func run(
        _ executable: String, _ arguments: [String], standardInput: Data? = nil, currentDirectory: String? = nil,
        environment: [String: String]? = nil, timeout: Duration? = nil
    ) throws -> Outcome {
        try collecting(
            executable, arguments, standardInput: standardInput, currentDirectory: currentDirectory,
            environment: environment
        ) { child in
            var timedOut = false
            if let timeout {
                let deadline = ContinuousClock.now + timeout
                while child.isRunning {
                    if ContinuousClock.now >= deadline {
                        child.send(SIGKILL)
                        timedOut = true
                        break
                    }
                    usleep(2_000)
                }
            }
            return (child.waitForExit(), timedOut)
        }
    }

    /// ``run(_:_:standardInput:currentDirectory:environment:timeout:)`` without blocking a thread while it waits. An
    /// async test that blocks threads of Swift's cooperative pool (as many as the machine has cores) can starve
    /// everything else in the test process, its in-process servers included, which the child may be talking to.
    public static func runAsync(
        _ executable: String, _ arguments: [String], standardInput: Data? = nil, currentDirectory: String? = nil,
        environment: [String: String]? = nil, timeout: Duration? = nil
    ) async throws -> Outcome {
        let directory = try TemporaryDirectory(prefix: "child")
        defer { directory.cleanUp() }
        let child = try start(
            executable, arguments, in: directory, standardInput: standardInput, currentDirectory: currentDirectory,
            environment: environment)
        var timedOut = false
        let termination: Termination
        if let timeout {
            if let done = await child.waitForExit(timeout: timeout) {
                termination = done
            } else {
                child.send(SIGKILL)
                timedOut = true
                termination = await child.waitForExit()
            }
        } else {
            termination = await child.waitForExit()
        }
        return outcome(of: termination, in: directory, timedOut: timedOut)
    }

    /// Starts the child of a `run` with its input and outputs in `directory`, waits with `wait` and collects.
    private static func collecting(
        _ executable: String, _ arguments: [String], standardInput: Data?, currentDirectory: String?,
        environment: [String: String]?, wait: (ChildProcess) -> (Termination, Bool)
    ) throws -> Outcome {
        let directory = try TemporaryDirectory(prefix: "child")
        defer { directory.cleanUp() }
        let child = try start(
            executable, arguments, in: directory, standardInput: standardInput, currentDirectory: currentDirectory,
            environment: environment)
        let (termination, timedOut) = wait(child)
        return outcome(of: termination, in: directory, timedOut: timedOut)
    }

    /// Starts a child reading `standardInput` and writing its outputs to files in `directory`.
    private static func start(
        _ executable: String, _ arguments: [String], in directory: TemporaryDirectory, standardInput: Data?,
        currentDirectory: String?, environment: [String: String]?
    ) throws -> ChildProcess {
        var input: String?
        if let standardInput {
            input = directory.path("stdin")
            try standardInput.write(to: directory.url.appendingPathComponent("stdin"))
        }
        return try ChildProcess(
            executable, arguments, standardInput: input, standardOutput: .file(directory.path("stdout")),
            standardError: .file(directory.path("stderr")), currentDirectory: currentDirectory,
            environment: environment)
    }

    /// What a child run in `directory` wrote.
    private static func outcome(of termination: Termination, in directory: TemporaryDirectory, timedOut: Bool)
        -> Outcome
    {
        Outcome(
            termination: termination,
            standardOutput: (try? Data(contentsOf: directory.url.appendingPathComponent("stdout"))) ?? Data(),
            standardError: (try? Data(contentsOf: directory.url.appendingPathComponent("stderr"))) ?? Data(),
            timedOut: timedOut)
    }

    /// The child's termination once it has exited (reaped here, once).
    private func reap() -> Termination? {
        termination.withLock { termination in
            if let termination { return termination }
            var status: Int32 = 0
            var result: pid_t
            repeat { result = waitpid(processIdentifier, &status, WNOHANG) } while result == -1 && errno == EINTR
            guard result == processIdentifier else {
                // 0: still running. -1 (ECHILD) cannot happen for a child reaped only here; say it ended.
                if result == 0 { return nil }
                termination = Termination(exitStatus: nil, signal: SIGKILL)
                return termination
            }
            // The <sys/wait.h> macros, which Swift does not import.
            let signal = status & 0x7f
            termination =
                signal == 0
                ? Termination(exitStatus: (status >> 8) & 0xff, signal: nil)
                : Termination(exitStatus: nil, signal: signal)
            return termination
        }
    }

    #if !canImport(Darwin)
        /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 on; a `_GNU_SOURCE` declaration the Glibc module
        /// does not show Swift).
        private static let addCloseFrom:
            (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
                guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
                typealias AddCloseFrom =
                    @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) ->
                    Int32
                return unsafeBitCast(symbol, to: AddCloseFrom.self)
            }()
    #endif

    /// Calls `body` with a `NULL`-terminated array of C strings copied from `strings`.
    private static func withCStrings<Result>(
        _ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> Result
    ) -> Result {
        let copies: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) } + [nil]
        defer { for copy in copies { free(copy) } }
        return copies.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    /// A child that could not be started.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public var message: String
        public var description: String { message }
    }
}
