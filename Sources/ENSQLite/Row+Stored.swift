package import ENCore
package import GRDB

extension Row {
    /// The value of `column` as `Value`; `ENError.Code.badFormat` naming the column when the file holds NULL where a
    /// value is needed, or a value of another type (a damaged or hostile file), instead of GRDB's trap.
    package func stored<Value: DatabaseValueConvertible>(
        _ column: String, as type: Value.Type = Value.self
    ) throws(ENError) -> Value {
        do {
            return try decode(type, forColumn: column)
        } catch {
            throw ENError(
                .badFormat, "the stored \(column) does not read as \(Value.self): \(error)",
                context: .init(field: column))
        }
    }

    /// The value at column `index` as `Value`; `ENError.Code.badFormat` when it does not read as one.
    package func stored<Value: DatabaseValueConvertible>(
        at index: Int, as type: Value.Type = Value.self
    ) throws(ENError) -> Value {
        do {
            return try decode(type, atIndex: index)
        } catch {
            throw ENError(.badFormat, "the stored value \(index) of a row does not read as \(Value.self): \(error)")
        }
    }
}
