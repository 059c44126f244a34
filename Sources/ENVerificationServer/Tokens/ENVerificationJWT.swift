internal import ENCore
internal import ENCrypto
internal import Foundation

/// An ES256 JSON Web Token as Google's verification server writes and reads them (`jwthelper.SignJWT`,
/// golang-jwt v3): header `{"alg":"ES256","kid":…,"typ":"JWT"}`, the claims, and the raw 64-byte `r || s`
/// signature of the SHA-256 of `header.claims`, every segment base64url without padding.
enum ENVerificationJWT {
    /// Signs `claims` (members in order) with `key`, naming it `keyID` in the header.
    static func sign(claims: [GoJSONValue.Member], keyID: String, key: P256SigningKey) throws(ENError) -> String {
        // golang-jwt's header is a Go map: its keys are written sorted.
        let header = GoJSONValue.object([
            .init("alg", .string("ES256")), .init("kid", .string(keyID)), .init("typ", .string("JWT")),
        ])
        let signingInput = segment(header) + "." + segment(.object(claims))
        let signature = try key.signature(for: Data(signingInput.utf8))
        return signingInput + "." + ENVerificationSecrets.base64URL(signature.rawRepresentation)
    }

    private static func segment(_ value: GoJSONValue) -> String {
        var text = ""
        value.write(to: &text)
        return ENVerificationSecrets.base64URL(Data(text.utf8))
    }

    /// A token whose signature checked out: its header's `kid` and its claims as JSON.
    struct Verified {
        var keyID: String
        var claims: [String: Any]
    }

    /// Why a token was refused.
    enum Refusal: Error {
        /// Not three base64url segments of JSON, not ES256, no string `kid`, an unknown `kid` or a bad signature.
        case invalid
    }

    /// Checks the form, the algorithm and the signature of `token` with the key `keys` names by its `kid`.
    static func verify(_ token: String, keys: [String: P256VerifyingKey]) throws(Refusal) -> Verified {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = decodeSegment(parts[0]), let claimsData = decodeSegment(parts[1]),
            let signature = decodeSegment(parts[2]),
            let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any],
            let claims = try? JSONSerialization.jsonObject(with: claimsData) as? [String: Any],
            header["alg"] as? String == "ES256", let keyID = header["kid"] as? String, let key = keys[keyID],
            signature.count == 64, let parsed = try? P256Signature(rawRepresentation: signature),
            key.isValidSignature(parsed, for: Data("\(parts[0]).\(parts[1])".utf8))
        else { throw .invalid }
        return Verified(keyID: keyID, claims: claims)
    }

    /// golang-jwt v3's `DecodeSegment`: the URL alphabet, padding restored.
    static func decodeSegment(_ text: Substring) -> Data? {
        guard !text.contains("+"), !text.contains("/"), !text.contains("=") else { return nil }
        return ENVerificationAPIKey.decodeBase64(String(text))
    }
}
