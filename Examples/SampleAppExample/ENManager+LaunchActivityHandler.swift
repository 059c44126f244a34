// The iOS 12.5 article's helpers ("Set Background Task Interval and Request Runtime" in
// supporting-exposure-notifications-in-ios-12-5.md): the app's own `ENActivityFlags`, `ENActivityHandler` and
// `setLaunchActivityHandler`, which set Apple's `activityHandler` property through key-value coding. They are
// the app's declarations: they shadow the framework's names of the same spelling inside the app module.
//
// The seed article's text of this block is damaged: everything between `rawValue: 1 << 2)` and `-> Void` was
// lost as if it were an HTML tag. The lines between the two markers below restore the obvious text (the flag's
// bit, the closing brace, the handler type alias); nothing else was changed.
import ExposureNotificationKit  // EDIT: import line
import Foundation

struct ENActivityFlags: OptionSet {
    let rawValue: UInt32

    /// The app launched to perform periodic operations.
    // BEGIN restored damaged seed text
    static let periodicRun = ENActivityFlags(rawValue: 1 << 2)
}

typealias ENActivityHandler = (ENActivityFlags) -> Void
// END restored damaged seed text

extension ENManager {
    func setLaunchActivityHandler(activityHandler: @escaping ENActivityHandler) {
        let proxyActivityHandler: @convention(block) (UInt32) -> Void = { integerFlag in
            activityHandler(ENActivityFlags(rawValue: integerFlag))
        }
        setValue(proxyActivityHandler, forKey: "activityHandler")
    }
}
