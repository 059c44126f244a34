/// One receiver seeing one transmitter's key(s): what really happened and what the phone measured.
public struct ENLabelledEncounter: Hashable, Sendable {
    /// The encounter's name in results and error messages, unique in its set.
    public var id: String
    /// What really happened.
    public var groundTruth: ENGroundTruth
    /// The transmitter's key metadata, as far as the data give it.
    public var keyMetadata: ENKeyMetadata
    /// What the receiver measured.
    public var observation: ENObservation

    /// Creates an encounter.
    public init(
        id: String, groundTruth: ENGroundTruth, keyMetadata: ENKeyMetadata = ENKeyMetadata(),
        observation: ENObservation
    ) {
        self.id = id
        self.groundTruth = groundTruth
        self.keyMetadata = keyMetadata
        self.observation = observation
    }
}
