import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Confines the whole process to some cores and back (Linux's `sched_setaffinity` on every thread; elsewhere
/// nothing), for the rows that measure a detection on one core.
enum CoreAffinity {
    /// Whether the process can be confined on this system.
    static var isAvailable: Bool {
        #if os(Linux)
            true
        #else
            false
        #endif
    }

    /// Confines every thread of the process to the cores `cpus`; threads created later by them inherit it.
    /// Returns whether every thread was confined.
    @discardableResult
    static func confine(to cpus: [Int]) -> Bool {
        #if os(Linux)
            // glibc's `sched_setaffinity` (a `_GNU_SOURCE` declaration the Glibc module does not show Swift).
            guard let symbol = dlsym(nil, "sched_setaffinity") else { return false }
            typealias SetAffinity = @convention(c) (pid_t, Int, UnsafeRawPointer) -> Int32
            let setAffinity = unsafeBitCast(symbol, to: SetAffinity.self)
            var set = cpu_set_t()
            withUnsafeMutableBytes(of: &set) { raw in
                let words = raw.bindMemory(to: UInt.self)
                for cpu in cpus where cpu / UInt.bitWidth < words.count {
                    words[cpu / UInt.bitWidth] |= 1 << UInt(cpu % UInt.bitWidth)
                }
            }
            // Twice: a thread an unconfined thread created during the first pass is caught by the second.
            var confined = true
            for _ in 0..<2 {
                confined = true
                for task in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? [] {
                    guard let tid = pid_t(task) else { continue }
                    if setAffinity(tid, MemoryLayout<cpu_set_t>.size, &set) != 0 && errno != ESRCH {
                        confined = false
                    }
                }
            }
            return confined
        #else
            return false
        #endif
    }

    /// Lets every thread of the process run on all cores again.
    static func release() {
        confine(to: Array(0..<max(1, ProcessInfo.processInfo.processorCount)))
    }
}
