/// The `code` of a publish response, with Google's strings (`pkg/api/v1/exposure_types.go`).
public enum ENPublishErrorCode: String, Hashable, Sendable, CaseIterable {
    /// The request's health authority ID is not an authorized app (401).
    case unknownHealthAuthorityID = "unknown_health_authority_id"
    /// The authorized apps could not be loaded (500).
    case unableToLoadHealthAuthority = "unable_to_load_health_authority"
    /// The app has no region (500).
    case healthAuthorityMissingRegionConfiguration = "health_authority_missing_region_config"
    /// The verification certificate does not verify (401).
    case verificationCertificateInvalid = "health_authority_verification_certificate_invalid"
    /// The request is not a valid publish request (400, 413 or 415).
    case badRequest = "bad_request"
    /// The server failed, or the keys' intervals differ from the stored ones (400 or 500).
    case internalError = "internal_error"
    /// Stored keys were sent again without a revision token (400).
    case missingRevisionToken = "missing_revision_token"
    /// The revision token does not open or does not list the stored keys sent again (400).
    case invalidRevisionToken = "invalid_revision_token"
    /// A stored key was already revised (400).
    case keyAlreadyRevised = "key_already_revised"
    /// A stored key cannot change from its report type to the certificate's (400).
    case invalidReportTypeTransition = "invalid_report_type_transition"
    /// Some keys were dropped, the others were published (200).
    case partialFailure = "partial_failure"
}
