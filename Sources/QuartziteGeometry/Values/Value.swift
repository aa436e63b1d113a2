import CQuartzite
import QuartziteCore

/// An immutable boxed value: Objective-C's `id` as Quartzite passes it through C
/// (CAValueRef). Collections hold values; dictionaries keep insertion order.
public final class Value: QZObject, Handle {
    public enum Storage {
        case null
        case number(Double)
        case bool(Bool)
        case point(CGPoint)
        case size(CGSize)
        case rect(CGRect)
        case affineTransform(CGAffineTransform)
        indirect case transform3D(CATransform3D)
        case color(Color)
        case string(CString)
        case array([Value])
        case dictionary(ValueDictionary)
        case object(QZObject)
    }

    public let storage: Storage

    public init(_ storage: Storage) {
        self.storage = storage
        super.init(kind: .value)
    }

    public convenience init(string: String) { self.init(.string(CString(string))) }

    /// The shared null value (NSNull).
    public static let null = Value(.null)

    @inlinable package static var handleKind: ObjectKind { .value }
    @inlinable package static func accepts(_ tag: UInt32) -> Bool { tag == tagMagic | UInt32(ObjectKind.value.rawValue) }

    @inlinable public var type: CAValueType {
        switch storage {
        case .null: return CAValueTypeNull
        case .number: return CAValueTypeNumber
        case .bool: return CAValueTypeBool
        case .point: return CAValueTypePoint
        case .size: return CAValueTypeSize
        case .rect: return CAValueTypeRect
        case .affineTransform: return CAValueTypeAffineTransform
        case .transform3D: return CAValueTypeTransform3D
        case .color: return CAValueTypeColor
        case .string: return CAValueTypeString
        case .array: return CAValueTypeArray
        case .dictionary: return CAValueTypeDictionary
        case .object: return CAValueTypeObject
        }
    }

    /// Numbers and booleans both read as numbers, as NSNumber does.
    @inlinable public var number: Double? {
        switch storage {
        case .number(let x): return x
        case .bool(let b): return b ? 1 : 0
        default: return nil
        }
    }

    public var string: String? {
        if case .string(let s) = storage { return s.string }
        return nil
    }

    public var count: Int? {
        switch storage {
        case .array(let items): return items.count
        case .dictionary(let d): return d.count
        default: return nil
        }
    }

    /// Deep equality as -isEqual: does it: numbers and booleans compare by
    /// value, colours by space and components, objects by identity.
    public func isEqual(to other: Value) -> Bool {
        if self === other { return true }
        switch (storage, other.storage) {
        case (.null, .null): return true
        case (.number, .number), (.number, .bool), (.bool, .number), (.bool, .bool):
            return number! == other.number!
        case let (.point(a), .point(b)): return a.x == b.x && a.y == b.y
        case let (.size(a), .size(b)): return a.width == b.width && a.height == b.height
        case let (.rect(a), .rect(b)):
            return a.origin.x == b.origin.x && a.origin.y == b.origin.y
                && a.size.width == b.size.width && a.size.height == b.size.height
        case let (.affineTransform(a), .affineTransform(b)): return a.isEqual(to: b)
        case let (.transform3D(a), .transform3D(b)): return a.isEqual(to: b)
        case let (.color(a), .color(b)): return a.isEqual(to: b)
        case let (.string(a), .string(b)): return a.string == b.string
        case let (.array(a), .array(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.isEqual(to: $1) }
        case let (.dictionary(a), .dictionary(b)):
            guard a.count == b.count else { return false }
            for (key, value) in zip(a.keys, a.values) {
                guard let v = b[key.string], v.isEqual(to: value) else { return false }
            }
            return true
        case let (.object(a), .object(b)): return a === b
        default: return false
        }
    }
}

/// A NUL-terminated UTF-8 copy whose pointer stays valid for the owner's life,
/// so getters can return a borrowed `const char *`.
public final class CString {
    public let string: String
    public let pointer: UnsafeMutablePointer<CChar>

    public init(_ string: String) {
        self.string = string
        let utf8 = Array(string.utf8)
        pointer = .allocate(capacity: utf8.count + 1)
        for (i, byte) in utf8.enumerated() { pointer[i] = CChar(bitPattern: byte) }
        pointer[utf8.count] = 0
    }

    deinit { pointer.deallocate() }
}

/// String-keyed, insertion-ordered; a repeated key keeps its first position
/// and its last value.
public struct ValueDictionary {
    public private(set) var keys: [CString] = []
    public private(set) var values: [Value] = []
    private var index: [String: Int] = [:]

    public init() {}

    public var count: Int { keys.count }

    public subscript(key: String) -> Value? {
        get { index[key].map { values[$0] } }
    }

    public mutating func set(_ value: Value, for key: String) {
        if let i = index[key] {
            values[i] = value
        } else {
            index[key] = keys.count
            keys.append(CString(key))
            values.append(value)
        }
    }
}

package func withArticle(_ noun: String) -> String {
    (noun.first.map { "aeiou".contains($0) } ?? false ? "an " : "a ") + noun
}

package func valueTypeName(_ t: CAValueType) -> String {
    switch t {
    case CAValueTypeNull: return "null"
    case CAValueTypeNumber: return "number"
    case CAValueTypeBool: return "bool"
    case CAValueTypePoint: return "point"
    case CAValueTypeSize: return "size"
    case CAValueTypeRect: return "rect"
    case CAValueTypeAffineTransform: return "affine transform"
    case CAValueTypeTransform3D: return "3D transform"
    case CAValueTypeColor: return "color"
    case CAValueTypeString: return "string"
    case CAValueTypeArray: return "array"
    case CAValueTypeDictionary: return "dictionary"
    default: return "object"
    }
}

