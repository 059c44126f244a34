internal import Foundation

/// How distance becomes received signal strength in the simulation.
///
/// The median attenuation follows the lognormal fit of Google Research's agent-based exposure-notification
/// simulator (`ln(attenuation) ~ N(3.92 + 0.21 ln d, σ)`): about 48 dB at 1 m, 56 dB at 2 m, 61 dB at 3 m. On top,
/// each reception gets Gaussian noise of ``noise`` dB (body shielding, orientation, multipath), and each device
/// its own offsets: the sender's real transmit power differs from the 0 dBm its metadata announces by its
/// ``ENScenario/Device/txPower``, and the receiver's radio reads ``ENScenario/Device/rssiCorrection`` dB low
/// (the calibration error Google's per-model table corrects on real phones). The framework then computes
/// attenuation = announced TX power − RSSI.
public struct ENPathLossModel: Hashable, Sendable, Codable {
    /// The standard deviation of the per-reception noise, in dB. Default 3 dB.
    public var noise: Double

    /// Creates the model.
    public init(noise: Double = 3) { self.noise = noise }

    /// The median attenuation at `distance` meters (at least 0.1 m), in dB.
    public func medianAttenuation(atDistance distance: Double) -> Double {
        exp(3.92 + 0.21 * log(max(distance, 0.1)))
    }

    /// The RSSI one reception reads, in dBm, clamped to -127...0.
    public func rssi(
        distance: Double, senderTxPower: Double, receiverCorrection: Double, using random: inout ENSeededRandom
    ) -> Int8 {
        let attenuation = medianAttenuation(atDistance: distance) + random.nextGaussian(standardDeviation: noise)
        let value = senderTxPower - attenuation - receiverCorrection
        return Int8(max(-127, min(0, value.rounded())))
    }
}
