internal import ENCore
internal import Foundation

/// Google's `InsertAndReviseExposures` and `Revise` (`internal/publish/database/exposure.go`,
/// `internal/publish/model/exposure_model.go`): which keys of a publish are new, which revise stored keys, what
/// the revision token must allow, and the one write that stores them.
enum PublishRevision {
    /// What a publish stored.
    struct Outcome {
        /// How many keys were inserted.
        var inserted = 0
        /// How many stored keys were revised.
        var revised = 0
        /// The keys inserted or revised now (negative keys included, though not stored), for the new token.
        var tokenKeys: [RevisionToken.Key] = []
    }

    /// Why the keys of a publish were refused (nothing is stored).
    enum Failure: Error {
        case noRevisionToken
        case existingKeyNotInToken
        case tokenMetadataMismatch
        case incomingMetadataMismatch
        case keyAlreadyRevised
        case invalidTransition(from: String, to: String)
        case storage(ENError)
    }

    /// Applies the revision rules to `exposures` against the stored keys and writes the result atomically.
    static func apply(
        _ exposures: [PublishExposure], token: [RevisionToken.Key]?, requiresToken: Bool,
        allowsPartialRevisions: Bool, storage: any ENKeyServerStorage
    ) async throws(Failure) -> Outcome {
        // One entry per key data (a key sent twice is stored once, its last copy counting), in request order.
        var order: [Data] = []
        var incoming: [Data: PublishExposure] = [:]
        for exposure in exposures {
            if incoming.updateValue(exposure, forKey: exposure.key.keyData) == nil {
                order.append(exposure.key.keyData)
            }
        }
        // The usual publish, every key new: no rule below applies, every key is inserted (negative reports of
        // keys never published excepted) and goes into the new token, in one write. Had any key been stored,
        // nothing is written and the rules run on the stored keys found. A request with a revision token sends
        // keys it published before: they are looked up first, without a write that would fail.
        let stored: [ENStoredDiagnosisKey]
        do {
            if token != nil {
                stored = try await storage.storedKeys(withKeyData: order)
            } else {
                let insertions = order.compactMap { data -> ENKeyServerInsertion? in
                    guard let sent = incoming[data], sent.key.diagnosisReportType != .revoked else { return nil }
                    return ENKeyServerInsertion(key: sent.key, exportableAt: sent.exportableAt, origin: sent.origin)
                }
                switch try await storage.insert(insertions, unlessAnyStored: order) {
                case .inserted(let inserted):
                    var outcome = Outcome()
                    outcome.inserted = inserted.count
                    outcome.tokenKeys = order.compactMap { incoming[$0].map { tokenKey($0.key) } }
                    return outcome
                case .alreadyStored(let found):
                    stored = found
                }
            }
        } catch {
            throw .storage(error)
        }
        let existing = Dictionary(stored.map { ($0.key.keyData, $0) }, uniquingKeysWith: { first, _ in first })

        if !existing.isEmpty {
            if token == nil && requiresToken { throw .noRevisionToken }
            var allowed: [Data: RevisionToken.Key] = [:]
            for key in token ?? [] { allowed[key.keyData] = key }
            for data in order {
                guard let stored = existing[data], let sent = incoming[data] else { continue }
                if requiresToken
                    && (stored.key.rollingStartNumber != sent.key.rollingStartNumber
                        || stored.key.rollingPeriod != sent.key.rollingPeriod)
                {
                    throw .incomingMetadataMismatch
                }
                if let listed = allowed[data] {
                    if requiresToken
                        && (Int64(stored.key.rollingStartNumber) != Int64(listed.intervalNumber)
                            || Int64(stored.key.rollingPeriod) != Int64(listed.intervalCount))
                    {
                        throw .tokenMetadataMismatch
                    }
                } else if requiresToken {
                    guard allowsPartialRevisions else { throw .existingKeyNotInToken }
                    incoming[data] = nil
                }
            }
        }

        var outcome = Outcome()
        var insertions: [ENKeyServerInsertion] = []
        var revisions: [ENKeyServerRevision] = []
        for data in order {
            guard let sent = incoming[data] else { continue }
            guard let stored = existing[data] else {
                outcome.tokenKeys.append(tokenKey(sent.key))
                // A negative report of a key never published says nothing: it is not stored.
                if sent.key.diagnosisReportType != .revoked {
                    insertions.append(
                        ENKeyServerInsertion(key: sent.key, exportableAt: sent.exportableAt, origin: sent.origin))
                }
                continue
            }
            let newType = sent.key.diagnosisReportType
            if stored.key.diagnosisReportType == newType { continue }
            if let revision = stored.revision {
                if revision.reportType == newType { continue }
                throw .keyAlreadyRevised
            }
            guard isAllowedTransition(from: stored.key.diagnosisReportType, to: newType) else {
                throw .invalidTransition(
                    from: googleName(stored.key.diagnosisReportType), to: googleName(newType))
            }
            var origin = stored.origin
            origin.add(sent.origin.regions)
            revisions.append(
                ENKeyServerRevision(
                    keyData: data, reportType: newType, daysSinceOnsetOfSymptoms: sent.key.daysSinceOnsetOfSymptoms,
                    revisedAt: sent.exportableAt, regions: origin.regions))
            outcome.tokenKeys.append(tokenKey(stored.key))
        }
        guard !insertions.isEmpty || !revisions.isEmpty else { return outcome }
        do {
            outcome.inserted = try await storage.insertAndRevise(inserting: insertions, revising: revisions).count
            outcome.revised = revisions.count
        } catch {
            throw .storage(error)
        }
        return outcome
    }

    /// Google's `ValidReportTypeTransition`, a stored key without a report type counting as `likely`: likely to
    /// confirmed or negative, user-report to confirmed, likely or negative.
    static func isAllowedTransition(from old: ENDiagnosisReportType, to new: ENDiagnosisReportType) -> Bool {
        switch old {
        case .confirmedClinicalDiagnosis, .unknown: new == .confirmedTest || new == .revoked
        case .selfReported: new == .confirmedTest || new == .confirmedClinicalDiagnosis || new == .revoked
        default: false
        }
    }

    /// Google's name of a report type (`pkg/api/v1/verification_types.go`); empty for none.
    static func googleName(_ type: ENDiagnosisReportType) -> String {
        switch type {
        case .confirmedTest: "confirmed"
        case .confirmedClinicalDiagnosis: "likely"
        case .selfReported: "user-report"
        case .revoked: "negative"
        case .unknown: ""
        case .recursive: "recursive"
        }
    }

    private static func tokenKey(_ key: ENTemporaryExposureKey) -> RevisionToken.Key {
        RevisionToken.Key(
            keyData: key.keyData, intervalNumber: Int32(clamping: key.rollingStartNumber),
            intervalCount: Int32(clamping: key.rollingPeriod))
    }
}
