import ENCore
import ENCrypto
import ENExportFormat
import ENKeyServer
import ENKeyServerSQLite
import ENTestSupport
import Foundation
import Testing

/// Several export configurations on one storage (`ENKeyServerExportGroup`), as Google's server runs several
/// `ExportConfig`s (`internal/export/model/export_model.go` `ExportConfig`; `batcher.go` cuts batches per config,
/// `worker.go` exports each batch with its config's regions and traveller options), on SQLite and PostgreSQL.
@Suite("Several export configurations")
struct ExportConfigurationsTests {
    /// The keys' origins: one key each.
    static let origins: [ENKeyServerKeyOrigin] = [
        ENKeyServerKeyOrigin(regions: ["US"]),  // 0
        ENKeyServerKeyOrigin(regions: ["US"], traveler: true),  // 1
        ENKeyServerKeyOrigin(regions: ["CA"]),  // 2
        ENKeyServerKeyOrigin(regions: ["MX"], traveler: true),  // 3
        ENKeyServerKeyOrigin(regions: ["EU"], traveler: true),  // 4
        ENKeyServerKeyOrigin(regions: ["US", "EU"]),  // 5
    ]

    /// The configurations: US with only non-travellers (the default configuration), CA with US as an input region
    /// and travellers, and CA again without EU's keys. What each selects, by `origins` index.
    static func configurations(
        signers: [ENExportSigner], directory: URL? = nil
    ) -> [(ENKeyServerConfiguration, [Int])] {
        [
            (
                ENKeyServerConfiguration(
                    region: "US", signers: [signers[0]], padding: nil, exportDirectory: directory, exportRoot: "us",
                    selection: ENExportSelection(onlyNonTravelers: true)),
                [0, 5]
            ),
            (
                ENKeyServerConfiguration(
                    region: "CA", signers: [signers[1]], padding: nil, exportDirectory: directory, exportRoot: "ca",
                    selection: ENExportSelection(inputRegions: ["CA", "US"], includesTravelers: true),
                    exportName: "ca"),
                [0, 1, 2, 3, 4, 5]
            ),
            (
                ENKeyServerConfiguration(
                    region: "CA", signers: [signers[1]], padding: nil, exportDirectory: directory,
                    exportRoot: "ca-no-eu",
                    selection: ENExportSelection(
                        inputRegions: ["CA", "US"], excludedRegions: ["EU"], includesTravelers: true),
                    exportName: "ca-no-eu"),
                [0, 1, 2, 3]
            ),
        ]
    }

    static func signers() throws -> [ENExportSigner] {
        [
            ENExportSigner(signingKey: try P256SigningKey(), keyID: "310", keyVersion: "v1"),
            ENExportSigner(signingKey: try P256SigningKey(), keyID: "302", keyVersion: "v1"),
        ]
    }

    /// Stores `keys` with `origins`, exportable from `arrival`.
    static func insert(
        _ keys: [ENTemporaryExposureKey], _ origins: [ENKeyServerKeyOrigin], into store: any ENKeyServerStorage,
        arrival: Date
    ) async throws {
        _ = try await store.insertAndRevise(
            inserting: zip(keys, origins).map { ENKeyServerInsertion(key: $0, exportableAt: arrival, origin: $1) },
            revising: [])
    }

    @Test(
        "each configuration's files carry what its selection selects, each key once, under its own root",
        arguments: StorageKind.available)
    func eachConfigurationExportsItsSelectionOnce(kind: StorageKind) async throws {
        let clock = TestClock()
        try await kind.with(clock: clock) { stores in
            let store = stores[0]
            let keys = Self.origins.indices.map { makeKey($0 + 1, start: today.adding(-144)) }
            try await Self.insert(keys, Self.origins, into: store, arrival: referenceDate.addingTimeInterval(-3600))
            let signers = try Self.signers()
            let setup = Self.configurations(signers: signers)
            let group = try ENKeyServerExportGroup(
                storage: store, configurations: setup.map(\.0), clock: { clock.now })
            let published = try await group.publish()
            for (configuration, want) in setup {
                let files = try #require(published[configuration.exportName])
                #expect(files.count == 1, "\(configuration.exportName)")
                let exported = try files.flatMap { try contents(of: $0).keys }
                #expect(sorted(exported) == sorted(want.map { keys[$0] }), "\(configuration.exportName)")
                for file in files {
                    let archive = try ENExportArchive(data: file.data)
                    #expect(try archive.keyExport().region == configuration.region)
                    let signer = configuration.signers[0]
                    let verifier = ENExportVerifier(trustedKeys: [
                        ENExportVerificationKey(
                            keyID: signer.signatureInfo.verificationKeyID ?? "",
                            keyVersion: signer.signatureInfo.verificationKeyVersion ?? "",
                            publicKey: try signer.signingKey.publicKey)
                    ])
                    #expect(try verifier.verify(archive).isVerified)
                    // Served by name from its own configuration, whose root prefixes its index.
                    let exporter = try #require(group.exporter(named: configuration.exportName))
                    #expect(try await exporter.file(named: file.name)?.data == file.data)
                    #expect(try await exporter.indexText() == "\(configuration.exportRoot)/\(file.name)")
                }
            }
            // The three configurations cut one window: the same file name, three different files.
            let names = Set(setup.compactMap { published[$0.0.exportName]?.first?.name })
            #expect(names.count == 1)
            // The default configuration is what the storage's default listing gives.
            #expect(try await store.exportFiles(startingAt: 0) == published[""])

            // Every key was handled by each configuration: the next run exports nothing more.
            clock.advance(by: 3600)
            #expect(try await group.publish().values.allSatisfy(\.isEmpty))

            // A new key goes into the next batch of every configuration that selects it, once.
            let late = makeKey(50, start: today.adding(-144))
            try await Self.insert(
                [late], [ENKeyServerKeyOrigin(regions: ["US"])], into: store, arrival: clock.now.addingTimeInterval(-60)
            )
            clock.advance(by: 3600)
            let next = try await group.publish()
            for (configuration, _) in setup {
                #expect(
                    try next[configuration.exportName, default: []].flatMap { try contents(of: $0).keys } == [late],
                    "\(configuration.exportName)")
            }
        }
    }

    /// A key committed after a batch read the keys (on PostgreSQL, commits land out of id order) has no export mark
    /// and is exported by the next batch of each configuration, however old its arrival.
    @Test(
        "a key stored late, dated before the last batch, goes into each configuration's next batch",
        arguments: StorageKind.available)
    func aLateKeyIsStillExportedByEveryConfiguration(kind: StorageKind) async throws {
        let clock = TestClock()
        try await kind.with(clock: clock) { stores in
            let store = stores[0]
            let first = makeKey(1, start: today.adding(-144))
            try await Self.insert(
                [first], [ENKeyServerKeyOrigin(regions: ["US"])], into: store,
                arrival: referenceDate.addingTimeInterval(-3600))
            let setup = Self.configurations(signers: try Self.signers())
            let group = try ENKeyServerExportGroup(storage: store, configurations: setup.map(\.0), clock: { clock.now })
            #expect(try await group.publish().values.allSatisfy { $0.count == 1 })
            let late = makeKey(2, start: today.adding(-144))
            try await Self.insert(
                [late], [ENKeyServerKeyOrigin(regions: ["US"])], into: store,
                arrival: referenceDate.addingTimeInterval(-7200))
            clock.advance(by: 60)
            let next = try await group.publish()
            for (configuration, _) in setup {
                #expect(
                    try next[configuration.exportName, default: []].flatMap { try contents(of: $0).keys } == [late],
                    "\(configuration.exportName)")
            }
        }
    }

    @Test("a revision goes into each configuration's next batch once", arguments: StorageKind.available)
    func aRevisionReachesEveryConfigurationOnce(kind: StorageKind) async throws {
        let clock = TestClock()
        try await kind.with(clock: clock) { stores in
            let store = stores[0]
            let key = makeKey(1, start: today.adding(-144), reportType: .confirmedClinicalDiagnosis)
            try await Self.insert(
                [key], [ENKeyServerKeyOrigin(regions: ["US"])], into: store,
                arrival: referenceDate.addingTimeInterval(-3600))
            let setup = Self.configurations(signers: try Self.signers())
            let group = try ENKeyServerExportGroup(storage: store, configurations: setup.map(\.0), clock: { clock.now })
            _ = try await group.publish()
            clock.advance(by: 600)
            _ = try await store.insertAndRevise(
                inserting: [],
                revising: [
                    ENKeyServerRevision(
                        keyData: key.keyData, reportType: .confirmedTest, daysSinceOnsetOfSymptoms: 0,
                        revisedAt: clock.now.addingTimeInterval(-60))
                ])
            clock.advance(by: 600)
            let revised = try await group.publish()
            for (configuration, _) in setup {
                let read = try revised[configuration.exportName, default: []].map { try contents(of: $0) }
                #expect(read.flatMap(\.keys).isEmpty, "\(configuration.exportName)")
                #expect(read.flatMap(\.revised).map(\.keyData) == [key.keyData], "\(configuration.exportName)")
                #expect(read.flatMap(\.revised).map(\.diagnosisReportType) == [.confirmedTest])
            }
            clock.advance(by: 600)
            #expect(try await group.publish().values.allSatisfy(\.isEmpty))
        }
    }

    @Test(
        "retention drops every configuration's files in the storage and under each root, index.txt first",
        arguments: StorageKind.available)
    func retentionDropsEveryConfigurationsFiles(kind: StorageKind) async throws {
        let clock = TestClock()
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let folder = URL(fileURLWithPath: directory.path("export"))
        try await kind.with(clock: clock) { stores in
            let store = stores[0]
            let keys = Self.origins.indices.map { makeKey($0 + 1, start: today.adding(-144)) }
            try await Self.insert(keys, Self.origins, into: store, arrival: referenceDate.addingTimeInterval(-3600))
            let setup = Self.configurations(signers: try Self.signers(), directory: folder)
            let group = try ENKeyServerExportGroup(storage: store, configurations: setup.map(\.0), clock: { clock.now })
            let published = try await group.publish()
            for (configuration, _) in setup {
                let root = folder.appendingPathComponent(configuration.exportRoot)
                let file = try #require(published[configuration.exportName]?.first)
                #expect(try Data(contentsOf: root.appendingPathComponent(file.name)) == file.data)
                #expect(
                    try String(contentsOf: root.appendingPathComponent("index.txt"), encoding: .utf8)
                        == "\(configuration.exportRoot)/\(file.name)")
            }
            clock.advance(by: 15 * 86_400)
            #expect(try await group.deleteExpired() == keys.count)
            for (configuration, _) in setup {
                let root = folder.appendingPathComponent(configuration.exportRoot)
                let file = try #require(published[configuration.exportName]?.first)
                #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent(file.name).path))
                #expect(try String(contentsOf: root.appendingPathComponent("index.txt"), encoding: .utf8) == "")
                #expect(try await store.exportFile(of: configuration.exportName, named: file.name) == nil)
                #expect(try await group.exporter(named: configuration.exportName)?.indexText() == "")
            }
        }
    }

    /// Two instances (two stores on one database, each with its group and exporter name) publish at once: batches
    /// are claimed under leases per configuration, so each configuration still exports each key once.
    @Test("two instances exporting at once export each key once per configuration", arguments: StorageKind.available)
    func twoInstancesExportEachKeyOncePerConfiguration(kind: StorageKind) async throws {
        let clock = TestClock()
        try await kind.with(count: 2, clock: clock) { stores in
            let keys = Self.origins.indices.map { makeKey($0 + 1, start: today.adding(-144)) }
            try await Self.insert(
                keys, Self.origins, into: stores[0], arrival: referenceDate.addingTimeInterval(-3600))
            let setup = Self.configurations(signers: try Self.signers())
            let groups = try stores.map { store in
                try ENKeyServerExportGroup(storage: store, configurations: setup.map(\.0), clock: { clock.now })
            }
            let published = try await withThrowingTaskGroup(of: [String: [ENKeyServerFile]].self) { tasks in
                for group in groups { tasks.addTask { try await group.publish() } }
                return try await tasks.reduce(into: [:]) { $0.merge($1, uniquingKeysWith: +) }
            }
            for (configuration, want) in setup {
                let files = published[configuration.exportName, default: []]
                let exported = try files.flatMap { try contents(of: $0).keys }
                #expect(sorted(exported) == sorted(want.map { keys[$0] }), "\(configuration.exportName)")
                let stored = try await stores[1].exportFiles(of: configuration.exportName, startingAt: 0)
                #expect(stored.map(\.name).sorted() == files.map(\.name).sorted())
            }
        }
    }

    @Test func aGroupRefusesConfigurationsThatWouldCollide() throws {
        let signers = try Self.signers()
        let store = try ENKeyServerSQLiteStore()
        let base = Self.configurations(signers: signers).map(\.0)
        func refusal(_ configurations: [ENKeyServerConfiguration]) -> ENError? {
            #expect(throws: ENError.self) {
                _ = try ENKeyServerExportGroup(storage: store, configurations: configurations)
            }
        }
        var sameName = base[1]
        sameName.exportRoot = "other"
        #expect(refusal([base[0], base[1], sameName])?.context.field == "exportName")
        var sameRoot = base[1]
        sameRoot.exportName = "other"
        #expect(refusal([base[0], base[1], sameRoot])?.context.field == "exportRoot")
        var otherRetention = base[1]
        otherRetention.retention = 86_400
        #expect(refusal([base[0], otherRetention])?.context.field == "retention")
        var badName = base[1]
        badName.exportName = "ca/../us"
        let error = refusal([base[0], badName])
        #expect(error?.context.field == "exportName" && error?.context.index == 1)
        #expect(refusal([])?.code == .badParameter)
        #expect(try ENKeyServerExportGroup(storage: store, configurations: base).exporters.count == 3)
    }
}
