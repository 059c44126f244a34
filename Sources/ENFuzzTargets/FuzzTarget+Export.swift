internal import ENCore
internal import ENCrypto
internal import ENExportFormat
internal import Foundation

extension FuzzTarget {
    /// A trusted key whose private half nobody has: no fuzzed signature may verify against it.
    static let trustedKey: ENExportVerificationKey? = {
        let pem = """
            -----BEGIN PUBLIC KEY-----
            MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEk0jceTXn8YZd4TBcfrrPq6PcGJW7
            XRkzb1waa97ckaf1HZaRrzFRYaxOGH2iuqaUicng9q+rS+V2DWGEZpb/pA==
            -----END PUBLIC KEY-----
            """
        guard let key = try? P256VerifyingKey(pemRepresentation: pem) else { return nil }
        return ENExportVerificationKey(keyID: nil, keyVersion: nil, publicKey: key)
    }()

    /// A small valid `export.bin`, the file the signature target's `export.sig` inputs claim to sign.
    static let fixedExportBinary: Data = {
        let key = ENTemporaryExposureKey(
            keyData: Data((0..<16).map { UInt8($0) }), rollingStartNumber: 2_642_976, transmissionRiskLevel: 3)
        let export = ENKeyExport(startTimestamp: 1_585_785_600, endTimestamp: 1_585_872_000, region: "XX", keys: [key])
        return (try? export.exportBinary()) ?? ENKeyExport.header
    }()

    static func fuzzExportArchive(_ input: Data) throws(FuzzViolation) {
        guard let archive = try? ENExportArchive(data: input) else { return }
        let export = try? archive.keyExport()
        try checkScannerAgrees(archive.exportBinary, with: export, target: .exportArchive)
        if let signatures = try? archive.signatures() {
            try checkRoundTrip(signatures, target: .exportArchive)
        }
        try checkNothingVerifies(archive, target: .exportArchive)
    }

    static func fuzzExportBinary(_ input: Data) throws(FuzzViolation) {
        guard let export = try? ENKeyExport(exportBinary: input) else { return }
        let encoded: Data
        do {
            encoded = try export.exportBinary()
        } catch {
            throw FuzzViolation(.exportBinary, "a decoded export does not encode: \(error)")
        }
        let decoded: ENKeyExport
        do {
            decoded = try ENKeyExport(exportBinary: encoded)
        } catch {
            throw FuzzViolation(.exportBinary, "a re-encoded export does not decode: \(error)")
        }
        guard decoded == export else {
            throw FuzzViolation(.exportBinary, "a decoded export changes in its round trip")
        }
    }

    static func fuzzKeyScanner(_ input: Data) throws(FuzzViolation) {
        try checkScannerAgrees(input, with: try? ENKeyExport(exportBinary: input), target: .keyScanner)
    }

    static func fuzzExportSignature(_ input: Data) throws(FuzzViolation) {
        if let signatures = try? ENExportSignature.decodeList(input) {
            try checkRoundTrip(signatures, target: .exportSignature)
        }
        try checkNothingVerifies(
            ENExportArchive(exportBinary: fixedExportBinary, signatureFile: input), target: .exportSignature)
    }

    /// The scanner's keys, read in small chunks, equal the key export's wherever the key export decodes; with
    /// invalid keys skipped, it never yields more keys than the file declares.
    private static func checkScannerAgrees(
        _ exportBinary: Data, with export: ENKeyExport?, target: FuzzTarget
    ) throws(FuzzViolation) {
        let scanner: ENExportKeyScanner
        let encoded = try? ENExportKeyScanner.encodedChunks(of: exportBinary, ofSize: 3)
        do {
            scanner = try ENExportKeyScanner(exportBinary: exportBinary)
        } catch {
            guard export == nil else {
                throw FuzzViolation(target, "the scanner refuses a file ENKeyExport reads: \(error)")
            }
            guard encoded == nil else {
                throw FuzzViolation(target, "the encoded chunks accept a file the scanner refuses: \(error)")
            }
            return
        }
        try checkEncodedChunksAgree(encoded, with: scanner, target: target)
        for section in [ENExportKeySection.keys, .revisedKeys] {
            let declared = section == .keys ? scanner.keyCount : scanner.revisedKeyCount
            var rejecting = scanner.chunks(ofSize: 7, in: section)
            var keys: [ENTemporaryExposureKey]? = []
            do {
                while let chunk = try rejecting.next() { keys?.append(contentsOf: chunk) }
            } catch {
                keys = nil
            }
            if let export {
                let expected = section == .keys ? export.keys : export.revisedKeys
                guard let keys else {
                    throw FuzzViolation(target, "the scanner refuses \(section) that ENKeyExport reads")
                }
                guard keys == expected else {
                    throw FuzzViolation(target, "the scanner and ENKeyExport disagree on \(section)")
                }
            }
            var skipping = scanner.chunks(ofSize: 5, in: section, invalidKeys: .skip)
            var yielded = 0
            do {
                while let chunk = try skipping.next() { yielded += chunk.count }
            } catch {
                continue
            }
            guard yielded + skipping.skippedKeyCount <= declared else {
                throw FuzzViolation(
                    target,
                    "the scanner yields \(yielded) keys of \(section) and skips \(skipping.skippedKeyCount), but the file declares \(declared)"
                )
            }
        }
    }

    /// The encoded chunks (what a detection hands the matcher) accept the files the scanner accepts, hold every
    /// key message of both sections, the revised ones first, and decode each key as the scanner's skipping read
    /// does (`nil` for the keys it skips); the records they write say the same.
    private static func checkEncodedChunksAgree(
        _ encoded: [ENEncodedExportKeys]?, with scanner: ENExportKeyScanner, target: FuzzTarget
    ) throws(FuzzViolation) {
        guard let encoded else { throw FuzzViolation(target, "the encoded chunks refuse a file the scanner reads") }
        var expected: [ENTemporaryExposureKey?] = []
        for section in [ENExportKeySection.revisedKeys, .keys] {
            // One key a chunk, so that a skipped key shows where it was.
            var keys = scanner.chunks(ofSize: 1, in: section, invalidKeys: .skip)
            var skipped = 0
            do {
                while let chunk = try keys.next() {
                    expected += [ENTemporaryExposureKey?](repeating: nil, count: keys.skippedKeyCount - skipped)
                    skipped = keys.skippedKeyCount
                    expected += chunk.map(Optional.some)
                }
            } catch {
                throw FuzzViolation(target, "the scanner's skipping read fails on a file it accepted: \(error)")
            }
            expected += [ENTemporaryExposureKey?](repeating: nil, count: keys.skippedKeyCount - skipped)
        }
        var found: [ENTemporaryExposureKey?] = []
        for chunk in encoded {
            var records = [UInt8](repeating: 0, count: chunk.count * ENKeyRecord.stride)
            let counts = records.withUnsafeMutableBytes { chunk.writeRecords(0..<chunk.count, to: $0.baseAddress!) }
            var ignored = 0
            for position in 0..<chunk.count {
                let key = chunk.key(at: position)
                found.append(key)
                let period = records.withUnsafeBytes {
                    $0.loadUnaligned(
                        fromByteOffset: position * ENKeyRecord.stride + ENKeyRecord.periodOffset, as: UInt32.self)
                }
                if period == 0 { ignored += 1 }
                guard (period == 0) == (key == nil), key.map({ $0.rollingPeriod == period }) ?? true else {
                    throw FuzzViolation(target, "an encoded key's record and its decoded key disagree")
                }
            }
            guard counts.ignored == ignored else {
                throw FuzzViolation(
                    target, "writeRecords counts \(counts.ignored) ignored keys, its records \(ignored)")
            }
        }
        guard found == expected else {
            throw FuzzViolation(target, "the encoded chunks and the scanner disagree on the keys")
        }
    }

    /// A decoded signature list encodes and decodes to itself.
    private static func checkRoundTrip(_ signatures: [ENExportSignature], target: FuzzTarget) throws(FuzzViolation) {
        do {
            let again = try ENExportSignature.decodeList(try ENExportSignature.encodeList(signatures))
            guard again == signatures else {
                throw FuzzViolation(target, "a decoded signature list changes in its round trip")
            }
        } catch let violation as FuzzViolation {
            throw violation
        } catch {
            throw FuzzViolation(target, "a decoded signature list does not survive its round trip: \(error)")
        }
    }

    /// Verification against the key nobody can sign with never succeeds.
    private static func checkNothingVerifies(_ archive: ENExportArchive, target: FuzzTarget) throws(FuzzViolation) {
        guard let trustedKey else { throw FuzzViolation(target, "the fixed trusted key does not load") }
        if let result = try? ENExportVerifier(trustedKeys: [trustedKey]).verify(archive), result.isVerified {
            throw FuzzViolation(target, "a file verifies against a key nobody signed with: \(result)")
        }
    }
}
