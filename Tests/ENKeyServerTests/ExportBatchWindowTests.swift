import ENKeyServer
import Foundation
import Testing

/// The batch windows every storage creates: one pure rule.
@Suite("Export batch windows")
struct ExportBatchWindowTests {
    private let configuration = ENKeyServerConfiguration(region: "310", signers: [])
    private let now = Date(timeIntervalSince1970: 1_778_307_200.25)

    @Test func withoutAPeriodOneBatchTakesEverythingWaitingUpToAMillisecondAfterNow() throws {
        let bound = try #require(configuration.waitingKeysBound(openBatchExists: false, at: now))
        #expect(bound == now.addingTimeInterval(0.001))
        #expect(configuration.waitingKeysBound(openBatchExists: true, at: now) == nil)
        let earliest = now.addingTimeInterval(-3_600.5)
        #expect(
            configuration.batchWindows(latestEnd: nil, earliestWaiting: earliest, at: now)
                == [ExportBatchWindow(window: 1_778_303_599..<1_778_307_200, keysFrom: nil, keysUntil: bound)])
        // Never before the latest end, at least a second long, even when the clock has not passed the latest end.
        #expect(
            configuration.batchWindows(latestEnd: 1_778_307_200, earliestWaiting: earliest, at: now).map(\.window)
                == [1_778_307_200..<1_778_307_201])
        #expect(configuration.batchWindows(latestEnd: nil, earliestWaiting: nil, at: now).isEmpty)
    }

    @Test func withAPeriodTheDueWindowsTakeTheKeysOfTheirWindow() {
        var periodic = configuration
        periodic.exportPeriod = 4 * 3600
        #expect(periodic.waitingKeysBound(openBatchExists: false, at: now) == nil)
        let windows = periodic.batchWindows(latestEnd: 1_778_284_800 - 4 * 3600, earliestWaiting: nil, at: now)
        #expect(windows.map(\.window) == periodic.dueBatchWindows(after: 1_778_284_800 - 4 * 3600, at: now))
        #expect(!windows.isEmpty)
        for window in windows {
            #expect(window.keysFrom == Date(timeIntervalSince1970: TimeInterval(window.window.lowerBound)))
            #expect(window.keysUntil == Date(timeIntervalSince1970: TimeInterval(window.window.upperBound)))
        }
    }

    @Test func unixSecondsRoundDownAndStopAt1970() {
        #expect(ExportBatchWindow.unixSeconds(now) == 1_778_307_200)
        #expect(ExportBatchWindow.unixSeconds(Date(timeIntervalSince1970: -5)) == 0)
    }
}
