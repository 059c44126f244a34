import ENCore
import ExposureNotificationKit
import ExposureNotificationKitTesting
import Foundation
import Testing

@Suite("Key-value observing of the status: Apple's observe(_:options:changeHandler:) on any platform")
struct StatusObservationTests {
    /// Observes `keyPath` of `manager`, handing each change to the returned stream.
    func changes<Manager: ExposureManaging, Value: Equatable & Sendable>(
        of manager: Manager, _ keyPath: KeyPath<Manager, Value>, options: ENKeyValueObservingOptions
    ) -> (NSKeyValueObservation, AsyncStream<ENKeyValueObservedChange<Value>>) {
        let (stream, continuation) = AsyncStream.makeStream(of: ENKeyValueObservedChange<Value>.self)
        let observation = manager.observe(keyPath, options: options) { _, change in continuation.yield(change) }
        return (observation, stream)
    }

    // The limits turn an observation that never comes into a failure; they are generous because under a sanitizer,
    // with the whole suite sharing two cores, a test can wait over a minute for a thread.
    @Test("the status observer fires when the status changes, with the new and old values", .timeLimit(.minutes(10)))
    func statusChanges() async throws {
        let fixture = Fixture()
        let manager = fixture.manager()
        let (observation, stream) = changes(of: manager, \.exposureNotificationStatus, options: [.new, .old])
        var changes = stream.makeAsyncIterator()
        try await manager.activate()
        let activated = await changes.next()
        #expect(activated?.newValue == .disabled)
        #expect(activated?.oldValue == .unknown)
        try await manager.setExposureNotificationEnabled(true)
        let enabled = await changes.next()
        #expect(enabled?.newValue == .active)
        #expect(enabled?.oldValue == .disabled)
        #expect(enabled?.kind == .setting)
        observation.invalidate()
        manager.invalidate()
    }

    @Test("options: .initial calls the handler before observe returns; without .new there is no new value")
    func initialAndOptions() {
        let manager = Fixture().manager()
        let calls = Locked<[ENKeyValueObservedChange<Bool>]>([])
        let observation = manager.observe(\.exposureNotificationEnabled, options: .initial) { _, change in
            calls.withLock { $0.append(change) }
        }
        #expect(calls.withLock { $0.count } == 1)
        #expect(calls.withLock { $0.first?.newValue } == nil)
        observation.invalidate()
    }

    @Test("the enabled flag and the test double are observable too", .timeLimit(.minutes(10)))
    func enabledAndDouble() async throws {
        let double = ScriptedExposureManager()
        let (observation, stream) = changes(of: double, \.exposureNotificationEnabled, options: .new)
        var changes = stream.makeAsyncIterator()
        try await double.activate()
        try await double.setExposureNotificationEnabled(true)
        #expect(await changes.next()?.newValue == true)
        try await double.setExposureNotificationEnabled(false)
        #expect(await changes.next()?.newValue == false)
        observation.invalidate()
    }
}
