public import Foundation

/// The publish API's rules and limits, with the defaults of Google's exposure-notifications-server
/// (`internal/publish/config.go`; the environment variable of each is named).
public struct ENPublishConfiguration: Sendable {
    /// The apps allowed to publish, by health authority ID (matched lower-cased).
    public var authorizedApps: [ENPublishAuthorizedApp]
    /// The keys that seal revision tokens.
    public var revisionTokenKeys: ENRevisionTokenKeys
    /// The most keys in one request, `MAX_KEYS_ON_PUBLISH`: 30.
    public var maximumKeys: Int
    /// The most keys with one start interval, `MAX_SAME_START_INTERVAL_KEYS`: 3.
    public var maximumKeysPerStartInterval: Int
    /// How long after its end a key is still accepted, `MAX_INTERVAL_AGE_ON_PUBLISH`: 360 h (15 days).
    public var maximumKeyAge: TimeInterval
    /// The granularity of the time from which keys may be exported, `TRUNCATE_WINDOW`: 1 h.
    public var truncateWindow: TimeInterval
    /// Whether still-valid keys are exported at once instead of after their end, `DEBUG_RELEASE_SAME_DAY_KEYS`:
    /// `false`. For tests of a whole system only.
    public var releasesStillValidKeys: Bool
    /// The largest |days since onset| a key may have, `MAX_SYMPTOM_ONSET_DAYS`: 14; keys beyond are dropped.
    public var maximumSymptomOnsetDays: Int
    /// How many days back a symptom onset may be, `MAX_VALID_SYMPTOM_ONSET_REPORT_DAYS`: 28.
    public var maximumSymptomOnsetReportDays: Int
    /// The symptom onset assumed when none is valid, in days before now, `DEFAULT_SYMPTOM_ONSET_DAYS_AGO`: 4.
    public var defaultSymptomOnsetDaysAgo: Int
    /// Whether stored keys missing from the revision token are skipped instead of failing the request,
    /// `ALLOW_PARTIAL_REVISIONS`: `false`.
    public var allowsPartialRevisions: Bool
    /// The smallest response padding in bytes before base64, `RESPONSE_PADDING_MIN_BYTES`: 1024.
    public var responsePaddingMinimumBytes: Int
    /// The range of the random response padding added to the minimum, `RESPONSE_PADDING_RANGE`: 1024.
    public var responsePaddingRange: Int
    /// The largest request body, 64,000 bytes (Google's `maxBodyBytes`, not configurable there).
    public var maximumBodyBytes: Int
    /// The region of the keys of an app without ``ENPublishAuthorizedApp/regions``, `DEFAULT_REGION`: none by
    /// default. A request whose app has neither is answered 500 `health_authority_missing_region_config`, as
    /// Google's server answers it: its keys could never be exported.
    public var defaultRegion: String?

    /// Creates a configuration with Google's defaults. Without apps and revision-token keys it serves only a
    /// trusted in-process caller (``ENDiagnosisKeyServer``), which needs neither.
    public init(
        authorizedApps: [ENPublishAuthorizedApp] = [],
        revisionTokenKeys: ENRevisionTokenKeys = ENRevisionTokenKeys(currentKeyID: 0, keys: [:]), maximumKeys: Int = 30,
        maximumKeysPerStartInterval: Int = 3, maximumKeyAge: TimeInterval = 360 * 3600,
        truncateWindow: TimeInterval = 3600, releasesStillValidKeys: Bool = false, maximumSymptomOnsetDays: Int = 14,
        maximumSymptomOnsetReportDays: Int = 28, defaultSymptomOnsetDaysAgo: Int = 4,
        allowsPartialRevisions: Bool = false, responsePaddingMinimumBytes: Int = 1024,
        responsePaddingRange: Int = 1024, maximumBodyBytes: Int = 64_000, defaultRegion: String? = nil
    ) {
        self.defaultRegion = defaultRegion
        self.authorizedApps = authorizedApps
        self.revisionTokenKeys = revisionTokenKeys
        self.maximumKeys = maximumKeys
        self.maximumKeysPerStartInterval = maximumKeysPerStartInterval
        self.maximumKeyAge = maximumKeyAge
        self.truncateWindow = truncateWindow
        self.releasesStillValidKeys = releasesStillValidKeys
        self.maximumSymptomOnsetDays = maximumSymptomOnsetDays
        self.maximumSymptomOnsetReportDays = maximumSymptomOnsetReportDays
        self.defaultSymptomOnsetDaysAgo = defaultSymptomOnsetDaysAgo
        self.allowsPartialRevisions = allowsPartialRevisions
        self.responsePaddingMinimumBytes = responsePaddingMinimumBytes
        self.responsePaddingRange = responsePaddingRange
        self.maximumBodyBytes = maximumBodyBytes
    }
}
