import ENCore
import ENStore
import ENTestSupport
import Foundation
import GRDB
import Testing

@Suite("Manager state")
struct ManagerStateTests {
    @Test func theManagerStatePersistsAcrossReopening() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("store.sqlite")
        let clock = TestClock(referenceDate)
        let store = try ENDeviceStore(path: path, configuration: clock.configuration())
        #expect(try store.read(.managerState) == ENManagerState())
        let authorization = ENPreAuthorization(authorizedAt: referenceDate)
        try store.write(.setExposureNotificationEnabled(true))
        try store.write(.setAuthorizationStatus(.authorized))
        try store.write(.setPreAuthorization(authorization))
        try store.close()

        let reopened = try ENDeviceStore(path: path, configuration: clock.configuration())
        let state = try reopened.read(.managerState)
        #expect(
            state
                == ENManagerState(
                    exposureNotificationEnabled: true, authorizationStatus: .authorized,
                    preAuthorization: authorization))
        #expect(state.preAuthorization?.isReleased == false)

        let released = ENPreAuthorization(
            authorizedAt: referenceDate, releasedAt: referenceDate.addingTimeInterval(3_600))
        try reopened.write(.setPreAuthorization(released))
        #expect(try reopened.read(.managerState).preAuthorization == released)
        #expect(try reopened.read(.managerState).preAuthorization?.isReleased == true)
        try reopened.write(.setPreAuthorization(nil))
        try reopened.write(.setExposureNotificationEnabled(false))
        #expect(try reopened.read(.managerState) == ENManagerState(authorizationStatus: .authorized))
    }

    /// Apple's `ENAuthorizationStatus` raw values, from the ExposureNotification headers: unknown 0,
    /// restricted 1, notAuthorized 2, authorized 3. The store keeps exactly those numbers in the file.
    @Test func authorizationStatusesAreStoredWithApplesRawValues() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("store.sqlite")
        let store = try ENDeviceStore(path: path)
        let apple: [(ENAuthorizationStatus, Int)] = [
            (.unknown, 0), (.restricted, 1), (.notAuthorized, 2), (.authorized, 3),
        ]
        #expect(ENAuthorizationStatus.allCases.count == apple.count)
        for (status, raw) in apple {
            try store.write(.setAuthorizationStatus(status))
            let stored: Int = try rows(path, "SELECT authorization_status FROM manager_state")[0][0]
            #expect(stored == raw)
            #expect(try store.read(.managerState).authorizationStatus == status)
        }
    }

    @Test func aReleaseBeforeTheAuthorizationIsRefusedAndWritesNothing() throws {
        let store = try ENDeviceStore(inMemoryWith: TestClock(referenceDate).configuration())
        let good = ENPreAuthorization(authorizedAt: referenceDate)
        try store.write(.setPreAuthorization(good))
        expectCode(.badParameter) {
            try store.write(
                .setPreAuthorization(
                    ENPreAuthorization(authorizedAt: referenceDate, releasedAt: referenceDate.addingTimeInterval(-1))))
        }
        #expect(try store.read(.managerState).preAuthorization == good)
    }

    @Test func anUnknownStoredAuthorizationStatusIsABadFormat() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.path("store.sqlite")
        try ENDeviceStore(path: path).close()
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in try db.execute(sql: "UPDATE manager_state SET authorization_status = 7") }
        try queue.close()
        let store = try ENDeviceStore(path: path)
        expectCode(.badFormat) { _ = try store.read(.managerState) }
    }
}
