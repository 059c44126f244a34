import ENCore
import ENCrypto
import ENMatching
import Foundation

/// Per-key cost of the key schedule on its two paths: ENCrypto's `RollingProximityIdentifierKey` (Swift on
/// OpenSSL, one key at a time, key material zeroed) and the matching kernels (C, many keys per call), plus the
/// signing paths for scale.
let cryptoBenchmarkSuite = BenchmarkSuite(name: "crypto") { context, report in
    let keyCount = context.quick ? 20_000 : 200_000
    context.log("crypto: \(keyCount) random keys")
    var keyBytes = [UInt8](repeating: 0, count: 16 * keyCount)
    var rng = SplitMix64(seed: 0x454E_2D52_5049)
    for i in keyBytes.indices { keyBytes[i] = UInt8(truncatingIfNeeded: rng.next()) }
    let keys = (0..<keyCount).map { Data(keyBytes[(16 * $0)..<(16 * $0 + 16)]) }
    let days: [UInt32] = (0..<14).map { 2_642_976 + UInt32($0) * 144 }

    // Correctness gate: both paths must reproduce the official vector before their speed means anything.
    let vectorTEK = Data(hexString: "75c734c6dd1a782de7a965da5eb93125")!
    let vectorFirst = "8be6cd371c5c891604bfbe49df845096"
    let vectorLast = "f431b62ecf443102ce4ed0407de54bd4"
    let swiftIdentifiers = try RollingProximityIdentifierKey(keyData: vectorTEK)
        .identifiers(startingAt: 2_642_976, count: 144)
    if swiftIdentifiers.first?.description != vectorFirst || swiftIdentifiers.last?.description != vectorLast {
        report.fail("crypto: RollingProximityIdentifierKey does not reproduce the official test vector")
    }

    let rpik = try measure(iterations: context.iterations, operations: keyCount) {
        for key in keys { blackHole(try RollingProximityIdentifierKey(keyData: key)) }
    }
    report.add(
        BenchmarkResult(
            suite: "crypto", name: "RPIK derivation via RollingProximityIdentifierKey", unit: "key", best: rpik.best,
            median: rpik.median))

    let oneOffKeys = min(keyCount, 5_000)
    let oneOff = try measure(iterations: context.iterations, operations: oneOffKeys) {
        for k in 0..<oneOffKeys {
            let rpik = try RollingProximityIdentifierKey(keyData: keys[k])
            blackHole(try rpik.identifiers(startingAt: ENIntervalNumber(days[k % 14]), count: 144))
        }
    }
    report.add(
        BenchmarkResult(
            suite: "crypto", name: "144 identifiers via RollingProximityIdentifierKey (one-off API)", unit: "key",
            best: oneOff.best, median: oneOff.median))

    // The matching kernels' own derivation, without the observation index: RPIKs for all keys in one call,
    // then a day of identifiers per RPIK.
    let kernels = Array(Set([ENMatchingKernel.portable, .best])).sorted { $0.rawValue < $1.rawValue }
    let output = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 * 144, alignment: 64)
    defer { output.deallocate() }
    var rpiks = [UInt8](repeating: 0, count: 16 * keyCount)
    for kernel in kernels {
        let derivation = try KernelDerivation(kernel: kernel)
        let identifiers = try derivation.identifiers(
            rollingProximityIdentifierKey: RollingProximityIdentifierKey(keyData: vectorTEK).keyBytes,
            startingAt: 2_642_976, count: 144)
        if identifiers.first?.hexString != vectorFirst || identifiers.last?.hexString != vectorLast {
            report.fail("crypto: the \(kernel) kernel does not reproduce the official test vector")
        }
        let derive = try keyBytes.withUnsafeBytes { keys in
            try rpiks.withUnsafeMutableBytes { out in
                try measure(iterations: context.iterations, operations: keyCount) {
                    try derivation.deriveRollingProximityIdentifierKeys(keyData: keys, into: out)
                }
            }
        }
        report.add(
            BenchmarkResult(
                suite: "crypto", name: "RPIK derivation, \(kernel) kernel (batch)", unit: "key", best: derive.best,
                median: derive.median, details: ["target": "<400 ns"]))
        let aes = try rpiks.withUnsafeBytes { rpiks in
            try measure(iterations: context.iterations, operations: keyCount) {
                for k in 0..<keyCount {
                    try derivation.deriveIdentifiers(
                        rollingProximityIdentifierKey: UnsafeRawBufferPointer(
                            rebasing: rpiks[(16 * k)..<(16 * k + 16)]),
                        startingAt: days[k % 14], count: 144, into: output)
                }
            }
        }
        report.add(
            BenchmarkResult(
                suite: "crypto", name: "144 identifiers from an RPIK, \(kernel) kernel", unit: "key", best: aes.best,
                median: aes.median, details: ["target": "<400 ns"]))
    }

    let signingKey = try P256SigningKey()
    let publicKey = try signingKey.publicKey
    let message = Data(repeating: 0x42, count: 1024)
    let signature = try signingKey.signature(for: message)
    let signs = context.quick ? 50 : 500
    let sign = try measure(iterations: context.iterations, operations: signs) {
        for _ in 0..<signs { blackHole(try signingKey.signature(for: message)) }
    }
    report.add(
        BenchmarkResult(
            suite: "crypto", name: "ECDSA P-256 sign (1 KiB)", unit: "signature", best: sign.best, median: sign.median))
    let verify = measure(iterations: context.iterations, operations: signs) {
        for _ in 0..<signs { blackHole(publicKey.isValidSignature(signature, for: message)) }
    }
    report.add(
        BenchmarkResult(
            suite: "crypto", name: "ECDSA P-256 verify (1 KiB)", unit: "signature", best: verify.best,
            median: verify.median))
}
