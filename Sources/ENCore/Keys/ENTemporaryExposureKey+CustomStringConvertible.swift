extension ENTemporaryExposureKey: CustomStringConvertible {
    /// A summary that does not reveal the secret key data: its first 4 bytes only.
    public var description: String {
        let prefix = keyData.prefix(4).hexString
        return "ENTemporaryExposureKey(\(prefix)…, start: \(rollingStartNumber), period: \(rollingPeriod))"
    }
}
