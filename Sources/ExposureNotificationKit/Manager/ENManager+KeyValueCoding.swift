import Foundation

extension ENManager {
    /// Sets ``activityHandler`` by its key, as key-value coding does on Apple's `ENManager` (an `NSObject` there):
    /// the iOS 12.5 helper of Apple's article (`setLaunchActivityHandler`) passes a `@convention(block)` closure
    /// that receives ``ENActivityFlags`` raw values, or `nil` to remove the handler.
    ///
    /// ```swift
    /// let proxyActivityHandler: @convention(block) (UInt32) -> Void = { integerFlag in
    ///     activityHandler(ENActivityFlags(rawValue: integerFlag))
    /// }
    /// setValue(proxyActivityHandler, forKey: "activityHandler")
    /// ```
    ///
    /// The value is a block, not `Any?` as on Apple's `NSObject`: off Apple platforms the Swift runtime crashes
    /// when a `@convention(block)` closure is put in an `Any` (see `Documentation/FromApplesSampleApp.md`), and with
    /// an `Any?` overload present the compiler picks it for the block, so the helper's call would crash before this
    /// method runs. `activityHandler` is the only key; any other key leaves the manager unchanged (Apple's raises
    /// `NSUnknownKeyException` there).
    public func setValue(_ value: (@convention(block) (UInt32) -> Void)?, forKey key: String) {
        guard key == "activityHandler" else { return }
        guard let value else {
            activityHandler = nil
            return
        }
        activityHandler = { flags in value(flags.rawValue) }
    }

    /// Sets ``activityHandler`` by its key from an ``ENActivityHandler`` (or `nil`), as the block form does.
    @_disfavoredOverload
    public func setValue(_ value: ENActivityHandler?, forKey key: String) {
        guard key == "activityHandler" else { return }
        activityHandler = value
    }
}
