import ENCore
package import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The servers' log handler: lines to standard error in swift-log's `StreamLogHandler` format
/// (`TIMESTAMP LEVEL LABEL: KEY=VALUE ... [SOURCE] MESSAGE`, metadata sorted by key), written at a fraction of its cost,
/// because a server at `info` writes one line per request.
///
/// Where `StreamLogHandler` spends a request's time and this handler does not: it formats the timestamp anew for every
/// line (`localtime` under glibc's time-zone lock, then `strftime`), while this one formats it once a second; it
/// writes through the `FILE` lock and an unbuffered `stderr` in pieces, while this one builds the line and hands it
/// to the kernel in one `write(2)`, so lines from several threads never interleave. Nothing is buffered in the
/// process: a line is out when ``log(event:)`` returns, and a killed server loses none.
package struct ServerLogHandler: LogHandler {
    package var logLevel: Logger.Level
    package var metadata: Logger.Metadata = [:]
    package var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let descriptor: Int32

    /// A handler for `label` at `level` writing to `descriptor` (standard error unless told otherwise).
    package init(label: String, level: Logger.Level, descriptor: Int32 = 2) {
        self.label = label
        self.logLevel = level
        self.descriptor = descriptor
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        var line = Self.timestamps.current()
        line.reserveCapacity(160)
        line += " "
        line += event.level.rawValue
        if !label.isEmpty {
            line += " "
            line += label
        }
        line += ":"
        var merged: Logger.Metadata
        if metadata.isEmpty, metadataProvider == nil, event.error == nil {
            merged = event.metadata ?? [:]  // a request line: its own metadata only, nothing to merge
        } else {
            merged = metadata
            if let provided = metadataProvider?.get(), !provided.isEmpty {
                merged.merge(provided) { _, provided in provided }
            }
            if let explicit = event.metadata, !explicit.isEmpty {
                merged.merge(explicit) { _, explicit in explicit }
            }
            if let error = event.error {
                merged["error.message"] = "\(error)"
                merged["error.type"] = "\(String(reflecting: type(of: error)))"
            }
        }
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
            line += " "
            line += key
            line += "="
            line += value.description
        }
        line += " ["
        line += event.source
        line += "] "
        line += event.message.description
        line += "\n"
        Self.emit(line, to: descriptor)
    }

    /// Hands `line` to the kernel in one `write(2)` (more only if the kernel takes part of it).
    private static func emit(_ line: String, to descriptor: Int32) {
        var line = line
        line.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }

    /// The timestamp of the current second, formatted once for every line of that second.
    private static let timestamps = TimestampCache()

    /// `StreamLogHandler`'s timestamp (`%Y-%m-%dT%H:%M:%S%z`, local time), cached for the second it names.
    final class TimestampCache: Sendable {
        private let cached = Locked<(second: time_t, text: String)>((-1, ""))

        func current() -> String {
            let now = time(nil)
            if let text = cached.withLock({ $0.second == now ? $0.text : nil }) { return text }
            var seconds = now
            var local = tm()
            var buffer = [CChar](repeating: 0, count: 64)
            let text: String
            if localtime_r(&seconds, &local) != nil, strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &local) > 0
            {
                text = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            } else {
                text = "<unknown>"
            }
            cached.withLock { $0 = (now, text) }
            return text
        }
    }
}
