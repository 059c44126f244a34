import ExposureNotificationKit
import Foundation
import Testing

/// `ENManager.setValue(_:forKey:)`: the iOS 12.5 article sets `activityHandler` by key-value coding.
@Suite struct ManagerKeyValueCodingTests {
    @Test func setsTheActivityHandlerFromRawFlags() {
        let manager = ENManager(environment: ENEnvironment())
        let received = Locked<[UInt32]>([])
        let handler: (UInt32) -> Void = { flags in received.withLock { $0.append(flags) } }
        manager.setValue(handler, forKey: "activityHandler")
        manager.activityHandler?(.periodicRun)
        #expect(received.withLock { $0 } == [ENActivityFlags.periodicRun.rawValue])
        manager.setValue(nil, forKey: "activityHandler")
        #expect(manager.activityHandler == nil)
    }

    @Test func leavesTheManagerUnchangedForOtherKeysAndValues() {
        let manager = ENManager(environment: ENEnvironment())
        manager.setValue({ (_: UInt32) in }, forKey: "invalidationHandler")
        #expect(manager.activityHandler == nil)
        manager.setValue("not a handler", forKey: "activityHandler")
        #expect(manager.activityHandler == nil)
    }
}
