internal import ENCore
internal import ENStore

extension FrameworkStorage {
    /// The sightings of the retention period (14 days by default) before the environment's clock's now: what
    /// detection matches diagnosis keys against.
    func retainedSightings() throws(ENError) -> [ENSighting] {
        try store().read(.retainedSightings)
    }
}
