public import ENCore
public import Foundation
internal import SwiftProtobuf

extension ENExportSignature {
    /// Decodes an `export.sig`: a `TEKSignatureList` message.
    ///
    /// - Throws: `ENError.Code.badFormat` when the bytes are not a valid `TEKSignatureList`.
    public static func decodeList(_ signatureFile: Data) throws(ENError) -> [ENExportSignature] {
        let list: PB_TEKSignatureList
        do {
            list = try PB_TEKSignatureList(serializedBytes: signatureFile)
        } catch {
            throw .badFormat("export.sig is not a valid TEKSignatureList (\(error))")
        }
        return list.signatures.map { message in
            ENExportSignature(
                signatureInfo: message.hasSignatureInfo ? ENExportSignatureInfo(message: message.signatureInfo) : nil,
                batchNumber: message.hasBatchNum ? Int(message.batchNum) : nil,
                batchSize: message.hasBatchSize ? Int(message.batchSize) : nil,
                signature: message.signature
            )
        }
    }

    /// Encodes signatures as an `export.sig` (`TEKSignatureList`), in the given order.
    public static func encodeList(_ signatures: [ENExportSignature]) throws(ENError) -> Data {
        var list = PB_TEKSignatureList()
        list.signatures = signatures.map { signature in
            var message = PB_TEKSignature()
            if let info = signature.signatureInfo { message.signatureInfo = info.message }
            if let batchNumber = signature.batchNumber { message.batchNum = Int32(clamping: batchNumber) }
            if let batchSize = signature.batchSize { message.batchSize = Int32(clamping: batchSize) }
            message.signature = signature.signature
            return message
        }
        do {
            return try list.serializedBytes()
        } catch {
            throw .internal("cannot serialize TEKSignatureList (\(error))")
        }
    }
}
