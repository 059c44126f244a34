internal import CENMatchingKernel

/// The implementation that derives identifiers during matching, chosen at run time from the CPU's features.
///
/// Every kernel produces bit-identical identifiers (the tests check each one the CPU supports against
/// ENCrypto and the official test vector); they differ only in speed. ``best`` is used unless
/// ``ENMatchingOptions/kernel`` names another.
public enum ENMatchingKernel: Int, CaseIterable, Sendable, CustomStringConvertible {
    /// OpenSSL's libcrypto: HKDF as six `SHA256_Transform` calls with precomputed zero-salt pads, AES-128-ECB
    /// through one fetched cipher re-keyed per key. Runs everywhere.
    case portable = 0
    /// SHA-256 with the x86 SHA extensions, four keys interleaved, and AES-128 with AES-NI, eight blocks in flight.
    case shaExtensionsAESNI = 1
    /// SHA-256 with the x86 SHA extensions, four keys interleaved, and AES-128 with VAES on 256-bit registers.
    case shaExtensionsVAES = 2
    /// SHA-256 with the x86 SHA extensions, four keys interleaved, and AES-128 with VAES on 512-bit registers
    /// (four blocks each, twelve registers in flight); each group of four keys is probed between the next
    /// group's SHA and AES rounds. Needs AVX-512 (F, DQ, BW, VL) and an operating system that saves the 512-bit
    /// register state.
    case shaExtensionsVAES512 = 3

    /// Whether this CPU can run the kernel.
    public var isSupported: Bool { cen_level_supported(Int32(rawValue)) != 0 }

    /// The fastest kernel this CPU supports.
    public static var best: ENMatchingKernel { ENMatchingKernel(rawValue: Int(cen_best_level())) ?? .portable }

    /// The kernels this CPU supports, slowest first.
    public static var supported: [ENMatchingKernel] { allCases.filter(\.isSupported) }

    /// A short name such as `shani-vaes`.
    public var description: String {
        switch self {
        case .portable: "portable"
        case .shaExtensionsAESNI: "shani-aesni"
        case .shaExtensionsVAES: "shani-vaes"
        case .shaExtensionsVAES512: "shani-vaes512"
        }
    }
}
