internal import ENCore
internal import Foundation

/// How a matching run is executed: threads, kernel, batch size, progress and cancellation.
public struct ENMatchingOptions: Sendable {
    /// The number of threads; defaults to the number of active processors. Values below 1 mean 1, values above
    /// ``maximumThreadCount`` mean that many.
    public var threadCount: Int
    /// The derivation kernel; nil chooses ``ENMatchingKernel/best``. Naming an unsupported kernel makes the run
    /// fail with `ENError.Code.unsupported`.
    public var kernel: ENMatchingKernel?
    /// Keys read from the input before the threads work on them. Two batches exist at a time (one matched, one
    /// read), which bounds memory when keys are streamed.
    public var batchSize: Int
    /// Called on the calling thread (the one that reads the input) each time a batch has been matched.
    public var progress: (@Sendable (ENMatchingProgress) -> Void)?
    /// Polled by every thread between small groups of keys; returning true stops the run, which then throws
    /// `ENError.Code.invalidated`. The run also stops when the calling task is cancelled.
    public var isCancelled: (@Sendable () -> Bool)?

    /// Tests only: run the matching loop compiled for any CPU even where the AVX2/BMI2 build could run.
    var usesGenericLoop = false
    /// Tests only: match batches in the background while reading the next (true) or on the calling thread
    /// (false) whatever the input's reading speed; nil decides by the speed.
    var overlapsReading: Bool?

    /// The most threads a run uses: 256.
    public static let maximumThreadCount = 256

    /// The default batch: 65,536 keys (about 1.5 MB of kernel input plus the keys themselves).
    public static let defaultBatchSize = 65_536

    /// Creates options.
    public init(
        threadCount: Int? = nil,
        kernel: ENMatchingKernel? = nil,
        batchSize: Int = ENMatchingOptions.defaultBatchSize,
        progress: (@Sendable (ENMatchingProgress) -> Void)? = nil,
        isCancelled: (@Sendable () -> Bool)? = nil
    ) {
        self.threadCount = threadCount ?? ENMatchingOptions.processorCount
        self.kernel = kernel
        self.batchSize = batchSize
        self.progress = progress
        self.isCancelled = isCancelled
    }

    /// The number of active processors (at least 1), read again at most once a second.
    ///
    /// Foundation's `activeProcessorCount` reads the process's cgroup quota and CPU set from `/proc` and `/sys`
    /// at every call, several files each time: a detection asked it twice, which cost more than matching a
    /// small file. A container's quota can change while the process runs, so the value is not kept forever.
    package static var processorCount: Int {
        let now = ContinuousClock.now
        if let count = cachedProcessorCount.withLock({ cached in cached.flatMap { now < $0.until ? $0.count : nil } }) {
            return count
        }
        let count = max(1, ProcessInfo.processInfo.activeProcessorCount)
        cachedProcessorCount.withLock { $0 = (count, now + .seconds(1)) }
        return count
    }

    private static let cachedProcessorCount = Locked<(count: Int, until: ContinuousClock.Instant)?>(nil)
}
