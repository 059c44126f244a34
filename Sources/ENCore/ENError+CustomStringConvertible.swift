extension ENError: CustomStringConvertible {
    /// `ENError.badFormat: <reason>`.
    public var description: String { "ENError.\(code): \(reason)" }
}

extension ENError.Code: CustomStringConvertible {
    /// Apple's name of the code, for example `badFormat`, or `code(N)` for a value Apple does not define.
    public var description: String {
        switch rawValue {
        case 1: "unknown"
        case 2: "badParameter"
        case 3: "notEntitled"
        case 4: "notAuthorized"
        case 5: "unsupported"
        case 6: "invalidated"
        case 7: "bluetoothOff"
        case 8: "insufficientStorage"
        case 9: "notEnabled"
        case 10: "apiMisuse"
        case 11: "internal"
        case 12: "insufficientMemory"
        case 13: "rateLimited"
        case 14: "restricted"
        case 15: "badFormat"
        case 16: "dataInaccessible"
        case 17: "travelStatusNotAvailable"
        default: "code(\(rawValue))"
        }
    }
}
