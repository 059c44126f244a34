import ENCore
import ENCrypto
import ENExportFormat
import ENKeyServer
import ENKeyServerSQLite
import ENTestSupport
import Foundation
import Testing

/// Each key's regions and traveller flag, stored as Google's `Exposure` stores them, and the export configurations'
/// selection by them (`InputRegions`, `ExcludeRegions`, `IncludeTravelers`, `OnlyNonTravelers`).
@Suite("Regions and travellers")
struct RegionsAndTravellersTests {
    // MARK: Selection, against Google's own cases

    /// Google's `TestExcludeRegions` (`internal/export/database/export_test.go:583-715`): a key of the main region
    /// (`aaa`, US), a traveller's of the excluded region (`bbb`, EU) and a non-traveller's of it (`ccc`, EU).
    @Test(
        "Google's exclude-region cases select what its test wants",
        arguments: [
            (["US"], ["EU"], false, ["aaa"]),  // "1main,1ext" and "1main,2ext"
            (["US"], [], true, ["aaa"]),  // "1main,2ext,notravel"
            (["US", "EU"], [], true, ["aaa", "ccc"]),  // "1main,2ext,notravel,2regions"
        ] as [([String], [String], Bool, [String])])
    func googlesExcludeRegionCases(
        input: [String], excluded: [String], onlyNonTravelers: Bool, want: [String]
    ) {
        let keys: [(String, ENKeyServerKeyOrigin)] = [
            ("aaa", ENKeyServerKeyOrigin(regions: ["US"])),
            ("bbb", ENKeyServerKeyOrigin(regions: ["EU"], traveler: true)),
            ("ccc", ENKeyServerKeyOrigin(regions: ["EU"])),
        ]
        let selection = ENExportSelection(
            inputRegions: input, excludedRegions: excluded, onlyNonTravelers: onlyNonTravelers)
        #expect(keys.filter { selection.selects($0.1, outputRegion: "US") }.map(\.0) == want)
    }

    /// Google's `TestTravelerKeys` (`export_test.go:480-581`): with `IncludeTravelers`, a traveller's key of another
    /// region is exported by the US configuration; a non-traveller's of another region is not.
    @Test func travellersOfOtherRegionsOnlyWithIncludeTravelers() {
        let traveller = ENKeyServerKeyOrigin(regions: ["USA"], traveler: true)
        let resident = ENKeyServerKeyOrigin(regions: ["USB"])
        let travellers = ENExportSelection(includesTravelers: true)
        #expect(travellers.selects(traveller, outputRegion: "US"))
        #expect(!travellers.selects(resident, outputRegion: "US"))
        #expect(!ENExportSelection().selects(traveller, outputRegion: "US"))
        // Exclusion wins over the traveller flag, as `AND NOT (regions && $n)` follows the OR.
        let excluding = ENExportSelection(excludedRegions: ["usa"], includesTravelers: true)
        #expect(!excluding.selects(traveller, outputRegion: "US"))
        // Only non-travellers: a traveller's key of the output region is left out.
        let home = ENKeyServerKeyOrigin(regions: ["US"], traveler: true)
        #expect(!ENExportSelection(onlyNonTravelers: true).selects(home, outputRegion: "US"))
        #expect(ENExportSelection().selects(home, outputRegion: "us"))
    }

    @Test func originsUpperCaseAndMergeRegionsAsGoogleDoes() {
        var origin = ENKeyServerKeyOrigin(regions: ["us", "US", "ca"])
        #expect(origin.regions == ["US", "CA"])
        origin.add(["Ca", "mx"])
        #expect(origin.regions == ["US", "CA", "MX"])
    }

    @Test(arguments: ["", "U,S", "U S", "US\n", String(repeating: "A", count: 65)])
    func aRegionThatCannotBeOneIsRefused(region: String) {
        let error = #expect(throws: ENError.self) { try ENKeyServerKeyOrigin.validate(region: region) }
        #expect(error?.code == .badParameter)
        let configuration = ENKeyServerConfiguration(
            region: "US", signers: [], selection: ENExportSelection(excludedRegions: ["EU", region]))
        let refused = #expect(throws: ENError.self) { try configuration.validateExportSettings() }
        #expect(refused?.context.section == "excludedRegions")
        #expect(refused?.context.index == 1)
    }

    // MARK: Publish

    @Test func theAppsRegionsAndTheTravelerFlagAreStoredWithEachKey() async throws {
        let test = try PublishTest(configure: { $0.authorizedApps[0].regions = ["us", "ca"] })
        let reply = await test.handler.publish(
            ENPublishRequest(temporaryExposureKeys: [sentKey(1)], healthAuthorityID: appID, traveler: true))
        #expect(reply.status == 200)
        let home = await test.publish([sentKey(2)])
        #expect(home.status == 200)
        let stored = try await test.store.storedKeys(withKeyData: [keyData(1), keyData(2)])
        #expect(
            stored.map(\.origin) == [
                ENKeyServerKeyOrigin(regions: ["US", "CA"], traveler: true),
                ENKeyServerKeyOrigin(regions: ["US", "CA"]),
            ])
    }

    @Test func anAppWithoutRegionsStoresTheDefaultRegion() async throws {
        let test = try PublishTest()
        #expect(await test.publish([sentKey(1)]).status == 200)
        #expect(try await test.store.storedKeys(withKeyData: [keyData(1)]).map(\.origin.regions) == [["310"]])
    }

    /// Google's `publish.go:299-316`: no region from the app nor the server is a 500, checked before the certificate.
    @Test func noRegionAtAllIs500MissingRegionConfigAndStoresNothing() async throws {
        let test = try PublishTest(
            verifier: FixedVerifier(refuses: true), configure: { $0.defaultRegion = nil })
        let reply = await test.publish([sentKey(1)])
        #expect(reply.status == 500)
        #expect(reply.response.code == .healthAuthorityMissingRegionConfiguration)
        #expect(reply.response.error == "unknown health authority regions for \(appID)")
        #expect(try await test.storedKeys().isEmpty)
    }

    /// Google's `Exposure.Revise` (`exposure_model.go:262-268`): a revision adds the revising app's regions and keeps
    /// the traveller flag.
    @Test func aRevisionAddsTheRevisingAppsRegions() async throws {
        let other = "com.example.other"
        let test = try PublishTest(
            verifier: FixedVerifier(claims: ENVerifiedClaims(reportType: .confirmedClinicalDiagnosis)),
            configure: {
                $0.authorizedApps[0].regions = ["US"]
                $0.authorizedApps.append(
                    ENPublishAuthorizedApp(
                        healthAuthorityID: other,
                        verifier: FixedVerifier(claims: ENVerifiedClaims(reportType: .confirmedTest)),
                        bypassesRevisionToken: true, regions: ["CA", "us"]))
            })
        let first = await test.handler.publish(
            ENPublishRequest(temporaryExposureKeys: [sentKey(1)], healthAuthorityID: appID, traveler: true))
        #expect(first.status == 200)
        let revised = await test.publish([sentKey(1)], id: other)
        #expect(revised.status == 200)
        let stored = try #require(try await test.store.storedKeys(withKeyData: [keyData(1)]).first)
        #expect(stored.revision?.reportType == .confirmedTest)
        #expect(stored.origin == ENKeyServerKeyOrigin(regions: ["US", "CA"], traveler: true))
    }

    // MARK: Export, on every storage

    /// The keys of the export tests: their origins.
    static let origins: [ENKeyServerKeyOrigin] = [
        ENKeyServerKeyOrigin(regions: ["US"]),  // 0
        ENKeyServerKeyOrigin(regions: ["US"], traveler: true),  // 1
        ENKeyServerKeyOrigin(regions: ["CA"], traveler: true),  // 2
        ENKeyServerKeyOrigin(regions: ["CA"]),  // 3
        ENKeyServerKeyOrigin(regions: ["EU"], traveler: true),  // 4
        ENKeyServerKeyOrigin(regions: ["CA", "EU"]),  // 5
    ]

    @Test(
        "an export configuration's files carry the keys its selection selects, each once",
        arguments: StorageKind.available,
        [
            (ENExportSelection(), [0, 1]),
            (ENExportSelection(excludedRegions: ["EU"], includesTravelers: true), [0, 1, 2]),
            (ENExportSelection(inputRegions: ["CA"], onlyNonTravelers: true), [3, 5]),
            (ENExportSelection(inputRegions: ["US", "EU"], onlyNonTravelers: true), [0, 5]),
        ] as [(ENExportSelection, [Int])])
    func exportSelects(kind: StorageKind, selecting: (ENExportSelection, [Int])) async throws {
        let (selection, want) = selecting
        let clock = TestClock()
        try await kind.with(clock: clock) { stores in
            let store = stores[0]
            let keys = Self.origins.indices.map { makeKey($0 + 1, start: today.adding(-144)) }
            let arrival = referenceDate.addingTimeInterval(-3600)
            _ = try await store.insertAndRevise(
                inserting: zip(keys, Self.origins).map {
                    ENKeyServerInsertion(key: $0, exportableAt: arrival, origin: $1)
                },
                revising: [])
            let stored = try await store.storedKeys(withKeyData: keys.map(\.keyData))
            #expect(stored.map(\.origin) == Self.origins)

            let signingKey = try P256SigningKey()
            let exporter = ENKeyServerExporter(
                storage: store,
                configuration: ENKeyServerConfiguration(
                    region: "US", signers: [ENExportSigner(signingKey: signingKey, keyID: "310", keyVersion: "v1")],
                    padding: nil, selection: selection),
                clock: { clock.now })
            let files = try await exporter.publish()
            let exported = try files.flatMap { try contents(of: $0).keys }
            #expect(sorted(exported) == sorted(want.map { keys[$0] }))
            // Every key was handled by the batch: the next run exports nothing more.
            clock.advance(by: 3600)
            #expect(try await exporter.publish().flatMap { try contents(of: $0).keys }.isEmpty)
        }
    }

    @Test("a revision's regions are stored and select the revised key", arguments: StorageKind.available)
    func revisionRegionsSelectTheRevisedKey(kind: StorageKind) async throws {
        let clock = TestClock()
        try await kind.with(clock: clock) { stores in
            let store = stores[0]
            let key = makeKey(1, start: today.adding(-144), reportType: .confirmedClinicalDiagnosis)
            let other = makeKey(2, start: today.adding(-144), reportType: .confirmedClinicalDiagnosis)
            _ = try await store.insertAndRevise(
                inserting: [
                    ENKeyServerInsertion(
                        key: key, exportableAt: referenceDate.addingTimeInterval(-7200),
                        origin: ENKeyServerKeyOrigin(regions: ["US"], traveler: true)),
                    ENKeyServerInsertion(
                        key: other, exportableAt: referenceDate.addingTimeInterval(-7200),
                        origin: ENKeyServerKeyOrigin(regions: ["US"])),
                ], revising: [])
            let revisedAt = referenceDate.addingTimeInterval(-3600)
            _ = try await store.insertAndRevise(
                inserting: [],
                revising: [
                    ENKeyServerRevision(
                        keyData: key.keyData, reportType: .confirmedTest, daysSinceOnsetOfSymptoms: 0,
                        revisedAt: revisedAt, regions: ["US", "CA"]),
                    ENKeyServerRevision(
                        keyData: other.keyData, reportType: .confirmedTest, daysSinceOnsetOfSymptoms: 0,
                        revisedAt: revisedAt),
                ])
            let stored = try await store.storedKeys(withKeyData: [key.keyData, other.keyData])
            #expect(
                stored.map(\.origin) == [
                    ENKeyServerKeyOrigin(regions: ["US", "CA"], traveler: true), ENKeyServerKeyOrigin(regions: ["US"]),
                ])

            let exporter = ENKeyServerExporter(
                storage: store,
                configuration: ENKeyServerConfiguration(
                    region: "CA",
                    signers: [ENExportSigner(signingKey: try P256SigningKey(), keyID: "302", keyVersion: "v1")],
                    padding: nil),
                clock: { clock.now })
            let files = try await exporter.publish()
            let read = try files.map { try contents(of: $0) }
            #expect(read.flatMap(\.keys).map(\.keyData) == [key.keyData])
            #expect(read.flatMap(\.revised).map(\.keyData) == [key.keyData])
        }
    }
}
