internal import CLibCrypto
import ENCore

extension ENError {
    /// An ``ENError/Code/internal`` error whose reason is `operation` followed by OpenSSL's error queue, which
    /// this drains (so that a later failure does not report a stale entry).
    static func openSSL(_ operation: String) -> ENError {
        var messages: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            let message = buffer.withUnsafeMutableBufferPointer { ptr -> String in
                ERR_error_string_n(code, ptr.baseAddress, ptr.count)
                return String(cString: ptr.baseAddress!)
            }
            messages.append(message)
        }
        let detail = messages.isEmpty ? "" : " (\(messages.joined(separator: "; ")))"
        return ENError(.internal, "\(operation) failed in OpenSSL\(detail)")
    }

    /// Discards OpenSSL's error queue after an expected failure (e.g. a PEM that did not parse).
    static func clearOpenSSLErrors() {
        ERR_clear_error()
    }
}
