import ENCore
import ENSimulator
import ENTestSupport
import Foundation
import Synchronization
import Testing

@testable import ExposureNotificationKit

/// `ENExposureDetectionSession`'s call-order rules (Apple's `apiMisuse` cases) and invalidation. The session's
/// work queue is suspended where a step must stay pending.
@Suite("ENExposureDetectionSession: call order and invalidation")
struct SessionRulesTests {
    /// Runs a completion-handler call and returns the error code its handler got (on the handler queue).
    static func codeFromHandler(_ call: (@escaping ENErrorHandler) -> Void) async -> String {
        await withCheckedContinuation { continuation in
            call { error in
                continuation.resume(returning: SessionDevice.onHandlerQueue ? error.codeName : "off queue")
            }
        }
    }

    static func keys(_ count: Int) throws -> [ENTemporaryExposureKey] {
        try (0..<count).map { _ in try Encounter.key() }
    }

    @Test("activate: a second call, and a call after invalidate, are apiMisuse")
    func activateTwice() async throws {
        let device = try await SessionDevice()
        defer { device.cleanUp() }
        let session = try await device.activatedSession()
        await #expect(throws: ENError(.apiMisuse)) { try await session.activate() }
        #expect(await Self.codeFromHandler { session.activate(completionHandler: $0) } == "apiMisuse")
        session.invalidate()
        let fresh = device.session()
        fresh.invalidate()
        await #expect(throws: ENError(.apiMisuse)) { try await fresh.activate() }
        #expect(await Self.codeFromHandler { fresh.activate(completionHandler: $0) } == "apiMisuse")
    }

    @Test("while activation is pending, every other call is apiMisuse; then activation completes")
    func whileActivating() async throws {
        let device = try await SessionDevice()
        defer { device.cleanUp() }
        let session = device.session()
        session.workQueue.suspend()
        let log = HandlerLog()
        let activated = AsyncStream<Void>.makeStream()
        session.activate { error in
            log.append("activate \(error.codeName)")
            activated.continuation.finish()
        }
        await #expect(throws: ENError(.apiMisuse)) { try await session.activate() }
        await #expect(throws: ENError(.apiMisuse)) { try await session.addDiagnosisKeys([]) }
        await #expect(throws: ENError(.apiMisuse)) { _ = try await session.finishedDiagnosisKeys() }
        await #expect(throws: ENError(.apiMisuse)) { _ = try await session.getExposureInfo(withMaximumCount: 1) }
        #expect(await Self.codeFromHandler { session.addDiagnosisKeys([], completionHandler: $0) } == "apiMisuse")
        session.workQueue.resume()
        for await _ in activated.stream {}
        #expect(log.all == ["activate nil"])
        try await session.addDiagnosisKeys([])
        session.invalidate()
    }

    @Test("before activate: addDiagnosisKeys, finishedDiagnosisKeys and getExposureInfo are apiMisuse")
    func beforeActivate() async throws {
        let device = try await SessionDevice()
        defer { device.cleanUp() }
        let session = device.session()
        await #expect(throws: ENError(.apiMisuse)) { try await session.addDiagnosisKeys(try Self.keys(1)) }
        await #expect(throws: ENError(.apiMisuse)) { _ = try await session.finishedDiagnosisKeys() }
        await #expect(throws: ENError(.apiMisuse)) { _ = try await session.getExposureInfo(withMaximumCount: 10) }
        let codes = HandlerLog()
        await withCheckedContinuation { continuation in
            session.finishedDiagnosisKeys { summary, error in
                codes.append("finished \(summary == nil) \(error.codeName)")
                session.getExposureInfo(withMaximumCount: 10) { infos, done, error in
                    codes.append("info \(infos == nil) \(done) \(error.codeName) \(SessionDevice.onHandlerQueue)")
                    continuation.resume()
                }
            }
        }
        #expect(codes.all == ["finished true apiMisuse", "info true false apiMisuse true"])
        // Nothing was spoiled: the session still activates and works.
        try await session.activate()
        try await session.addDiagnosisKeys(try Self.keys(3))
        _ = try await session.finishedDiagnosisKeys()
        session.invalidate()
    }

    @Test("after finishedDiagnosisKeys (pending or done): adding and finishing again are apiMisuse")
    func afterFinished() async throws {
        let device = try await SessionDevice()
        defer { device.cleanUp() }
        let session = try await device.activatedSession()
        session.workQueue.suspend()
        let finished = AsyncStream<String>.makeStream()
        session.finishedDiagnosisKeys { summary, error in
            finished.continuation.yield("\(summary?.matchedKeyCount ?? 99) \(error.codeName)")
            finished.continuation.finish()
        }
        // Finishing is pending.
        await #expect(throws: ENError(.apiMisuse)) { try await session.addDiagnosisKeys(try Self.keys(1)) }
        await #expect(throws: ENError(.apiMisuse)) { _ = try await session.finishedDiagnosisKeys() }
        await #expect(throws: ENError(.apiMisuse)) { _ = try await session.getExposureInfo(withMaximumCount: 1) }
        #expect(await Self.codeFromHandler { session.addDiagnosisKeys([], completionHandler: $0) } == "apiMisuse")
        session.workQueue.resume()
        var results: [String] = []
        for await result in finished.stream { results.append(result) }
        #expect(results == ["0 nil"])
        // Finished.
        await #expect(throws: ENError(.apiMisuse)) { try await session.addDiagnosisKeys([]) }
        await #expect(throws: ENError(.apiMisuse)) { _ = try await session.finishedDiagnosisKeys() }
        await #expect(throws: ENError(.apiMisuse)) { try await session.activate() }
        let page = try await session.getExposureInfo(withMaximumCount: 1)
        #expect(page.exposureInfo.isEmpty && page.done)
        session.invalidate()
    }

    @Test("more keys than maximumKeyCount minus the keys still being matched are apiMisuse")
    func maximumKeyCount() async throws {
        let device = try await SessionDevice()
        defer { device.cleanUp() }
        let session = try await device.activatedSession()
        #expect(session.maximumKeyCount == 1000)
        await #expect(throws: ENError(.apiMisuse)) { try await session.addDiagnosisKeys(try Self.keys(1001)) }
        try await session.addDiagnosisKeys(try Self.keys(1000))

        session.workQueue.suspend()
        let log = HandlerLog()
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        let first = try Self.keys(600)
        session.addDiagnosisKeys(first) { error in
            log.append("600 \(error.codeName)")
            continuation.yield()
        }
        #expect(session.outstandingKeyCount == 600)
        let tooMany = try Self.keys(401)
        #expect(await Self.codeFromHandler { session.addDiagnosisKeys(tooMany, completionHandler: $0) } == "apiMisuse")
        await #expect(throws: ENError(.apiMisuse)) { try await session.addDiagnosisKeys(try Self.keys(401)) }
        session.addDiagnosisKeys(try Self.keys(400)) { error in
            log.append("400 \(error.codeName)")
            continuation.yield()
        }
        #expect(session.outstandingKeyCount == 1000)
        session.workQueue.resume()
        var delivered = 0
        for await _ in stream {
            delivered += 1
            if delivered == 2 { break }
        }
        #expect(Set(log.all) == ["600 nil", "400 nil"])
        // Matched: the room is back.
        #expect(session.outstandingKeyCount == 0)
        try await session.addDiagnosisKeys(try Self.keys(1000))
        session.invalidate()
    }

    @Test("getExposureInfo with a count below 1 is badParameter")
    func badMaximumCount() async throws {
        let device = try await SessionDevice()
        defer { device.cleanUp() }
        let session = try await device.activatedSession()
        _ = try await session.finishedDiagnosisKeys()
        for count in [0, -1, Int.min] {
            await #expect(throws: ENError(.badParameter)) {
                _ = try await session.getExposureInfo(withMaximumCount: count)
            }
        }
        let page = try await session.getExposureInfo(withMaximumCount: 1)
        #expect(page.done)
        session.invalidate()
    }

    @Test("an invalid configuration fails activate with badParameter; the session can then be activated")
    func invalidConfiguration() async throws {
        let device = try await SessionDevice()
        defer { device.cleanUp() }
        let session = device.session()
        session.configuration.attenuationLevelValues = [1, 2, 3]
        let error = await #expect(throws: ENError(.badParameter)) { try await session.activate() }
        #expect(error?.context.field == "attenuationLevelValues")
        session.configuration.attenuationLevelValues = [1, 2, 3, 4, 5, 6, 7, 8]
        session.configuration.transmissionRiskWeight = 101
        #expect(await Self.codeFromHandler { session.activate(completionHandler: $0) } == "badParameter")
        await #expect(throws: ENError(.apiMisuse)) { try await session.addDiagnosisKeys([]) }
        session.configuration.transmissionRiskWeight = 1
        try await session.activate()
        try await session.addDiagnosisKeys([])
        session.invalidate()
    }

    @Test("activate needs Exposure Notification authorized and enabled, as the manager's detection does")
    func needsAuthorizationAndEnabled() async throws {
        let device = try await SessionDevice(enabled: false)
        defer { device.cleanUp() }
        let session = device.session()
        await #expect(throws: ENError(.notAuthorized)) { try await session.activate() }
        device.fixture.consent.answers.withLock { $0.authorize = false }
        await #expect(throws: ENError(.notAuthorized)) { try await device.manager.setExposureNotificationEnabled(true) }
        await #expect(throws: ENError(.notAuthorized)) { try await session.activate() }

        let authorized = try await SessionDevice()
        defer { authorized.cleanUp() }
        try await authorized.manager.setExposureNotificationEnabled(false)
        let disabled = authorized.session()
        await #expect(throws: ENError(.notEnabled)) { try await disabled.activate() }
        #expect(await Self.codeFromHandler { disabled.activate(completionHandler: $0) } == "notEnabled")
        // Enabled again: the same session activates.
        try await authorized.manager.setExposureNotificationEnabled(true)
        try await disabled.activate()
        disabled.invalidate()
    }

    @Test("after invalidate every call is apiMisuse, also reported to completion handlers")
    func afterInvalidate() async throws {
        let device = try await SessionDevice()
        defer { device.cleanUp() }
        let session = try await device.activatedSession()
        let log = HandlerLog()
        session.invalidationHandler = { log.append("invalidated") }
        session.invalidate()
        session.invalidate()  // a second call does nothing
        await #expect(throws: ENError(.apiMisuse)) { try await session.addDiagnosisKeys([]) }
        await #expect(throws: ENError(.apiMisuse)) { _ = try await session.finishedDiagnosisKeys() }
        await #expect(throws: ENError(.apiMisuse)) { _ = try await session.getExposureInfo(withMaximumCount: 1) }
        await #expect(throws: ENError(.apiMisuse)) { try await session.activate() }
        #expect(await Self.codeFromHandler { session.addDiagnosisKeys([], completionHandler: $0) } == "apiMisuse")
        // The invalidation handler ran first, once.
        #expect(log.all == ["invalidated"])

        // Invalidated once finished: the results are gone.
        let finished = try await device.activatedSession()
        _ = try await finished.finishedDiagnosisKeys()
        finished.invalidate()
        await #expect(throws: ENError(.apiMisuse)) { _ = try await finished.getExposureInfo(withMaximumCount: 1) }
    }

    @Test("invalidate ends pending work with invalidated, then calls the invalidation handler once; nothing after")
    func invalidateEndsPendingWork() async throws {
        let device = try await SessionDevice()
        defer { device.cleanUp() }
        let scenario = try await SessionDetectionTests.Scenario(device: device)
        let session = try await device.activatedSession()
        let log = HandlerLog()
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        session.invalidationHandler = {
            log.append("invalidation handler")
            continuation.finish()
        }
        session.workQueue.suspend()
        session.addDiagnosisKeys([scenario.near]) { error in log.append("add \(error.codeName)") }
        let asyncAdd = Task { () -> String in
            do throws(ENError) {
                try await session.addDiagnosisKeys([scenario.far])
                return "nil"
            } catch {
                return "\(error.code)"
            }
        }
        // Wait until the async call is accepted (its keys count as outstanding).
        while session.outstandingKeyCount < 2 { await Task.yield() }
        session.finishedDiagnosisKeys { summary, error in log.append("finished \(summary == nil) \(error.codeName)") }
        session.invalidate()
        for await _ in stream {}
        #expect(await asyncAdd.value == "invalidated")
        #expect(log.all == ["add invalidated", "finished true invalidated", "invalidation handler"])
        // The held work runs now and finds the session invalidated: no handler is called again.
        session.workQueue.resume()
        session.workQueue.sync {}
        try await Task.sleep(for: .milliseconds(200))
        device.handlerQueue.sync {}
        #expect(log.all == ["add invalidated", "finished true invalidated", "invalidation handler"])
        #expect(session.outstandingKeyCount == 0)
    }

    @Test("invalidating during activation fails the activation with invalidated")
    func invalidateWhileActivating() async throws {
        let device = try await SessionDevice()
        defer { device.cleanUp() }
        let session = device.session()
        session.workQueue.suspend()
        let log = HandlerLog()
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        session.invalidationHandler = { continuation.finish() }
        session.activate { error in log.append("activate \(error.codeName)") }
        session.invalidate()
        for await _ in stream {}
        #expect(log.all == ["activate invalidated"])
        session.workQueue.resume()
        session.workQueue.sync {}
        await #expect(throws: ENError(.apiMisuse)) { try await session.addDiagnosisKeys([]) }
        #expect(log.all == ["activate invalidated"])
    }
}
