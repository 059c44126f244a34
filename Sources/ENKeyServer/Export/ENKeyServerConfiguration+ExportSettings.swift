public import ENCore
import ENExportFormat
package import Foundation

extension ENKeyServerConfiguration {
    /// Refuses export settings an exporter cannot follow.
    ///
    /// - Throws: `ENError.Code.badParameter` naming the setting (`context.field`): an ``exportPeriod`` that is not
    ///   a whole number of seconds from 1 s to 24 h dividing 24 h (Google's rule), a negative or infinite
    ///   ``minimumWindowAge``, a ``exportLeaseDuration`` that is not positive, more than ten ``signers``,
    ///   an ``exportRoot`` that is not a relative path without `.` or `..` components, a ``region`` or a region of
    ///   the ``selection`` that cannot name a region (`ENKeyServerKeyOrigin.validate(region:)`), an ``exportName``
    ///   of other characters than letters, digits, `.`, `_` and `-`, or longer than 64.
    public func validateExportSettings() throws(ENError) {
        do {
            try ENKeyServerKeyOrigin.validate(region: region)
        } catch {
            throw .badParameter(error.reason, context: .init(field: "region"))
        }
        try selection.validate()
        guard exportName.utf8.count <= 64,
            exportName.utf8.allSatisfy({
                $0.isASCIIAlphanumeric || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
            })
        else {
            throw .badParameter(
                "an export name has at most 64 letters, digits, '.', '_' or '-', got \(exportName)",
                context: .init(field: "exportName"))
        }
        if let period = exportPeriod {
            guard period.isFinite, period >= 1, period <= 86_400, period.rounded() == period,
                86_400 % Int(period) == 0
            else {
                throw .badParameter(
                    "the export period must be whole seconds dividing 24 hours, got \(period)",
                    context: .init(field: "exportPeriod"))
            }
        }
        guard minimumWindowAge.isFinite, minimumWindowAge >= 0 else {
            throw .badParameter(
                "the minimum window age must be 0 or more seconds, got \(minimumWindowAge)",
                context: .init(field: "minimumWindowAge"))
        }
        guard exportLeaseDuration.isFinite, exportLeaseDuration > 0 else {
            throw .badParameter(
                "the export lease must last more than 0 seconds, got \(exportLeaseDuration)",
                context: .init(field: "exportLeaseDuration"))
        }
        // Google's admin console refuses an export configuration with more than ten signature infos
        // (internal/admin/handle_exports.go).
        guard signers.count <= ENExportWriter.maximumSignerCount else {
            throw .badParameter(
                "an export has at most \(ENExportWriter.maximumSignerCount) signing keys, got \(signers.count)",
                context: .init(field: "signers"))
        }
        if !exportRoot.isEmpty {
            let components = exportRoot.split(separator: "/", omittingEmptySubsequences: false)
            guard !exportRoot.hasPrefix("/"), !components.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }),
                !exportRoot.contains("\0")
            else {
                throw .badParameter(
                    "the export root must be a relative path without empty, . or .. components, got \(exportRoot)",
                    context: .init(field: "exportRoot"))
            }
        }
    }

    /// The windows of the batches due at `date` after the latest batch end `latestEnd` (UTC seconds; `nil`
    /// before the first batch), as Google's batcher cuts them (`batcher.go` `makeBatchRanges`): aligned to the
    /// ``exportPeriod`` in UTC, ending no later than `date - minimumWindowAge` truncated to the hour; the first
    /// run makes only the last complete batch, later runs every batch ending after `latestEnd` (the first of
    /// them starting before `latestEnd` when the period changed). Oldest first; empty without a period.
    package func dueBatchWindows(after latestEnd: UInt64?, at date: Date) -> [Range<UInt64>] {
        guard let exportPeriod else { return [] }
        let period = Int64(exportPeriod)
        let effective = Int64((date.timeIntervalSince1970 - minimumWindowAge).rounded(.down))
        func truncate(_ value: Int64, _ step: Int64) -> Int64 { value - ((value % step) + step) % step }
        let publishEnd = truncate(effective, 3600)
        guard let latestEnd else {
            let end = truncate(publishEnd, period)
            return end - period >= 0 ? [UInt64(end - period)..<UInt64(end)] : []
        }
        var windows: [Range<UInt64>] = []
        var end = truncate(effective, period)
        while end > Int64(latestEnd), end - period >= 0 {
            if end <= publishEnd { windows.append(UInt64(end - period)..<UInt64(end)) }
            end -= period
        }
        return windows.reversed()
    }
}

extension UInt8 {
    /// Whether the byte is an ASCII letter or digit.
    fileprivate var isASCIIAlphanumeric: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
    }
}
