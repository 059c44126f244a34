import ENCore
import Foundation
import Testing

@Suite("ENIntervalNumber")
struct ENIntervalNumberTests {
    @Test("the official vector's generation time is interval 2642976, a day start")
    func officialVectorTime() {
        let interval = ENIntervalNumber(date: Date(timeIntervalSince1970: 1_585_785_600))
        #expect(interval == 2_642_976)
        #expect(interval.isRollingStart)
        #expect(interval.rollingStart == interval)
        #expect(interval.date == Date(timeIntervalSince1970: 1_585_785_600))
    }

    @Test("intervals floor: the last second of an interval stays in it", arguments: [0.0, 1, 599, 599.999])
    func flooring(offset: Double) {
        let start = 1_585_785_600.0
        #expect(ENIntervalNumber(date: Date(timeIntervalSince1970: start + offset)) == 2_642_976)
        #expect(ENIntervalNumber(date: Date(timeIntervalSince1970: start + 600 + offset)) == 2_642_977)
    }

    @Test("day boundaries: 23:59:59 belongs to the old day, 00:00:00 starts the new one")
    func dayBoundary() {
        let midnight = Date(timeIntervalSince1970: 1_585_785_600 + 86_400)
        let before = ENIntervalNumber(date: midnight.addingTimeInterval(-1))
        let after = ENIntervalNumber(date: midnight)
        #expect(before == 2_643_119)
        #expect(before.rollingStart == 2_642_976)
        #expect(!before.isRollingStart)
        #expect(after == 2_643_120)
        #expect(after.rollingStart == after)
        #expect(after.dayNumber == before.dayNumber + 1)
        #expect(after.dayNumber == UInt32(1_585_785_600 / 86_400 + 1))
    }

    @Test("an unaligned rolling start (key created mid-day) rolls back to its day's start")
    func unalignedRollingStart() {
        let midDay: ENIntervalNumber = 2_645_035  // the ENA sample's first key (rolling period 117)
        #expect(midDay.rollingStart == 2_644_992)
        #expect(midDay.rollingStart.intervals(to: midDay) == 43)
        let key = ENTemporaryExposureKey(
            keyData: Data(count: 16), rollingStartNumber: midDay, rollingPeriod: 117)
        #expect(key.rollingEndNumber == 2_645_152)
        #expect(!key.rollingEndNumber.isRollingStart)  // 43 + 117 = 160: it runs 16 intervals into the next day
        #expect(key.rollingEndNumber.rollingStart == 2_645_136)
        #expect(key.validityIntervals.contains(2_645_151))
        #expect(!key.validityIntervals.contains(2_645_152))
    }

    @Test("arithmetic clamps instead of trapping at the ends of the UInt32 range")
    func clamping() {
        #expect(ENIntervalNumber(0).adding(-5) == 0)
        #expect(ENIntervalNumber(UInt32.max).adding(5) == ENIntervalNumber(UInt32.max))
        #expect(ENIntervalNumber(date: Date(timeIntervalSince1970: -10_000)) == 0)
        #expect(ENIntervalNumber(date: Date(timeIntervalSince1970: 1e13)) == ENIntervalNumber(UInt32.max))
        #expect(ENIntervalNumber(100).distance(to: 88) == -12)
        #expect(ENIntervalNumber(100).advanced(by: 12) == 112)
    }

    @Test("codes as a bare number")
    func codable() throws {
        let data = try JSONEncoder().encode([ENIntervalNumber(2_642_976)])
        #expect(String(decoding: data, as: UTF8.self) == "[2642976]")
        #expect(try JSONDecoder().decode([ENIntervalNumber].self, from: data) == [2_642_976])
    }
}
