import ENCore
import Foundation

extension Data {
    /// `withUnsafeBytes` for a body that throws only `ENError` (the standard one is `rethrows` and loses the
    /// error type).
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws(ENError) -> R) throws(ENError) -> R {
        let result = withUnsafeBytes { buffer in
            Result { () throws(ENError) -> R in try body(buffer) }
        }
        return try result.get()
    }

    /// `withUnsafeMutableBytes` for a body that throws only `ENError`.
    mutating func withMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws(ENError) -> R) throws(ENError) -> R
    {
        let result = withUnsafeMutableBytes { buffer in
            Result { () throws(ENError) -> R in try body(buffer) }
        }
        return try result.get()
    }
}
