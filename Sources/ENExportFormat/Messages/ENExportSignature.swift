public import Foundation

/// One signature of an export file: a `TEKSignature` message from `export.sig`.
public struct ENExportSignature: Hashable, Sendable {
    /// Which key made the signature.
    public var signatureInfo: ENExportSignatureInfo?
    /// The batch number, which must match `export.bin` (1 in practice).
    public var batchNumber: Int?
    /// The batch size, which must match `export.bin` (1 in practice).
    public var batchSize: Int?
    /// The ECDSA signature over the whole `export.bin`, X9.62 DER (`SEQUENCE { INTEGER r, INTEGER s }`).
    public var signature: Data

    /// Creates a signature.
    public init(signatureInfo: ENExportSignatureInfo?, batchNumber: Int? = 1, batchSize: Int? = 1, signature: Data) {
        self.signatureInfo = signatureInfo
        self.batchNumber = batchNumber
        self.batchSize = batchSize
        self.signature = signature
    }
}
