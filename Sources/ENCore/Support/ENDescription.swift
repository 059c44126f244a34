/// The one way the package's value types describe themselves (Apple's classes have `description`): the type's
/// name and its stored properties, `ENExposureInfo(duration: 300.0, ...)`, optional values unwrapped.
package enum ENDescription {
    /// `TypeName(label: value, ...)` of `value`'s stored properties, leaving out those named in `omitting`.
    package static func of(_ value: Any, omitting: Set<String> = []) -> String {
        let mirror = Mirror(reflecting: value)
        let fields = mirror.children.compactMap { child -> String? in
            guard let label = child.label, !omitting.contains(label) else { return nil }
            return "\(label): \(describe(child.value))"
        }
        return "\(mirror.subjectType)(\(fields.joined(separator: ", ")))"
    }

    private static func describe(_ value: Any) -> String {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return String(describing: value) }
        return mirror.children.first.map { String(describing: $0.value) } ?? "nil"
    }
}
