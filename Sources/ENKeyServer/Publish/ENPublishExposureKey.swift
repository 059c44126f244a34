/// One key of a publish request, as the app sent it (Google's `ExposureKey`).
///
/// Nothing is checked when the request is read: a key that does not validate is dropped by the publish rules
/// (the request then succeeds with `ENPublishErrorCode.partialFailure`), as Google's server does.
public struct ENPublishExposureKey: Hashable, Sendable {
    /// The base64 of the 16 key bytes (standard or URL alphabet, padding optional), JSON `key`.
    public var key: String
    /// The key's first interval, JSON `rollingStartNumber`.
    public var rollingStartNumber: Int32
    /// The key's number of intervals, 1...144, JSON `rollingPeriod`. Required: absent is 0, an invalid key.
    public var rollingPeriod: Int32
    /// The transmission risk, 0...8, JSON `transmissionRisk`. Optional: absent is 0.
    public var transmissionRisk: Int

    /// Creates a key.
    public init(key: String = "", rollingStartNumber: Int32 = 0, rollingPeriod: Int32 = 0, transmissionRisk: Int = 0) {
        self.key = key
        self.rollingStartNumber = rollingStartNumber
        self.rollingPeriod = rollingPeriod
        self.transmissionRisk = transmissionRisk
    }
}
