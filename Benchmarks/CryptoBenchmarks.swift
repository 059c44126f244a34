import ENCore
import ENCrypto
import Foundation

/// Per-key cost of the key schedule: HKDF for the RPIK, and the 144-identifier batch (HKDF + rekey + one
/// AES call), plus the one-off and signing paths for scale.
let cryptoBenchmarkSuite = BenchmarkSuite(name: "crypto") { context, report in
    let keyCount = context.quick ? 20_000 : 200_000
    context.log("crypto: \(keyCount) random keys")
    var keyBytes = [UInt8](repeating: 0, count: 16 * keyCount)
    var rng = SplitMix64(seed: 0x454E_2D52_5049)
    for i in keyBytes.indices { keyBytes[i] = UInt8(truncatingIfNeeded: rng.next()) }
    let generator = try RollingProximityIdentifierGenerator()
    let output = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 * 144, alignment: 64)
    defer { output.deallocate() }

    // Correctness gate: the batch path must reproduce the official vector before its speed means anything.
    let vectorTEK = Data(hexString: "75c734c6dd1a782de7a965da5eb93125")!
    try vectorTEK.withUnsafeBytes { tek in
        try generator.deriveIdentifiers(keyData: tek, startingAt: 2_642_976, count: 144, into: output)
    }
    if Data(output[0..<16]).hexString != "8be6cd371c5c891604bfbe49df845096"
        || Data(output[(143 * 16)..<(144 * 16)]).hexString != "f431b62ecf443102ce4ed0407de54bd4"
    {
        report.fail("crypto: the 144-identifier batch does not reproduce the official test vector")
    }

    let hkdf = try keyBytes.withUnsafeBytes { keys in
        try measure(iterations: context.iterations, operations: keyCount) {
            for k in 0..<keyCount {
                try generator.deriveRollingProximityIdentifierKey(
                    keyData: UnsafeRawBufferPointer(rebasing: keys[(16 * k)..<(16 * k + 16)]), into: output)
            }
        }
    }
    report.add(
        BenchmarkResult(
            suite: "crypto", name: "HKDF-SHA256 RPIK derivation", unit: "key", best: hkdf.best, median: hkdf.median,
            details: ["target": "<400 ns"]))

    let days: [ENIntervalNumber] = (0..<14).map { ENIntervalNumber(2_642_976 + UInt32($0) * 144) }
    let batch = try keyBytes.withUnsafeBytes { keys in
        try measure(iterations: context.iterations, operations: keyCount) {
            for k in 0..<keyCount {
                try generator.deriveIdentifiers(
                    keyData: UnsafeRawBufferPointer(rebasing: keys[(16 * k)..<(16 * k + 16)]),
                    startingAt: days[k % 14], count: 144, into: output)
            }
        }
    }
    report.add(
        BenchmarkResult(
            suite: "crypto", name: "144-identifier batch (HKDF + rekey + 1 AES call)", unit: "key",
            best: batch.best, median: batch.median))

    // The AES half alone: rekey with a derived RPIK and encrypt 144 blocks in one call.
    var rpiks = [UInt8](repeating: 0, count: 16 * keyCount)
    try keyBytes.withUnsafeBytes { keys in
        try rpiks.withUnsafeMutableBytes { out in
            for k in 0..<keyCount {
                try generator.deriveRollingProximityIdentifierKey(
                    keyData: UnsafeRawBufferPointer(rebasing: keys[(16 * k)..<(16 * k + 16)]),
                    into: UnsafeMutableRawBufferPointer(rebasing: out[(16 * k)..<(16 * k + 16)]))
            }
        }
    }
    let aesOnly = try rpiks.withUnsafeBytes { keys in
        try measure(iterations: context.iterations, operations: keyCount) {
            for k in 0..<keyCount {
                try generator.encryptIdentifiers(
                    rollingProximityIdentifierKey: UnsafeRawBufferPointer(rebasing: keys[(16 * k)..<(16 * k + 16)]),
                    startingAt: days[k % 14], count: 144, into: output)
            }
        }
    }
    report.add(
        BenchmarkResult(
            suite: "crypto", name: "144 identifiers from an RPIK (rekey + 1 AES call)", unit: "key",
            best: aesOnly.best, median: aesOnly.median, details: ["target": "<400 ns"]))

    let sameDay = try keyBytes.withUnsafeBytes { keys in
        try measure(iterations: context.iterations, operations: keyCount) {
            for k in 0..<keyCount {
                try generator.deriveIdentifiers(
                    keyData: UnsafeRawBufferPointer(rebasing: keys[(16 * k)..<(16 * k + 16)]),
                    startingAt: 2_642_976, count: 144, into: output)
            }
        }
    }
    report.add(
        BenchmarkResult(
            suite: "crypto", name: "144-identifier batch, keys of one day (cached inputs)", unit: "key",
            best: sameDay.best, median: sameDay.median))

    let oneOffKeys = min(keyCount, 5_000)
    let oneOff = try measure(iterations: context.iterations, operations: oneOffKeys) {
        for k in 0..<oneOffKeys {
            let rpik = try RollingProximityIdentifierKey(keyData: Data(keyBytes[(16 * k)..<(16 * k + 16)]))
            blackHole(try rpik.identifiers(startingAt: 2_642_976, count: 144))
        }
    }
    report.add(
        BenchmarkResult(
            suite: "crypto", name: "144 identifiers via RollingProximityIdentifierKey (one-off API)", unit: "key",
            best: oneOff.best, median: oneOff.median))

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
