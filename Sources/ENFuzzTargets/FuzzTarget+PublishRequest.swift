internal import ENCore
internal import ENKeyServer
internal import Foundation

extension FuzzTarget {
    /// A publish body as `ENPublishHandler` reads it, whole and as the first bytes of a longer body.
    static func fuzzPublishRequest(_ input: Data) throws(FuzzViolation) {
        let bytes = Array(input)
        try checkGoJSONRoundTrip(bytes, target: .publishRequest)
        let whole = ENPublishRequest.decode(bytes, truncated: false)
        let cut = ENPublishRequest.decode(bytes, truncated: true)
        switch (whole, cut) {
        case (.success(let request), .success(let again)):
            guard request == again else {
                throw FuzzViolation(.publishRequest, "a body decodes differently when the reader stopped at its limit")
            }
            try checkRoundTrip(request)
            let viaPublicAPI: ENPublishRequest
            do {
                viaPublicAPI = try ENPublishRequest(json: input)
            } catch {
                throw FuzzViolation(.publishRequest, "init(json:) refuses a body the handler reads: \(error)")
            }
            guard viaPublicAPI == request else {
                throw FuzzViolation(.publishRequest, "init(json:) and the handler's reading disagree")
            }
        case (.failure(let failure), .failure(let cutFailure)):
            guard failure.status == 400, [400, 413].contains(cutFailure.status) else {
                throw FuzzViolation(.publishRequest, "a refusal answers \(failure.status) / \(cutFailure.status)")
            }
            // Only an empty or unfinished value becomes "too large" when the body went on past the limit.
            guard cutFailure == failure || (cutFailure == .tooLarge && [.empty, .truncated].contains(failure)) else {
                throw FuzzViolation(
                    .publishRequest, "a refusal changes from \(failure) to \(cutFailure) past the body limit")
            }
        case (.success, .failure(let failure)), (.failure(let failure), .success):
            throw FuzzViolation(.publishRequest, "a body is accepted whole or past the limit but not both: \(failure)")
        }
    }

    /// An accepted request, written back as JSON by Foundation's encoder, decodes to itself.
    private static func checkRoundTrip(_ request: ENPublishRequest) throws(FuzzViolation) {
        let keys: [[String: Any]] = request.temporaryExposureKeys.map {
            [
                "key": $0.key, "rollingStartNumber": Int($0.rollingStartNumber),
                "rollingPeriod": Int($0.rollingPeriod), "transmissionRisk": $0.transmissionRisk,
            ]
        }
        let object: [String: Any] = [
            "temporaryExposureKeys": keys, "healthAuthorityID": request.healthAuthorityID,
            "verificationPayload": request.verificationPayload, "hmacKey": request.hmacKey,
            "symptomOnsetInterval": Int(request.symptomOnsetInterval), "traveler": request.traveler,
            "revisionToken": request.revisionToken, "padding": request.padding,
        ]
        let encoded: Data
        do {
            encoded = try JSONSerialization.data(withJSONObject: object)
        } catch {
            throw FuzzViolation(.publishRequest, "an accepted request does not encode as JSON: \(error)")
        }
        switch ENPublishRequest.decode(Array(encoded), truncated: false) {
        case .success(let again):
            guard again == request else {
                throw FuzzViolation(.publishRequest, "an accepted request changes in its round trip")
            }
        case .failure(let failure):
            throw FuzzViolation(.publishRequest, "an accepted request, re-encoded, is refused: \(failure)")
        }
    }

    /// The first JSON value `GoJSON` reads, written back as JSON, reads as the same value (a container too deep to
    /// keep is written back empty at the same depth, where it is again too deep to keep).
    static func checkGoJSONRoundTrip(_ bytes: [UInt8], target: FuzzTarget) throws(FuzzViolation) {
        guard case .value(let value, _) = GoJSON.firstValue(in: bytes) else { return }
        var text: [UInt8] = []
        write(value, to: &text)
        guard case .value(let again, let end) = GoJSON.firstValue(in: text), end == text.count else {
            throw FuzzViolation(target, "a JSON value, written back, does not read as one value")
        }
        guard again == value else {
            throw FuzzViolation(target, "a JSON value changes in its round trip")
        }
    }

    /// JSON text of a value: strings with every control character, quote and backslash escaped, numbers as read.
    private static func write(_ value: GoJSON.Value, to out: inout [UInt8]) {
        switch value {
        case .object(let entries):
            out.append(UInt8(ascii: "{"))
            for (index, entry) in entries.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                writeString(entry.key, to: &out)
                out.append(UInt8(ascii: ":"))
                write(entry.value, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                write(item, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .string(let text): writeString(text, to: &out)
        case .number(let literal): out += Array(literal.utf8)
        case .bool(let flag): out += Array((flag ? "true" : "false").utf8)
        case .null: out += Array("null".utf8)
        case .opaque(let kind): out += Array((kind == "object" ? "{}" : "[]").utf8)
        }
    }

    private static func writeString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), byte]
            case 0..<0x20: out += Array(String(format: "\\u%04x", Int(byte)).utf8)
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
