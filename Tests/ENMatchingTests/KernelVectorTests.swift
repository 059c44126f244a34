import ENCore
import ENCrypto
import ENTestSupport
import Foundation
import Testing

@testable import ENMatching

/// Every kernel the CPU supports against the official test vectors (Exposure Notification crypto spec v1.2,
/// as published in Google's TestVectors.java).
@Suite("Kernel test vectors")
struct KernelVectorTests {
    static let temporaryExposureKey = Data(hexString: "75c734c6dd1a782de7a965da5eb93125")!
    static let rollingProximityIdentifierKey = Data(hexString: "185ad91db69ec7dd048960f1f3ba6175")!
    static let start: UInt32 = 2_642_976
    static let identifiers: [Int: String] = [
        0: "8be6cd371c5c891604bfbe49df845096", 1: "3c9a1de5dd6b02afa7fded7b570b3e56",
        2: "243ffe9a3b08bded3094bac8630bb8ad", 3: "dfc3ed265e97d0eabb630e168b4214ed",
        4: "b3b85a69ebaec78db739852d1f34e0fa", 5: "298abd6fdad29efbf0f85a63956cf188",
        6: "105e8221dd603d25b94aba0c3cc8dee1", 7: "9888ca7e6738ec4bc6e420b20f878b3a",
        8: "8694a79ae99671be3f18aaf6b090657a", 9: "b8cde28ad20d1cd2fdd7369dc0c6f7c8",
        70: "a8454b9c947d1625ee3fba2607c23aff", 71: "416ffc7a32fcfda9a316d01790e31945",
        142: "a65ef7ba9752c4173ba48a33849c5e52", 143: "f431b62ecf443102ce4ed0407de54bd4",
    ]

    @Test("the portable kernel is always supported and best is supported")
    func availability() {
        #expect(ENMatchingKernel.portable.isSupported)
        #expect(ENMatchingKernel.best.isSupported)
        #expect(ENMatchingKernel.supported.contains(.best))
    }

    @Test("RPIK from the official TEK", arguments: ENMatchingKernel.supported)
    func rollingProximityIdentifierKey(kernel: ENMatchingKernel) throws {
        let derivation = try KernelDerivation(kernel: kernel)
        // 1, 4 and 7 keys: a partial group, a full group of four, a full and a partial one.
        for count in [1, 4, 7] {
            let keys = try derivation.rollingProximityIdentifierKeys(
                Array(repeating: Self.temporaryExposureKey, count: count))
            #expect(keys == Array(repeating: Self.rollingProximityIdentifierKey, count: count), "\(kernel) x\(count)")
        }
    }

    @Test("the 144 official RPIs", arguments: ENMatchingKernel.supported)
    func identifiers(kernel: ENMatchingKernel) throws {
        let derivation = try KernelDerivation(kernel: kernel)
        let all = try derivation.identifiers(
            rollingProximityIdentifierKey: Self.rollingProximityIdentifierKey, startingAt: Self.start, count: 144)
        #expect(all.count == 144)
        for (i, expected) in Self.identifiers {
            #expect(all[i].hexString == expected, "\(kernel) interval \(i)")
        }
        // Shorter runs (periods below 144, not multiples of the kernel's block group) give the same prefix.
        for count in [1, 5, 8, 13, 16, 100, 143] {
            let some = try derivation.identifiers(
                rollingProximityIdentifierKey: Self.rollingProximityIdentifierKey, startingAt: Self.start, count: count)
            #expect(some == Array(all.prefix(count)), "\(kernel) count \(count)")
        }
        // An unaligned start: the identifier of interval 2642976 + 70 leads.
        let shifted = try derivation.identifiers(
            rollingProximityIdentifierKey: Self.rollingProximityIdentifierKey, startingAt: Self.start + 70, count: 2)
        #expect(shifted.map(\.hexString) == [Self.identifiers[70]!, Self.identifiers[71]!])
    }

    @Test("kernels agree on random keys and starts")
    func kernelsAgree() throws {
        var generator = SeededRandomNumberGenerator.forTest()
        let keys = (0..<37).map { _ in Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }) }
        let starts = (0..<37).map { _ in UInt32.random(in: 0...UInt32.max - 144, using: &generator) }
        var reference: [[Data]]? = nil
        for kernel in ENMatchingKernel.supported {
            let derivation = try KernelDerivation(kernel: kernel)
            let rpiks = try derivation.rollingProximityIdentifierKeys(keys)
            let all = try zip(rpiks, starts).map { rpik, start in
                [rpik]
                    + (try derivation.identifiers(rollingProximityIdentifierKey: rpik, startingAt: start, count: 144))
            }
            if let reference {
                #expect(all == reference, "\(kernel) differs from \(ENMatchingKernel.supported[0])")
            } else {
                reference = all
            }
        }
    }

    @Test(
        "every kernel agrees with ENCrypto (the Swift path) for random keys, unaligned starts and short runs",
        arguments: ENMatchingKernel.supported)
    func agreesWithENCrypto(kernel: ENMatchingKernel) throws {
        var generator = SeededRandomNumberGenerator.forTest()
        let derivation = try KernelDerivation(kernel: kernel)
        var starts: [UInt32] = [2_642_976, 2_642_976, 2_645_035, 2_642_976, 7, 2_645_035]
        for _ in 0..<40 { starts.append(UInt32.random(in: 2_600_000...2_700_000, using: &generator)) }
        let keys = starts.map { _ in Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }) }
        let rpiks = try derivation.rollingProximityIdentifierKeys(keys)
        for (index, start) in starts.enumerated() {
            let reference = try RollingProximityIdentifierKey(keyData: keys[index])
            #expect(rpiks[index] == reference.keyBytes, "\(kernel) key \(index), \(generator)")
            let count = index % 3 == 0 ? 144 : Int.random(in: 1...144, using: &generator)
            let expected = try reference.identifiers(startingAt: ENIntervalNumber(start), count: count).map(\.data)
            let derived = try derivation.identifiers(
                rollingProximityIdentifierKey: rpiks[index], startingAt: start, count: count)
            #expect(derived == expected, "\(kernel) key \(index) start \(start) count \(count), \(generator)")
        }
    }

    @Test(
        "cached plaintexts stay correct when starts share a cache slot and alternate",
        arguments: ENMatchingKernel.supported)
    func cacheSlotCollisions(kernel: ENMatchingKernel) throws {
        var generator = SeededRandomNumberGenerator.forTest()
        let derivation = try KernelDerivation(kernel: kernel)
        // The portable kernel caches the padded inputs of 16 rolling starts in slot
        // (start + start / 144) % 16: a, a + 16 days and a + 16 days + 16 intervals share a's slot.
        let a = Self.start
        let b = a + 16 * 144
        let c = a + 16 * 144 + 16
        for start in [a, b, a, c, b, a, a, c] {
            for count in [144, 37] {
                let key = Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
                let reference = try RollingProximityIdentifierKey(keyData: key)
                let expected = try reference.identifiers(startingAt: ENIntervalNumber(start), count: count)
                let derived = try derivation.identifiers(
                    rollingProximityIdentifierKey: reference.keyBytes, startingAt: start, count: count)
                #expect(derived == expected.map(\.data), "\(kernel) start \(start) count \(count), \(generator)")
            }
        }
    }

    @Test("bad lengths and counts are refused with badParameter")
    func badInput() throws {
        let derivation = try KernelDerivation(kernel: .portable)
        let isBadParameter: @Sendable (any Error) -> Bool = { ($0 as? ENError)?.code == .badParameter }
        #expect(
            performing: { try derivation.rollingProximityIdentifierKeys([Data(count: 15)]) }, throws: isBadParameter)
        #expect(
            performing: {
                try derivation.identifiers(
                    rollingProximityIdentifierKey: Self.rollingProximityIdentifierKey, startingAt: Self.start,
                    count: 145)
            }, throws: isBadParameter)
        #expect(
            performing: {
                try derivation.identifiers(rollingProximityIdentifierKey: Data(count: 17), startingAt: 0, count: 1)
            }, throws: isBadParameter)
        #expect(
            performing: {
                try derivation.identifiers(
                    rollingProximityIdentifierKey: Self.rollingProximityIdentifierKey, startingAt: 0, count: -1)
            }, throws: isBadParameter)
        #expect(try derivation.rollingProximityIdentifierKeys([]).isEmpty)
        #expect(
            try derivation.identifiers(
                rollingProximityIdentifierKey: Self.rollingProximityIdentifierKey, startingAt: 0, count: 0
            ).isEmpty)
    }
}
