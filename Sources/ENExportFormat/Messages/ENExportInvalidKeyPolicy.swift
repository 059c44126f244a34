/// What a streaming read does with a key whose values are invalid (a key of the wrong length, a rolling
/// period outside 1...144, a transmission risk outside 0...8, a field of the wrong type).
///
/// DESIGN's detection semantics ignore such a key with a logged reason; a strict reader refuses the file.
/// A broken file structure (a truncated message, a length past the end) always throws.
public enum ENExportInvalidKeyPolicy: Hashable, Sendable {
    /// Throw `ENError.Code.badFormat` naming the key and field (the default).
    case reject
    /// Leave the key out and record why (``ENExportKeyScanner/ChunkIterator/skippedKeyErrors``).
    case skip
}
