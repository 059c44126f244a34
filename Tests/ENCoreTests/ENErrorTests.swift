import ENCore
import Foundation
import Testing

@Suite("ENError")
struct ENErrorTests {
    @Test("Apple's 17 codes with Apple's raw values and names")
    func codes() {
        #expect(ENError.Code.allCases.map(\.rawValue) == Array(1...17))
        #expect(ENError.Code.badParameter.rawValue == 2)
        #expect(ENError.Code.invalidated.rawValue == 6)
        #expect(ENError.Code.rateLimited.rawValue == 13)
        #expect(ENError.Code.badFormat.rawValue == 15)
        #expect(ENError.Code.travelStatusNotAvailable.rawValue == 17)
        #expect("\(ENError.Code.badFormat)" == "badFormat")
        #expect("\(ENError.Code.internal)" == "internal")
        #expect(ENError.Code(rawValue: 99) == nil)
        #expect(Set(ENError.Code.allCases.map { "\($0)" }).count == 17)
        // Apple's shortcuts on the error type.
        #expect(ENError.rateLimited == ENError.Code.rateLimited)
        #expect(ENError(.notAuthorized).errorCode == 4)
    }

    @Test("catch clauses match on the code, with Apple's shortcuts")
    func patternMatch() {
        func fail() throws { throw ENError.badFormat("header") }
        var matched = false
        do { try fail() } catch ENError.badParameter { Issue.record("wrong code matched") } catch ENError.badFormat {
            matched = true
        } catch { Issue.record("unexpected \(error)") }
        #expect(matched)
    }

    @Test("equality and hashing consider the code only")
    func equality() {
        let a = ENError(.badFormat, "one", context: .init(file: "a.zip"))
        let b = ENError(.badFormat, "two", context: .init(section: "keys", index: 3))
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a != ENError(.badParameter, "one"))
        #expect(Set([a, b, ENError(.badParameter)]).count == 2)
        #expect(throws: ENError(.badFormat)) { throw b }
    }

    @Test("context is a value, added by outer layers without touching the text")
    func context() {
        let inner = ENError.badFormat("must be 1...144, got 0", context: .init(section: "keys", index: 3))
        let outer = inner.adding(.init(file: "keys.zip", section: "export.bin", field: "rolling_period"))
        #expect(outer.context == .init(file: "keys.zip", section: "keys", index: 3, field: "rolling_period"))
        #expect(outer.reason == inner.reason)
        #expect(outer.code == .badFormat)
        #expect(outer.description == "ENError.badFormat: keys.zip: keys[3].rolling_period: must be 1...144, got 0")
        #expect(ENError(.invalidated).description == "ENError.invalidated")
        #expect(ENError.Context().isEmpty)
        #expect(ENError.Context(field: "x").description == "x")
    }

    @Test("bridges to NSError with Apple's domain and the reason; Apple's initialiser reads userInfo")
    func nsError() {
        let error = ENError(.rateLimited, "15 calls in 24 hours") as NSError
        #expect(error.domain == "ENErrorDomain")
        #expect(error.code == 13)
        #expect(error.localizedDescription.contains("15 calls in 24 hours"))
        #expect(ENError(.badFormat, "x").description == "ENError.badFormat: x")
        let apple = ENError(.unsupported, userInfo: [NSLocalizedDescriptionKey: "not here"])
        #expect(apple.reason == "not here")
        #expect(apple.code == .unsupported)
    }
}
