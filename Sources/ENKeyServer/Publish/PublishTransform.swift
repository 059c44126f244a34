internal import ENCore
internal import Foundation

/// A key of a publish request that passed the rules: what to store, and from when it may be exported.
struct PublishExposure {
    var key: ENTemporaryExposureKey
    var exportableAt: Date
    var origin: ENKeyServerKeyOrigin
}

/// Google's `TransformPublish` (`internal/publish/model/exposure_model.go`): the publish rules, applied to a
/// request at one moment with the certificate's claims.
struct PublishTransform {
    /// The keys to store, sorted by start interval then rolling period; empty when the request is refused.
    var exposures: [PublishExposure] = []
    /// Keys dropped for their days since onset (they do not fail the request).
    var warnings: [String] = []
    /// Why keys were dropped, or why the request is refused (when ``exposures`` is empty).
    var error: String?

    /// Applies the rules to `request` at `now`.
    ///
    /// - Parameters:
    ///   - claims: what the request's verified certificate says (report type, symptom onset); `nil` without one.
    ///   - origin: the regions and traveller flag every key is stored with.
    ///   - trustedKeys: for a trusted in-process caller, which has no certificate: the request's keys as the caller
    ///     gave them, one per request key. Each key's report type is its claim, and its days since onset, when
    ///     known, replace the ones computed from the symptom onset. Every other rule applies unchanged.
    init(
        _ request: ENPublishRequest, claims: ENVerifiedClaims?, trustedKeys: [ENTemporaryExposureKey]? = nil,
        origin: ENKeyServerKeyOrigin, at now: Date, configuration: ENPublishConfiguration
    ) {
        let keys = request.temporaryExposureKeys
        guard !keys.isEmpty else {
            error = "no exposure keys in publish request"
            return
        }
        guard keys.count <= configuration.maximumKeys else {
            error = "too many exposure keys in publish: \(keys.count), max of \(configuration.maximumKeys) is allowed"
            return
        }
        let seconds = now.timeIntervalSince1970
        let window = configuration.truncateWindow
        let defaultCreatedAt = Self.truncate(seconds, to: window)
        let minimumEnd = Self.interval(seconds - configuration.maximumKeyAge)
        let currentInterval = Self.interval(seconds)

        // Symptom onset: the request's, else the certificate's, if before now and within the report days; else
        // the default number of days ago.
        let earliestOnset = Self.interval(
            Self.truncate(seconds - Double(configuration.maximumSymptomOnsetReportDays) * 86_400, to: 86_400))
        var onset: Int64 = 0
        let requested = Int64(request.symptomOnsetInterval)
        if requested < currentInterval && requested >= earliestOnset {
            onset = requested
        } else if let claims, Int64(claims.symptomOnsetInterval) < currentInterval,
            Int64(claims.symptomOnsetInterval) >= earliestOnset
        {
            onset = Int64(claims.symptomOnsetInterval)
        }
        if onset == 0 || abs(Self.days(from: onset, to: currentInterval)) > configuration.maximumSymptomOnsetReportDays
        {
            onset = Self.interval(seconds - Double(configuration.defaultSymptomOnsetDaysAgo) * 86_400)
        }

        var failures: [String] = []
        for (index, sent) in keys.enumerated() {
            let keyData: Data
            switch GoBase64.decode(sent.key) {
            case .success(let data): keyData = data
            case .failure(let failure):
                failures.append("key \(index) cannot be imported: illegal base64 data at input byte \(failure.offset)")
                continue
            }
            let start = Int64(sent.rollingStartNumber)
            let period = Int64(sent.rollingPeriod)
            let reason: String?
            if keyData.count != ENTemporaryExposureKey.keyLength {
                reason = "invalid key length, \(keyData.count), must be \(ENTemporaryExposureKey.keyLength)"
            } else if !(1...144).contains(period) {
                reason = "invalid interval count, \(period), must be >= 1 && <= 144"
            } else if start + period < minimumEnd {
                reason =
                    "key expires before minimum window; \(start) + \(period) = \(start + period) which is too old, must be >= \(minimumEnd)"
            } else if start > currentInterval {
                reason = "interval number \(start) is in the future, must be <= \(currentInterval)"
            } else if !(0...8).contains(sent.transmissionRisk) {
                reason = "invalid transmission risk: \(sent.transmissionRisk), must be >= 0 && <= 8"
            } else {
                reason = nil
            }
            if let reason {
                failures.append("key \(index) cannot be imported: \(reason)")
                continue
            }
            // A key still valid now is exported only from the window after its end.
            var createdAt = defaultCreatedAt
            if start + period > currentInterval && !configuration.releasesStillValidKeys {
                createdAt = Self.truncate(Double(start + period) * 600 + window, to: window)
            }
            var transmissionRisk = sent.transmissionRisk
            var reportType = ENDiagnosisReportType.unknown
            let trusted = trustedKeys.map { $0[index] }
            if let claim = trusted.map({ ENVerifiedClaims(reportType: $0.diagnosisReportType) }) ?? claims {
                reportType = claim.reportType
                transmissionRisk = Self.backfilledTransmissionRisk(reportType, transmissionRisk)
            }
            var daysSinceOnset = Self.days(from: onset, to: start)
            if let trusted, trusted.hasKnownDaysSinceOnsetOfSymptoms {
                daysSinceOnset = trusted.daysSinceOnsetOfSymptoms
            }
            guard abs(daysSinceOnset) <= configuration.maximumSymptomOnsetDays else {
                warnings.append(
                    "key \(index) symptom onset is too large, \(abs(daysSinceOnset)) > \(configuration.maximumSymptomOnsetDays) - saving without this key"
                )
                continue
            }
            let key = ENTemporaryExposureKey(
                keyData: keyData, rollingStartNumber: ENIntervalNumber(start), rollingPeriod: ENIntervalNumber(period),
                transmissionRiskLevel: UInt8(transmissionRisk), diagnosisReportType: reportType,
                daysSinceOnsetOfSymptoms: daysSinceOnset)
            exposures.append(
                PublishExposure(key: key, exportableAt: Date(timeIntervalSince1970: createdAt), origin: origin))
        }
        if !failures.isEmpty { error = Self.multiError(failures) }
        guard !exposures.isEmpty else { return }

        // Overlapping keys must share their start interval, and at most so many may share one.
        exposures.sort {
            ($0.key.rollingStartNumber, $0.key.rollingPeriod) < ($1.key.rollingStartNumber, $1.key.rollingPeriod)
        }
        var perStart: [ENIntervalNumber: Int] = [:]
        var lastStart = Int64(exposures[0].key.rollingStartNumber)
        var nextStart = lastStart + Int64(exposures[0].key.rollingPeriod)
        for exposure in exposures {
            let start = Int64(exposure.key.rollingStartNumber)
            perStart[exposure.key.rollingStartNumber, default: 0] += 1
            if start == lastStart {
                nextStart = start + Int64(exposure.key.rollingPeriod)
                continue
            }
            if start < nextStart {
                error =
                    "exposure keys have non aligned overlapping intervals. \(start) overlaps with previous key that is good from \(lastStart) to \(nextStart)."
                exposures = []
                return
            }
            lastStart = start
            nextStart = start + Int64(exposure.key.rollingPeriod)
        }
        if let (start, count) = perStart.sorted(by: { $0.key < $1.key }).first(where: {
            $0.value > configuration.maximumKeysPerStartInterval
        }) {
            error =
                "too many overlapping keys for start interval: \(start) want: <= \(configuration.maximumKeysPerStartInterval), got: \(count)"
            exposures = []
        }
    }

    /// Google's back-fill of a transmission risk of 0 from the report type: confirmed 2, likely 4, negative 6.
    static func backfilledTransmissionRisk(_ reportType: ENDiagnosisReportType, _ sent: Int) -> Int {
        guard sent == 0 else { return sent }
        switch reportType {
        case .confirmedTest: return 2
        case .confirmedClinicalDiagnosis: return 4
        case .revoked: return 6
        default: return 0
        }
    }

    /// The interval containing `seconds` since 1970.
    static func interval(_ seconds: Double) -> Int64 { Int64((seconds / 600).rounded(.down)) }

    /// `seconds` rounded down to a multiple of `window`.
    static func truncate(_ seconds: Double, to window: Double) -> Double { (seconds / window).rounded(.down) * window }

    /// Google's `DaysBetweenIntervals`: the UTC day of `b` minus the UTC day of `a`.
    static func days(from a: Int64, to b: Int64) -> Int {
        Int(Self.floorDivide(b, 144) - Self.floorDivide(a, 144))
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }

    /// The text of Go's `multierror` for the per-key failures.
    static func multiError(_ failures: [String]) -> String {
        let header = failures.count == 1 ? "1 error occurred:" : "\(failures.count) errors occurred:"
        return header + failures.map { "\n\t* " + $0 }.joined() + "\n\n"
    }
}
