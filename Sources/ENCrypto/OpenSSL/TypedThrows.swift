import ENCore

/// Runs `body`, which only throws ``ENError`` but passes through a `rethrows` API (such as
/// `Data.withUnsafeBytes`) that erases the error type, and restores the typed error.
@inline(__always)
func typedThrows<R>(_ body: () throws -> R) throws(ENError) -> R {
    do {
        return try body()
    } catch let error as ENError {
        throw error
    } catch {
        throw ENError(.internal, "unexpected error: \(error)")
    }
}
