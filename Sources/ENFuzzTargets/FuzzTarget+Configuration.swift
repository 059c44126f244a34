internal import ENCore
internal import Foundation

extension FuzzTarget {
    static func fuzzExposureConfiguration(_ input: Data) throws(FuzzViolation) {
        guard let configuration = try? ENExposureConfiguration(jsonData: input) else { return }
        do {
            try configuration.validate()
        } catch {
            throw FuzzViolation(.exposureConfiguration, "a decoded configuration is not valid: \(error)")
        }
        let again: ENExposureConfiguration
        do {
            again = try ENExposureConfiguration(jsonData: try JSONEncoder().encode(configuration))
        } catch {
            throw FuzzViolation(
                .exposureConfiguration, "a decoded configuration does not survive its round trip: \(error)")
        }
        guard again == configuration else {
            throw FuzzViolation(.exposureConfiguration, "a decoded configuration changes in its round trip")
        }
    }
}
