import Foundation

/// Who sent a request, for the publish rate limit: the socket's peer, or, when that peer is a trusted proxy
/// (`--trusted-proxy`), the address the proxies recorded in `X-Forwarded-For` (the rightmost one that is not itself
/// a trusted proxy). A client cannot choose its own address by sending the header to the server directly.
package struct ClientAddress: Sendable {
    /// The proxies whose `X-Forwarded-For` is believed.
    package let trustedProxies: Set<String>

    package init(trustedProxies: [String] = []) {
        self.trustedProxies = Set(trustedProxies.map(Self.normalized))
    }

    /// The client of a request from `peer` (the socket's address) carrying `forwardedFor` headers.
    package func client(peer: String?, forwardedFor: [String]) -> String {
        guard let peer else { return "unknown" }
        var client = Self.normalized(peer)
        guard trustedProxies.contains(client) else { return client }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }
            .map { Self.normalized(String($0.trimmingCharacters(in: .whitespaces))) }
        for hop in hops.reversed() where !hop.isEmpty {
            client = hop
            if !trustedProxies.contains(hop) { break }
        }
        return client
    }

    /// An address in one spelling: lower case, without brackets, an IPv4-mapped IPv6 address as IPv4.
    static func normalized(_ address: String) -> String {
        var text = address.lowercased()
        if text.hasPrefix("["), let end = text.firstIndex(of: "]") {
            text = String(text[text.index(after: text.startIndex)..<end])
        }
        if text.hasPrefix("::ffff:"), text.dropFirst(7).contains(".") { text = String(text.dropFirst(7)) }
        return text
    }
}
