import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel
import QuartziteRender

// CAValueRef: immutable boxed values (Objective-C's `id`). Constructors return
// +1 (release with CARelease); readers return borrowed results. Reading a value
// as the wrong type records QZErrorWrongType and returns a zero value.
//
// Threads: values are immutable, so any thread may create, read and release
// them, and share them between threads.

@inline(__always)
func newValue(_ storage: Value.Storage) -> CAValueRef {
    retainedHandle(Value(storage))
}

@inline(never)
func wrongValueType(_ v: Value, _ wanted: String, _ function: StaticString) {
    recordError(QZErrorWrongType, function, "value holds \(withArticle(valueTypeName(v.type))), not \(withArticle(wanted))")
}

// MARK: - Constructors

/// Creates a number value. Any double is accepted (NaN and infinities too, as
/// NSNumber does; properties judge values when they are set). Returns +1.
@c public func CAValueCreateNumber(_ number: Double) -> CAValueRef? {
    newValue(.number(number))
}

/// Creates a boolean value. Returns +1.
@c public func CAValueCreateBool(_ flag: Bool) -> CAValueRef? {
    newValue(.bool(flag))
}

/// Creates a point value; NaN records QZErrorNotFinite and returns NULL. Returns +1.
@c public func CAValueCreatePoint(_ point: CGPoint) -> CAValueRef? {
    checkPoint(point, #function) ? newValue(.point(point)) : nil
}

/// Creates a size value; NaN records QZErrorNotFinite and returns NULL. Returns +1.
@c public func CAValueCreateSize(_ size: CGSize) -> CAValueRef? {
    checkSize(size, #function) ? newValue(.size(size)) : nil
}

/// Creates a rect value (the null and infinite rectangles are allowed; NaN is
/// not). Returns +1.
@c public func CAValueCreateRect(_ rect: CGRect) -> CAValueRef? {
    checkRect(rect, #function) ? newValue(.rect(rect)) : nil
}

/// Creates an affine-transform value; non-finite entries record
/// QZErrorNotFinite and return NULL. Returns +1.
@c public func CAValueCreateAffineTransform(_ t: CGAffineTransform) -> CAValueRef? {
    checkAffine(t, #function) ? newValue(.affineTransform(t)) : nil
}

/// Creates a 3D-transform value; non-finite entries record QZErrorNotFinite
/// and return NULL. Returns +1.
@c public func CAValueCreateTransform3D(_ t: CATransform3D) -> CAValueRef? {
    checkTransform(t, #function) ? newValue(.transform3D(t)) : nil
}

/// Creates a colour value holding a reference to `color`. Returns +1.
@c public func CAValueCreateColor(_ color: QZCGColorRef?) -> CAValueRef? {
    guard let c = object(color, as: Color.self) else { return nil }
    return newValue(.color(c))
}

/// Creates a string value from UTF-8 text (copied). Returns +1.
@c public func CAValueCreateString(_ string: UnsafePointer<CChar>?) -> CAValueRef? {
    guard let s = requireString(string, "string", #function) else { return nil }
    return newValue(.string(CString(s)))
}

/// Creates an array of `count` values (each retained). NULL items are an
/// error (use CAValueGetNull() for a null entry). Returns +1.
@c public func CAValueCreateArray(_ items: UnsafePointer<CAValueRef?>?, _ count: size_t) -> CAValueRef? {
    guard let values = valueList(items, count, "items", #function) else { return nil }
    return newValue(.array(values))
}

/// Creates a dictionary from `count` UTF-8 keys and values (keys copied, values
/// retained). A repeated key keeps the last value. Returns +1.
@c public func CAValueCreateDictionary(_ keys: UnsafePointer<UnsafePointer<CChar>?>?, _ values: UnsafePointer<CAValueRef?>?, _ count: size_t) -> CAValueRef? {
    guard let items = valueList(values, count, "values", #function) else { return nil }
    var dictionary = ValueDictionary()
    if count > 0 {
        guard let keys else {
            recordError(QZErrorNullArgument, #function, "keys is NULL")
            return nil
        }
        for i in 0..<count {
            guard let key = keys[i] else {
                recordError(QZErrorNullArgument, #function, "keys[\(i)] is NULL")
                return nil
            }
            dictionary.set(items[i], for: String(cString: key))
        }
    }
    return newValue(.dictionary(dictionary))
}

func valueList(_ items: UnsafePointer<CAValueRef?>?, _ count: Int, _ what: String, _ function: StaticString) -> [Value]? {
    guard count >= 0, count <= 1 << 40 else {
        recordError(QZErrorOutOfRange, function, "count \(count) is out of range")
        return nil
    }
    if count == 0 { return [] }
    guard let items else {
        recordError(QZErrorNullArgument, function, "\(what) is NULL but count is \(count)")
        return nil
    }
    var values: [Value] = []
    values.reserveCapacity(count)
    for i in 0..<count {
        guard let item = items[i] else {
            recordError(QZErrorNullArgument, function, "\(what)[\(i)] is NULL")
            return nil
        }
        guard let v = object(item, as: Value.self, function) else { return nil }
        values.append(v)
    }
    return values
}

/// Wraps any Quartzite object (layer, animation, timing function, path, pixel
/// buffer, ...) as a value, holding a reference to it. A CGColorRef becomes a
/// colour value; a CAValueRef is returned with an extra reference. Returns +1.
@c public func CAValueCreateWithObject(_ object: UnsafeRawPointer?) -> CAValueRef? {
    guard let o = anyObject(object) else { return nil }
    if let v = o as? Value { return retainedHandle(v) }
    if let c = o as? Color { return newValue(.color(c)) }
    return newValue(.object(o))
}

/// Returns the shared null value (NSNull). Borrowed: never freed.
@c public func CAValueGetNull() -> CAValueRef? {
    borrowedHandle(Value.null)
}

// MARK: - Readers

/// Returns what the value holds.
@c public func CAValueGetType(_ value: CAValueRef?) -> CAValueType {
    withObject(value, as: Value.self, fallback: CAValueTypeNull) { $0.type }
}

/// Returns a number (a boolean reads as 0 or 1); 0 for other types, with QZErrorWrongType.
@c public func CAValueGetNumber(_ value: CAValueRef?) -> Double {
    withObject(value, as: Value.self, fallback: 0) { v in
        switch v.storage {
        case .number(let x): return x
        case .bool(let b): return b ? 1 : 0
        default:
            wrongValueType(v, "number", #function)
            return 0
        }
    }
}

/// Returns a boolean (a number reads as true when non-zero).
@c public func CAValueGetBool(_ value: CAValueRef?) -> Bool {
    withObject(value, as: Value.self, fallback: false) { v in
        guard let x = v.number else { wrongValueType(v, "bool", #function); return false }
        return x != 0
    }
}

/// Returns a point value's point (CGPointZero for other types).
@c public func CAValueGetPoint(_ value: CAValueRef?) -> CGPoint {
    guard let v = object(value, as: Value.self) else { return CGPoint(x: 0, y: 0) }
    if case .point(let p) = v.storage { return p }
    wrongValueType(v, "point", #function)
    return CGPoint(x: 0, y: 0)
}

/// Returns a size value's size (CGSizeZero for other types).
@c public func CAValueGetSize(_ value: CAValueRef?) -> CGSize {
    guard let v = object(value, as: Value.self) else { return CGSize(width: 0, height: 0) }
    if case .size(let s) = v.storage { return s }
    wrongValueType(v, "size", #function)
    return CGSize(width: 0, height: 0)
}

/// Returns a rect value's rectangle (CGRectZero for other types).
@c public func CAValueGetRect(_ value: CAValueRef?) -> CGRect {
    guard let v = object(value, as: Value.self) else { return .zero }
    if case .rect(let r) = v.storage { return r }
    wrongValueType(v, "rect", #function)
    return .zero
}

/// Returns an affine-transform value's transform (the identity for other types).
@c public func CAValueGetAffineTransform(_ value: CAValueRef?) -> CGAffineTransform {
    guard let v = object(value, as: Value.self) else { return .identity }
    if case .affineTransform(let t) = v.storage { return t }
    wrongValueType(v, "affine transform", #function)
    return .identity
}

/// Returns a 3D-transform value's transform; an affine-transform value is
/// widened (as CATransform3DMakeAffineTransform does). The identity for other types.
@c public func CAValueGetTransform3D(_ value: CAValueRef?) -> CATransform3D {
    guard let v = object(value, as: Value.self) else { return .identity }
    if case .transform3D(let t) = v.storage { return t }
    if case .affineTransform(let t) = v.storage { return CATransform3D(affine: t) }
    wrongValueType(v, "3D transform", #function)
    return .identity
}

/// Returns a colour value's colour. Borrowed: valid while the value lives.
@c public func CAValueGetColor(_ value: CAValueRef?) -> QZCGColorRef? {
    guard let v = object(value, as: Value.self) else { return nil }
    if case .color(let c) = v.storage { return borrowedHandle(c) }
    wrongValueType(v, "color", #function)
    return nil
}

/// Returns a string value's UTF-8 text. Borrowed: valid while the value lives.
@c public func CAValueGetString(_ value: CAValueRef?) -> UnsafePointer<CChar>? {
    guard let v = object(value, as: Value.self) else { return nil }
    if case .string(let s) = v.storage { return UnsafePointer(s.pointer) }
    wrongValueType(v, "string", #function)
    return nil
}

/// Returns the number of items of an array or entries of a dictionary; 0 with
/// QZErrorWrongType for other types.
@c public func CAValueGetCount(_ value: CAValueRef?) -> size_t {
    guard let v = object(value, as: Value.self) else { return 0 }
    guard let n = v.count else { wrongValueType(v, "array or dictionary", #function); return 0 }
    return n
}

/// Returns item `index` of an array. Borrowed. An index outside 0..<count
/// records QZErrorOutOfRange and returns NULL.
@c public func CAValueGetArrayItem(_ value: CAValueRef?, _ index: size_t) -> CAValueRef? {
    guard let v = object(value, as: Value.self) else { return nil }
    guard case .array(let items) = v.storage else { wrongValueType(v, "array", #function); return nil }
    guard index >= 0, index < items.count else {
        recordError(QZErrorOutOfRange, #function, "index \(index) is outside 0..<\(items.count)")
        return nil
    }
    return borrowedHandle(items[index])
}

/// Returns the value stored under `key` in a dictionary, or NULL (no error)
/// when the key is absent. Borrowed.
@c public func CAValueGetDictionaryItem(_ value: CAValueRef?, _ key: UnsafePointer<CChar>?) -> CAValueRef? {
    guard let v = object(value, as: Value.self) else { return nil }
    guard case .dictionary(let d) = v.storage else { wrongValueType(v, "dictionary", #function); return nil }
    guard let k = requireString(key, "key", #function) else { return nil }
    return d[k].map(borrowedHandle)
}

/// Returns the key of entry `index` of a dictionary, in insertion order, for
/// iterating. Borrowed: valid while the value lives.
@c public func CAValueGetDictionaryKeyAtIndex(_ value: CAValueRef?, _ index: size_t) -> UnsafePointer<CChar>? {
    guard let v = object(value, as: Value.self) else { return nil }
    guard case .dictionary(let d) = v.storage else { wrongValueType(v, "dictionary", #function); return nil }
    guard index >= 0, index < d.count else {
        recordError(QZErrorOutOfRange, #function, "index \(index) is outside 0..<\(d.count)")
        return nil
    }
    return UnsafePointer(d.keys[index].pointer)
}

/// Returns the object an object value (or colour value) wraps. Borrowed.
@c public func CAValueGetObject(_ value: CAValueRef?) -> UnsafeMutableRawPointer? {
    guard let v = object(value, as: Value.self) else { return nil }
    switch v.storage {
    case .object(let o): return Unmanaged.passUnretained(o).toOpaque()
    case .color(let c): return Unmanaged.passUnretained(c).toOpaque()
    default:
        wrongValueType(v, "object", #function)
        return nil
    }
}

/// True when the values are equal as -isEqual: decides (deep for collections;
/// numbers and booleans compare by value; objects by identity). NULL records
/// QZErrorNullArgument and returns false.
@c public func CAValueEqual(_ a: CAValueRef?, _ b: CAValueRef?) -> Bool {
    guard let x = object(a, as: Value.self), let y = object(b, as: Value.self) else { return false }
    return x.isEqual(to: y)
}
