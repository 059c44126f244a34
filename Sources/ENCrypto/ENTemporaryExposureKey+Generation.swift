public import ENCore

extension ENTemporaryExposureKey {
    /// A new key with 16 bytes from a cryptographically secure generator.
    ///
    /// `rollingStartNumber` is where the key starts (normally the start of the current UTC day,
    /// `ENIntervalNumber(date: now).rollingStart`, or the current interval for a key that starts mid-day).
    ///
    /// - Throws: ``ENError/Code/badParameter`` for a rolling period outside 1...144, ``ENError/Code/internal``
    ///   when the random generator fails.
    public static func generate(
        rollingStartNumber: ENIntervalNumber, rollingPeriod: UInt32 = ENTemporaryExposureKey.defaultRollingPeriod
    ) throws(ENError) -> ENTemporaryExposureKey {
        let key = ENTemporaryExposureKey(
            keyData: try SecureRandom.bytes(count: ENTemporaryExposureKey.keyLength),
            rollingStartNumber: rollingStartNumber,
            rollingPeriod: rollingPeriod)
        try key.validate()
        return key
    }
}
