public import Foundation

/// The package's one bridge between typed throws and Foundation's `rethrows` byte accessors.
///
/// `Data.withUnsafeBytes` and `withUnsafeMutableBytes` are `rethrows`, so a body that throws only ``ENError``
/// comes back as `any Error`. These run the body inside a non-throwing closure that returns a `Result`, which
/// keeps the error's type exactly (no catch-all, no conversion). The standard library's own accessors
/// (`Array.withUnsafeBufferPointer`, `withUnsafeTemporaryAllocation`, `withUnsafeBytes(of:)`) already take
/// typed throws and need no bridge. `@inlinable` so that callers in other modules get it specialised and inlined,
/// as if it were their own.
extension Data {
    /// `withUnsafeBytes` for a body that throws only ``ENError``.
    @inlinable
    package func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws(ENError) -> R) throws(ENError) -> R {
        try withUnsafeBytes { buffer in Result { () throws(ENError) -> R in try body(buffer) } }.get()
    }

    /// `withUnsafeMutableBytes` for a body that throws only ``ENError``.
    @inlinable
    package mutating func withMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws(ENError) -> R)
        throws(ENError) -> R
    {
        try withUnsafeMutableBytes { buffer in Result { () throws(ENError) -> R in try body(buffer) } }.get()
    }
}
