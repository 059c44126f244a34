// A correct program that ThreadSanitizer reports as racy on Linux (Swift 6.3.1): an immutable object created on a
// dispatch queue, handed to a task through `CheckedContinuation.resume(returning:)`, and read by the task after the
// await on the global executor. ThreadSanitizer does not see the ordering between the resume and the task's next
// step, and reports the reads as races with the object's initialisation.
//
//     swiftc -sanitize=thread -g -Onone Scripts/tsan-continuation-handoff.swift -o /tmp/handoff && /tmp/handoff
//
// prints three "WARNING: ThreadSanitizer: data race" reports (one per field read), then `total 1665`. Passing
// `--through-lock` hands the value through a POSIX mutex and resumes with `Void` instead, the form ENSimulator's
// SimulatedApp uses; it prints no report. See Documentation/Reliability.md.
import Dispatch
import Glibc

final class Box: Sendable {
    let code: Int
    let reason: String
    init(code: Int, reason: String) {
        self.code = code
        self.reason = reason
    }
}

/// A value handed from one thread to another under a POSIX mutex.
final class Handoff<Value>: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var value: Value?
    init() { pthread_mutex_init(&mutex, nil) }
    func put(_ newValue: Value) {
        pthread_mutex_lock(&mutex)
        value = newValue
        pthread_mutex_unlock(&mutex)
    }
    func take() -> Value? {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return value
    }
}

let queue = DispatchQueue(label: "handoff")
let throughLock = CommandLine.arguments.contains("--through-lock")

func launch(_ i: Int) async -> Box {
    if throughLock {
        let handoff = Handoff<Box>()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                handoff.put(Box(code: i, reason: "missed \(i)"))
                continuation.resume()
            }
        }
        return handoff.take()!
    }
    return await withCheckedContinuation { (continuation: CheckedContinuation<Box, Never>) in
        queue.async { continuation.resume(returning: Box(code: i, reason: "missed \(i)")) }
    }
}

let total = await Task.detached {
    var total = 0
    for i in 0..<50 {
        let box = await launch(i)
        total += box.code + box.reason.count
    }
    return total
}.value
print("total", total)
