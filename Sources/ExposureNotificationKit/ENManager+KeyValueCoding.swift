import Foundation

extension ENManager {
    /// Sets a property by its name, as key-value coding does on Apple's `ENManager` (an `NSObject` there).
    ///
    /// Apps written for iOS 12.5 set ``activityHandler`` this way (the framework did not export the property on
    /// that SDK): `setValue(handler, forKey: "activityHandler")` with a `(UInt32) -> Void` closure that receives
    /// ``ENActivityFlags`` raw values, or with an ``ENActivityHandler``, or `nil` to remove it. This is the only key;
    /// any other key, or a value of another type, leaves the manager unchanged (Apple's raises
    /// `NSUnknownKeyException` there).
    public func setValue(_ value: Any?, forKey key: String) {
        guard key == "activityHandler" else { return }
        switch value {
        case nil:
            activityHandler = nil
        case let handler as ENActivityHandler:
            activityHandler = handler
        case let handler as (UInt32) -> Void:
            activityHandler = { flags in handler(flags.rawValue) }
        default:
            return
        }
    }
}
