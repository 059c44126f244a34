/// The version of the Exposure Notification API an app declares (Apple reads `ENAPIVersion` from the app's
/// Info.plist): it decides the risk scoring and the release of the current key.
public enum ENAPIVersion: Int, Hashable, Sendable, CaseIterable, Codable {
    /// Version 1: `ENExposureInfo` scoring, 15 detections a day, the current key is released a day later.
    case version1 = 1
    /// Version 2: exposure windows and day summaries, 6 detections a day, the current key is released at once
    /// with a shortened rolling period.
    case version2 = 2
}
