// The seed sample's API-version check ("Detect Exposure Notifications API Version at Runtime" in the main article,
// "Perform API and iOS Version Checks" in supporting-exposure-notifications-in-ios-12-5.md), unchanged.
// On Linux `#available(iOS 13.7, *)` is true (the `*` covers every other platform), so this answers `.version2`.
// `NSClassFromString("ENManager")` answers nil on Linux (no Objective-C class registry; swift-corelibs-foundation
// only finds module-qualified Swift class names): the check also asks for the module-qualified name (a GAP edit).
import ExposureNotificationKit  // EDIT: import line
import Foundation

func ENManagerIsAvailable() -> Bool {
    // GAP (not an allowed edit): off Apple's platforms only the module-qualified class name is found.
    return NSClassFromString("ENManager") != nil || NSClassFromString("ExposureNotificationKit.ENManager") != nil
}

enum SupportedENAPIVersion {
    case version2
    case version1
    case unsupported
}

func getSupportedExposureNotificationsVersion() -> SupportedENAPIVersion {
    if #available(iOS 13.7, *) {
        return .version2
    } else if #available(iOS 13.5, *) {
        return .version1
    } else if ENManagerIsAvailable() {
        return .version2
    } else {
        return .unsupported
    }
}
