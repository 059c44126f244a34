import ENCore
import ENCrypto
import ENExportFormat
import ENTestSupport
import Foundation
import Testing

/// Expects `body` to throw an `ENError` with `code` and exactly `context` (which file, section, record and
/// field): the refusal is matched on what it is and where, never on its text.
func expectRefusal(
    _ context: ENError.Context, code: ENError.Code = .badFormat, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) {
    do {
        try body()
        Issue.record("expected a refusal at \(context)", sourceLocation: sourceLocation)
    } catch let error as ENError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        #expect(error.context == context, "\(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
    }
}

/// Where an error in `export.bin` outside any key is: the entry, and the field when known.
func inExportBinary(field: String? = nil) -> ENError.Context { .init(section: "export.bin", field: field) }

/// Where an error in a key message is.
func inKey(_ index: Int, _ field: String?, section: String = "keys") -> ENError.Context {
    .init(section: section, index: index, field: field)
}

@Suite("Bad input is refused with a reason")
struct BadInputTests {
    var ens: ENExportArchive {
        get throws {
            try ENExportArchive(data: try Fixtures.data("export/ens-example/testExport-2-records-1-of-1.zip"))
        }
    }

    /// An export.bin with one key message built from raw protobuf bytes.
    func binary(withKey keyMessage: [UInt8]) -> Data {
        ENKeyExport.header + Data([0x3A, UInt8(keyMessage.count)] + keyMessage)
    }

    /// The fields of a valid key: 16 bytes of key data and rolling start 2650000.
    let keyField: [UInt8] = [0x0A, 0x10] + [UInt8](repeating: 7, count: 16)
    let startField: [UInt8] = [0x18, 0x90, 0xDF, 0xA1, 0x01]

    func bothReaders(_ data: Data, _ context: ENError.Context, sourceLocation: SourceLocation = #_sourceLocation) {
        expectRefusal(context, sourceLocation: sourceLocation) { _ = try ENKeyExport(exportBinary: data) }
        expectRefusal(context, sourceLocation: sourceLocation) {
            _ = try ENExportKeyScanner(exportBinary: data).allKeys()
        }
    }

    @Test("a valid hand-built key reads, so the refusals below are about the one defect")
    func controlCase() throws {
        let key = try #require(try ENKeyExport(exportBinary: binary(withKey: keyField + startField)).keys.first)
        #expect(key.rollingStartNumber == 2_650_000)
        #expect(key.rollingPeriod == 144)
        #expect(try ENExportKeyScanner(exportBinary: binary(withKey: keyField + startField)).allKeys() == [key])
    }

    @Test("wrong and short headers")
    func headers() throws {
        let good = try ens.exportBinary
        var wrong = good
        wrong[3] = UInt8(ascii: "e")
        let header = inExportBinary(field: "header")
        bothReaders(wrong, header)
        bothReaders(good.prefix(10), header)
        bothReaders(Data(), header)
        var noSpaces = good
        noSpaces[15] = 0
        bothReaders(noSpaces, header)
        expectRefusal(header) { _ = try ENExportArchive(data: Data("hello, world, not an export".utf8)) }
    }

    @Test("truncated protobuf, at every length: refused exactly when swift-protobuf's reading refuses")
    func truncated() throws {
        let good = try ens.exportBinary
        var refused = 0
        for length in 17..<good.count {
            let cut = good.prefix(length)
            let whole = Result { try ENKeyExport(exportBinary: cut) }
            if case .failure(let error) = whole {
                #expect((error as? ENError)?.code == .badFormat)
                refused += 1
            }
            #expect((try? whole.get()) == SwiftProtobufOracle.export(cut), "length \(length)")
            // The scanner refuses exactly the same prefixes.
            let scanned = Result { try ENExportKeyScanner(exportBinary: cut).allKeys() }
            #expect((try? scanned.get()) == (try? whole.get())?.keys, "length \(length)")
        }
        #expect(refused > good.count / 2)
        // A key's length past the end, a truncated start_timestamp (fixed64), a truncated batch_size (varint).
        bothReaders(binary(withKey: keyField + startField).dropLast(3), inExportBinary())
        bothReaders(ENKeyExport.header + Data([0x3A, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F]), inExportBinary())
        bothReaders(ENKeyExport.header + Data([0x09, 0x01, 0x02]), inExportBinary())
        bothReaders(ENKeyExport.header + Data([0x20, 0xFF, 0xFF]), inExportBinary())
    }

    @Test("fields of the wrong wire type")
    func wrongFieldTypes() throws {
        // key_data (field 1) sent as a varint.
        bothReaders(binary(withKey: [0x08, 0x05] + startField), inKey(0, "key_data"))
        // rolling_period (field 4) sent as a length-delimited field.
        bothReaders(binary(withKey: keyField + startField + [0x22, 0x01, 0x00]), inKey(0, "rolling_period"))
        // keys (field 7) sent as a varint.
        bothReaders(ENKeyExport.header + Data([0x38, 0x01]), inExportBinary(field: "keys"))
        // region (field 3) that is not UTF-8.
        bothReaders(ENKeyExport.header + Data([0x1A, 0x02, 0xC3, 0x28]), inExportBinary(field: "region"))
        // A signature info whose key id is a varint.
        bothReaders(
            ENKeyExport.header + Data([0x32, 0x02, 0x20, 0x01]),
            inKey(0, "verification_key_id", section: "signature_infos"))
    }

    @Test("keys of the wrong length, or missing")
    func keyLength() {
        bothReaders(
            binary(withKey: [0x0A, 0x0F] + [UInt8](repeating: 1, count: 15) + startField), inKey(0, "key_data"))
        bothReaders(
            binary(withKey: [0x0A, 0x11] + [UInt8](repeating: 1, count: 17) + startField), inKey(0, "key_data"))
        bothReaders(binary(withKey: startField), inKey(0, "key_data"))
        // The second key of a file is named by its index.
        bothReaders(
            binary(withKey: keyField + startField) + Data([0x3A, 0x05] + startField), inKey(1, "key_data"))
    }

    @Test("rolling period out of range, and other out-of-range fields")
    func rollingPeriod() {
        bothReaders(binary(withKey: keyField + startField + [0x20, 0x00]), inKey(0, "rolling_period"))
        bothReaders(binary(withKey: keyField + startField + [0x20, 0x91, 0x01]), inKey(0, "rolling_period"))
        bothReaders(binary(withKey: keyField + startField + [0x10, 0x09]), inKey(0, "transmission_risk_level"))
        bothReaders(
            binary(withKey: keyField + [0x18, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]),
            inKey(0, "rolling_start_interval_number"))
    }

    @Test("lenient fields: unknown enum values and out-of-range days since onset read as unknown")
    func lenientFields() throws {
        // report_type 9, variant 7, dsos 4000 (zigzag 8000 = 0xC0 0x3E), plus an unknown field 15.
        let data = binary(withKey: keyField + startField + [0x28, 0x09, 0x40, 0x07, 0x30, 0xC0, 0x3E, 0x78, 0x01])
        let key = try #require(try ENKeyExport(exportBinary: data).keys.first)
        #expect(key.diagnosisReportType == .unknown)
        #expect(key.variantOfConcern == .unknown)
        #expect(key.daysSinceOnsetOfSymptoms == ENDaysSinceOnsetOfSymptomsUnknown)
        #expect(try ENExportKeyScanner(exportBinary: data).allKeys() == [key])
    }

    @Test("a malformed export.sig is refused naming the signature and field; unknown fields are skipped")
    func signatureFiles() throws {
        let sig = try #require(try ens.signatureFile)
        #expect(try ENExportSignature.decodeList(sig) == SwiftProtobufOracle.signatures(sig))
        for length in 0..<sig.count {
            let cut = sig.prefix(length)
            let decoded = try? ENExportSignature.decodeList(cut)
            #expect(decoded == SwiftProtobufOracle.signatures(cut), "length \(length)")
        }
        // The last signature's length runs past the end of the list.
        expectRefusal(.init(section: "export.sig")) { _ = try ENExportSignature.decodeList(sig.dropLast()) }
        // batch_num (field 2 of TEKSignature) sent as bytes, in the second signature.
        expectRefusal(inKey(1, "batch_num", section: "signatures")) {
            _ = try ENExportSignature.decodeList(Data([0x0A, 0x00, 0x0A, 0x03, 0x12, 0x01, 0x00]))
        }
        // A key id that is not UTF-8.
        expectRefusal(inKey(0, "verification_key_id", section: "signatures")) {
            _ = try ENExportSignature.decodeList(Data([0x0A, 0x06, 0x0A, 0x04, 0x22, 0x02, 0xC3, 0x28]))
        }
        // A truncated signature_info.
        expectRefusal(inKey(0, "signature_info", section: "signatures")) {
            _ = try ENExportSignature.decodeList(Data([0x0A, 0x03, 0x0A, 0x01, 0x22]))
        }
        // Unknown fields at both levels (a varint 15 and a group 16) read as nothing.
        let unknown = Data([0x78, 0x01, 0x0A, 0x06, 0x78, 0x02, 0x83, 0x01, 0x84, 0x01]) + Data([0x0A, 0x00])
        #expect(
            try ENExportSignature.decodeList(unknown) == [
                ENExportSignature(signatureInfo: nil, batchNumber: nil, batchSize: nil, signature: Data()),
                ENExportSignature(signatureInfo: nil, batchNumber: nil, batchSize: nil, signature: Data()),
            ])
        #expect(SwiftProtobufOracle.signatures(unknown)?.count == 2)
    }

    /// A protobuf varint of `value` (optionally padded with redundant continuation bytes).
    static func varint(_ value: UInt64, padding: Int = 0) -> [UInt8] {
        var bytes: [UInt8] = []
        var v = value
        repeat {
            bytes.append(UInt8(v & 0x7F) | (v > 0x7F ? 0x80 : 0))
            v >>= 7
        } while v > 0
        for _ in 0..<padding {
            bytes[bytes.count - 1] |= 0x80
            bytes.append(0)
        }
        return bytes
    }

    @Test("odd but legal encodings read the same in ENKeyExport, the scanner and swift-protobuf")
    func encodingsAgree() throws {
        var rng = SeededRandomNumberGenerator.forTest(defaultSeed: 77)
        var accepted = 0
        for _ in 0..<3_000 {
            var message: [UInt8] = []
            for _ in 0..<Int.random(in: 1...9, using: &rng) {
                // Values around every boundary the decoders check, as small, large and negative int32s.
                let interesting: [UInt64] = [
                    0, 1, 8, 9, 143, 144, 145, 4000, 8000, 27, 28, 29, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF,
                    UInt64(bitPattern: -1), UInt64(bitPattern: -28), 2_650_000, UInt64.random(in: 0...300, using: &rng),
                ]
                let value = interesting.randomElement(using: &rng)!
                let padding = Int.random(in: 0..<8, using: &rng) == 0 ? 1 : 0
                switch Int.random(in: 0..<10, using: &rng) {
                case 0, 1:
                    let length = [16, 16, 16, 15, 17].randomElement(using: &rng)!
                    message += [0x0A] + Self.varint(UInt64(length), padding: padding)
                    message += (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
                case 2: message += [0x10] + Self.varint(value, padding: padding)
                case 3: message += [0x18] + Self.varint(value, padding: padding)
                case 4: message += [0x20] + Self.varint(value, padding: padding)
                case 5: message += [0x28] + Self.varint(value, padding: padding)
                case 6: message += [0x30] + Self.varint(value, padding: padding)
                case 7: message += [0x40] + Self.varint(value, padding: padding)
                case 8: message += [0x78] + Self.varint(value)  // unknown field 15
                default: message += [0x88, 0x01] + Self.varint(value)  // unknown field 17 (two-byte tag)
                }
            }
            guard message.count < 128 else { continue }
            if expectSameAsOracle(message) { accepted += 1 }
        }
        #expect(accepted > 300, "enough messages should be valid keys")
    }

    /// Compares the one decoder (whole message and scanner) with swift-protobuf on `message`; true when it read.
    func expectSameAsOracle(_ message: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let data = binary(withKey: message)
        let whole = Result { try ENKeyExport(exportBinary: data).keys }
        let scanned = Result { try ENExportKeyScanner(exportBinary: data).allKeys() }
        let oracle = SwiftProtobufOracle.export(data)?.keys
        switch (whole, scanned) {
        case (.success(let a), .success(let b)):
            #expect(a == b, "\(message)", sourceLocation: sourceLocation)
            #expect(a == oracle, "\(message)", sourceLocation: sourceLocation)
            return true
        case (.failure(let a), .failure(let b)):
            #expect((a as? ENError)?.code == .badFormat, "\(message)", sourceLocation: sourceLocation)
            #expect((b as? ENError)?.code == .badFormat, "\(message)", sourceLocation: sourceLocation)
            #expect(oracle == nil, "swift-protobuf's reading accepts \(message)", sourceLocation: sourceLocation)
            return false
        default:
            Issue.record(
                "the readers disagree on \(message): \(whole) against \(scanned)", sourceLocation: sourceLocation)
            return false
        }
    }

    @Test("canonical key encodings (the one-pass path) and near misses (the general loop) read as swift-protobuf")
    func canonicalEncodingsAgree() throws {
        var rng = SeededRandomNumberGenerator.forTest(defaultSeed: 1031)
        var (accepted, refused) = (0, 0)
        for _ in 0..<4_000 {
            // The fields in schema order, each present or not, values around every boundary either path checks.
            let interesting: [UInt64] = [
                0, 1, 2, 5, 7, 8, 9, 14, 27, 28, 29, 127, 128, 143, 144, 145, 255, 4000, 2_650_000, 0x0FFF_FFFF,
                0x1000_0000, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF, UInt64(bitPattern: -1),
            ]
            var fields: [[UInt8]] = []
            if Int.random(in: 0..<20, using: &rng) > 0 {
                let length = Int.random(in: 0..<10, using: &rng) == 0 ? [15, 17].randomElement(using: &rng)! : 16
                fields.append([0x0A, UInt8(length)] + (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) })
            }
            for tag: UInt8 in [0x10, 0x18, 0x20, 0x28, 0x30, 0x40] where Bool.random(using: &rng) {
                let value =
                    Int.random(in: 0..<3, using: &rng) == 0
                    ? interesting.randomElement(using: &rng)! : UInt64.random(in: 0...16, using: &rng)
                fields.append([tag] + Self.varint(tag == 0x18 && value < 100 ? 2_650_000 + value : value))
            }
            // One near miss in three: two fields swapped, a field repeated, padding, or an unknown field.
            if Int.random(in: 0..<3, using: &rng) == 0, !fields.isEmpty {
                let index = Int.random(in: 0..<fields.count, using: &rng)
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: fields.swapAt(index, Int.random(in: 0..<fields.count, using: &rng))
                case 1: fields.insert(fields[index], at: Int.random(in: 0...fields.count, using: &rng))
                case 2 where fields[index][0] != 0x0A:
                    let tag = fields[index][0]
                    var value = fields[index].dropFirst().reduce((UInt64(0), UInt64(0))) { sum, byte in
                        (sum.0 | UInt64(byte & 0x7F) << sum.1, sum.1 + 7)
                    }.0
                    if tag == 0x18 && value > 0x7FFF_FFFF { value = 1 }
                    fields[index] = [tag] + Self.varint(value, padding: 1)
                default: fields.insert([0x78, 0x01], at: Int.random(in: 0...fields.count, using: &rng))
                }
            }
            if expectSameAsOracle(fields.flatMap { $0 }) { accepted += 1 } else { refused += 1 }
        }
        #expect(accepted > 1_000, "enough canonical messages should be valid keys")
        #expect(refused > 200, "enough messages should be refused")
    }

    @Test("a key in any field order, padded or with unknown fields, reads as its canonical encoding")
    func fallbackGivesTheCanonicalKey() throws {
        let key: [UInt8] = [0x0A, 0x10] + [UInt8](0..<16)
        let fields: [[UInt8]] = [
            [0x10, 0x05], startField, [0x20, 0x90, 0x01], [0x28, 0x01], [0x30, 0x03], [0x40, 0x02],
        ]
        let canonical = try ENKeyExport(exportBinary: binary(withKey: key + fields.flatMap { $0 })).keys
        #expect(canonical.count == 1)
        #expect(canonical.first?.rollingPeriod == 144)
        #expect(canonical.first?.daysSinceOnsetOfSymptoms == -2)
        #expect(canonical == SwiftProtobufOracle.export(binary(withKey: key + fields.flatMap { $0 }))?.keys)
        let variants: [[UInt8]] = [
            fields.reversed().flatMap { $0 } + key,  // reversed order
            key + fields.flatMap { $0 } + [0x78, 0x2A],  // an unknown field at the end
            key + [0x10, 0x85, 0x00] + fields.dropFirst().flatMap { $0 },  // a padded one-byte value
            key + [0x28, 0x07] + fields.flatMap { $0 },  // an unknown report type before the known one
            key + fields.flatMap { $0 } + [0x28, 0x07],  // an unknown report type after it: kept aside
        ]
        for message in variants {
            #expect(try ENKeyExport(exportBinary: binary(withKey: message)).keys == canonical, "\(message)")
            #expect(try ENExportKeyScanner(exportBinary: binary(withKey: message)).allKeys() == canonical, "\(message)")
            #expect(expectSameAsOracle(message))
        }
    }

    @Test("missing export.bin or export.sig, extra entries, nested or mismatched names")
    func zipEntries() throws {
        let bin = try ens.exportBinary
        let sig = try #require(try ens.signatureFile)
        func zip(_ entries: [(String, Data)]) -> Data {
            TestZip.make(entries.map { TestZip.Entry(name: $0.0, data: $0.1) })
        }

        // The stored-entry zip builder itself produces readable archives.
        #expect(try ENExportArchive(data: zip([("export.bin", bin), ("export.sig", sig)])) == (try ens))
        // Apple's rule: any base name, as long as both share it.
        #expect(try ENExportArchive(data: zip([("keys-2020.bin", bin), ("keys-2020.sig", sig)])).exportBinary == bin)

        expectRefusal(.init(section: "export.sig")) { _ = try ENExportArchive(data: zip([("export.bin", bin)])) }
        expectRefusal(.init(section: "export.bin")) { _ = try ENExportArchive(data: zip([("export.sig", sig)])) }
        // Three entries: refused from the directory's count, before any entry is looked at.
        expectRefusal(.init()) {
            _ = try ENExportArchive(
                data: zip([("export.bin", bin), ("export.sig", sig), ("readme.txt", Data("hi".utf8))]))
        }
        expectRefusal(.init(section: "readme.txt")) {
            _ = try ENExportArchive(data: zip([("export.bin", bin), ("readme.txt", Data("hi".utf8))]))
        }
        expectRefusal(.init(section: "other.bin")) {
            _ = try ENExportArchive(data: zip([("export.bin", bin), ("other.bin", bin)]))
        }
        expectRefusal(.init(section: "dir/export.bin")) {
            _ = try ENExportArchive(data: zip([("dir/export.bin", bin), ("dir/export.sig", sig)]))
        }
        // Names that do not share a base name, an empty zip, a truncated one: the archive as a whole.
        expectRefusal(.init()) { _ = try ENExportArchive(data: zip([("a.bin", bin), ("b.sig", sig)])) }
        expectRefusal(.init(section: "export.bin")) { _ = try ENExportArchive(data: zip([])) }
        expectRefusal(.init()) { _ = try ENExportArchive(data: Data([0x50, 0x4B, 0x03, 0x04, 0x00])) }
        // A corrupted byte of the stored export.bin: its CRC-32 no longer matches.
        var corrupt = zip([("export.bin", bin), ("export.sig", sig)])
        corrupt[30 + "export.bin".utf8.count + 20] ^= 0xFF
        expectRefusal(.init(section: "export.bin", field: "crc-32")) { _ = try ENExportArchive(data: corrupt) }
    }

    @Test("zip bombs: a huge declared size, and inflation past the declared size")
    func zipBombs() throws {
        let declaredSize = ENError.Context(section: "export.bin", field: "uncompressed size")
        expectRefusal(declaredSize) {
            _ = try ENExportArchive(data: try Fixtures.data("export/generated/bomb-declared.zip"))
        }
        expectRefusal(declaredSize) {
            _ = try ENExportArchive(data: try Fixtures.data("export/generated/bomb-inflated.zip"))
        }
        // A declared size within the limit that the limits still refuse.
        let bin = try ens.exportBinary
        let sig = try #require(try ens.signatureFile)
        let small = ENExportLimits(maximumExportBinarySize: 100)
        expectRefusal(declaredSize) {
            _ = try ENExportArchive(
                data: TestZip.make([.init(name: "export.bin", data: bin), .init(name: "export.sig", data: sig)]),
                limits: small)
        }
        expectRefusal(.init()) {
            _ = try ENExportArchive(
                data: try Fixtures.data("export/cwa-android/keys.bin.zip"),
                limits: ENExportLimits(maximumFileSize: 1000))
        }
        expectRefusal(inExportBinary(field: "keys")) {
            _ = try ENExportArchive(data: try Fixtures.data("export/cwa-android/keys.bin.zip")).keyScanner(
                limits: ENExportLimits(maximumKeyCount: 1000))
        }
        expectRefusal(inExportBinary(field: "keys")) {
            _ = try ENExportArchive(data: try Fixtures.data("export/cwa-android/keys.bin.zip")).keyExport(
                limits: ENExportLimits(maximumKeyCount: 1000))
        }
    }

    @Test("DEFLATE data that is invalid, truncated, shorter than declared or fails its CRC is refused")
    func inflation() throws {
        let bin = try ens.exportBinary
        let sig = try #require(try ens.signatureFile)
        func archive(_ binEntry: TestZip.Entry) throws -> ENExportArchive {
            try ENExportArchive(data: TestZip.make([binEntry, .init(name: "export.sig", data: sig)]))
        }
        let deflated = TestZip.deflateStored(bin)
        let declared = UInt32(bin.count)
        // The control case: a deflated entry reads back exactly.
        let good = try archive(
            .init(name: "export.bin", data: deflated, declaredSize: declared, method: 8, checksummed: bin))
        #expect(good.exportBinary == bin)

        let fileData = ENError.Context(section: "export.bin", field: "file data")
        let declaredSize = ENError.Context(section: "export.bin", field: "uncompressed size")
        expectRefusal(fileData) {
            _ = try archive(
                .init(
                    name: "export.bin", data: deflated.dropLast(5), declaredSize: declared, method: 8,
                    checksummed: bin))
        }
        var reserved = deflated
        reserved[0] = 0x07  // final block of the reserved type 3
        expectRefusal(fileData) {
            _ = try archive(
                .init(name: "export.bin", data: reserved, declaredSize: declared, method: 8, checksummed: bin))
        }
        expectRefusal(declaredSize) {
            _ = try archive(
                .init(name: "export.bin", data: deflated, declaredSize: declared + 10, method: 8, checksummed: bin))
        }
        expectRefusal(declaredSize) {
            _ = try archive(
                .init(name: "export.bin", data: deflated, declaredSize: declared - 1, method: 8, checksummed: bin))
        }
        expectRefusal(.init(section: "export.bin", field: "crc-32")) {
            _ = try archive(
                .init(
                    name: "export.bin", data: deflated, declaredSize: declared, method: 8,
                    checksummed: bin + Data([0])))
        }
        expectRefusal(declaredSize) {
            _ = try archive(.init(name: "export.bin", data: bin, declaredSize: declared + 1))
        }
    }

    @Test("a missing or unreadable file is a parameter error naming the file; a bad file's errors name it too")
    func missingFile() throws {
        expectRefusal(.init(file: "/nonexistent/export.zip"), code: .badParameter) {
            _ = try ENExportArchive(contentsOf: URL(fileURLWithPath: "/nonexistent/export.zip"))
        }
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let url = directory.url.appendingPathComponent("keys-1.zip")
        let sig = try #require(try ens.signatureFile)
        var corrupt = TestZip.make([
            .init(name: "export.bin", data: try ens.exportBinary), .init(name: "export.sig", data: sig),
        ])
        corrupt[30 + "export.bin".utf8.count + 20] ^= 0xFF  // a byte of the stored export.bin: its CRC-32 fails
        try corrupt.write(to: url)
        expectRefusal(.init(file: url.path, section: "export.bin", field: "crc-32")) {
            _ = try ENExportArchive(contentsOf: url)
        }
    }

    @Test("corrupting the zip structure (headers, central directory, end record) never crashes")
    func zipStructureFuzz() throws {
        var rng = SeededRandomNumberGenerator.forTest(defaultSeed: 515)
        let original = try Fixtures.data("export/ens-example/testExport-2-records-1-of-1.zip")
        // The structural bytes: both local headers, the central directory and the end record.
        let binHeader = 0..<40
        let structure = Array(binHeader) + Array((original.count - 134)..<original.count)
        var outcomes = [0, 0]
        for _ in 0..<3000 {
            var data = original
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let index = structure.randomElement(using: &rng)!
                data[index] = Bool.random(using: &rng) ? UInt8.random(in: 0...255, using: &rng) : 0xFF
            }
            do {
                _ = try ENExportArchive(data: data)
                outcomes[0] += 1
            } catch {
                #expect(error.code == .badFormat, "\(error)")
                outcomes[1] += 1
            }
        }
        #expect(outcomes[1] > 0)
    }

    @Test("random corruptions of real files never crash: they read or are refused with badFormat")
    func fuzz() throws {
        var rng = SeededRandomNumberGenerator.forTest(defaultSeed: 2026)
        let sources = [
            "export/ens-example/testExport-2-records-1-of-1.zip", "export/en-internals/sample_diagnosis_key_file.zip",
            "export/generated/bare-export.bin", "export/en-internals/cpp_testdata_export.bin",
        ]
        var refused = 0
        var total = 0
        for source in sources {
            let original = try Fixtures.data(source)
            for _ in 0..<150 {
                var data = original
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    let index = Int.random(in: 0..<data.count, using: &rng)
                    data[index] = UInt8.random(in: 0...255, using: &rng)
                }
                if Bool.random(using: &rng) { data = data.prefix(Int.random(in: 0...data.count, using: &rng)) }
                total += 1
                do {
                    let archive = try ENExportArchive(data: data)
                    let export = try archive.keyExport()
                    let scanned = try archive.keyScanner().allKeys()
                    #expect(scanned == export.keys)
                    _ = try? archive.signatures()
                } catch {
                    #expect(error.code == .badFormat, "\(error)")
                    refused += 1
                }
            }
        }
        #expect(refused > 0 && refused < total)
    }
}

@Suite("Skipping invalid keys")
struct SkipPolicyTests {
    @Test("with .skip, bad keys are left out and counted with their errors; good keys still read")
    func skipsBadKeys() throws {
        let good: [UInt8] = [0x0A, 0x10] + [UInt8](repeating: 7, count: 16) + [0x18, 0x90, 0xDF, 0xA1, 0x01]
        let shortKey: [UInt8] = [0x0A, 0x0F] + [UInt8](repeating: 1, count: 15)
        let badPeriod: [UInt8] = good + [0x20, 0x00]
        var body: [UInt8] = []
        for key in [good, shortKey, badPeriod, good] { body += [0x3A, UInt8(key.count)] + key }
        let data = ENKeyExport.header + Data(body)
        let scanner = try ENExportKeyScanner(exportBinary: data)
        #expect(scanner.keyCount == 4)
        expectRefusal(inKey(1, "key_data")) { _ = try scanner.allKeys() }
        var chunks = scanner.chunks(ofSize: 1, invalidKeys: .skip)
        var keys: [ENTemporaryExposureKey] = []
        while let chunk = try chunks.next() { keys += chunk }
        #expect(keys.count == 2)
        #expect(chunks.skippedKeyCount == 2)
        #expect(chunks.skippedKeyErrors == [ENError(.badFormat), ENError(.badFormat)])
        #expect(chunks.skippedKeyErrors.map(\.context) == [inKey(1, "key_data"), inKey(2, "rolling_period")])
        // A broken structure still throws: the scanner refuses it before any chunk is read.
        expectRefusal(inExportBinary()) { _ = try ENExportKeyScanner(exportBinary: data.dropLast(2)) }
    }
}
