internal import ENCore
internal import ENCrypto
internal import ENKeyServer
internal import Foundation

extension FuzzTarget {
    /// The revision-token keys tokens are opened with: ID 1 (current) is the bytes 0...31, ID 2 the bytes 32...63,
    /// no additional data (Google's default). Fuzzing fixtures, nothing else; `Scripts/make-fuzz-seeds.py` seals the
    /// seed tokens with the same keys.
    static let revisionTokenKeys: ENRevisionTokenKeys? = {
        guard let one = try? AESGCM.Key(data: Data(0..<32)), let two = try? AESGCM.Key(data: Data(32..<64)) else {
            return nil
        }
        return ENRevisionTokenKeys(currentKeyID: 1, keys: [1: one, 2: two])
    }()

    /// A revision token read as the publish handler reads the request's `revisionToken`: the input as that text
    /// (base64, then the protobuf envelope, then AES-GCM), as the envelope's bytes, and as the plaintext of an
    /// envelope sealed with key 1 (what only the server can make, so that the key list's decoding is fuzzed too).
    /// Every refusal is an `ENError`; the keys of a token that opens, sealed again, open to the same keys.
    static func fuzzRevisionToken(_ input: Data) throws(FuzzViolation) {
        guard let keySet = revisionTokenKeys, let key = keySet.keys[1] else {
            throw FuzzViolation(.revisionToken, "the fixed keys do not load")
        }
        if case .success(let bytes) = GoBase64.decode(String(decoding: input, as: UTF8.self)) {
            try checkRevisionToken(bytes, keySet)
        }
        try checkRevisionToken(input, keySet)
        guard let sealed = try? AESGCM.seal(input, using: key) else {
            throw FuzzViolation(.revisionToken, "the fixed key does not seal")
        }
        var envelope = Data([0x0A, 0x01, UInt8(ascii: "1"), 0x12])
        var length = sealed.count
        while length >= 0x80 {
            envelope.append(UInt8(truncatingIfNeeded: length) | 0x80)
            length >>= 7
        }
        envelope.append(UInt8(length))
        envelope.append(sealed)
        try checkRevisionToken(envelope, keySet)
    }

    /// A token that opens seals again and opens to the same keys.
    private static func checkRevisionToken(_ token: Data, _ keySet: ENRevisionTokenKeys) throws(FuzzViolation) {
        guard let keys = try? RevisionToken.open(token, with: keySet) else { return }
        let again: [RevisionToken.Key]
        do {
            again = try RevisionToken.open(try RevisionToken.seal(keys, with: keySet), with: keySet)
        } catch {
            throw FuzzViolation(.revisionToken, "an opened token's keys, sealed again, do not open: \(error)")
        }
        guard again == keys else {
            throw FuzzViolation(.revisionToken, "an opened token's keys change in their round trip")
        }
    }
}
