import ENCore
import Foundation
import Testing

@Suite("ENError")
struct ENErrorTests {
    @Test("Apple's 17 codes with Apple's raw values and names")
    func codes() {
        #expect(ENError.Code.allAppleCodes.map(\.rawValue) == Array(1...17))
        #expect(ENError.Code.badParameter.rawValue == 2)
        #expect(ENError.Code.invalidated.rawValue == 6)
        #expect(ENError.Code.rateLimited.rawValue == 13)
        #expect(ENError.Code.badFormat.rawValue == 15)
        #expect(ENError.Code.travelStatusNotAvailable.rawValue == 17)
        #expect(ENError.Code.badFormat.description == "badFormat")
        #expect(ENError.Code(rawValue: 99).description == "code(99)")
        #expect(Set(ENError.Code.allAppleCodes.map(\.description)).count == 17)
    }

    @Test("catch clauses match on the code")
    func patternMatch() {
        func fail() throws { throw ENError.badFormat("header") }
        var matched = false
        do { try fail() } catch ENError.Code.badParameter { Issue.record("wrong code matched") } catch ENError.Code.badFormat {
            matched = true
        } catch { Issue.record("unexpected \(error)") }
        #expect(matched)
    }

    @Test("bridges to NSError with Apple's domain and the reason")
    func nsError() {
        let error = ENError(.rateLimited, "15 calls in 24 hours") as NSError
        #expect(error.domain == "ENErrorDomain")
        #expect(error.code == 13)
        #expect(error.localizedDescription.contains("15 calls in 24 hours"))
        #expect(ENError(.badFormat, "x").description == "ENError.badFormat: x")
    }
}
