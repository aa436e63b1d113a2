import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel
import QuartziteRender

// What the layer exports share: reaching a layer behind a handle under the
// model lock, changing a declared property inside the calling thread's
// transaction, and converting property arguments. No exports of its own.

/// A colour argument as a value: (true, nil) for NULL, (false, nil) for a
/// handle of the wrong type (error recorded).
func colorValue(_ color: QZCGColorRef?, _ function: StaticString) -> (ok: Bool, value: Value?) {
    guard let color else { return (true, nil) }
    guard let c = object(color, as: Color.self, function) else { return (false, nil) }
    return (true, Value(.color(c)))
}

/// A constant-string argument as a value, or nil (with an error) for NULL.
func constantValue(_ s: UnsafePointer<CChar>?, _ function: StaticString) -> Value? {
    requireString(s, "value", function).map { Value(string: $0) }
}

/// A colour as a borrowed handle (+0), or NULL.
func borrowedColor(_ c: Color?) -> QZCGColorRef? { c.map(borrowedHandle) }

/// A value for an `id` text property: a CAValueRef as given, or another
/// handle (an attributed string, a font) wrapped in an object value.
func textPropertyValue(_ handle: CAValueRef?, _ function: StaticString) -> (ok: Bool, value: Value?) {
    guard let handle else { return (true, nil) }
    guard let o = anyObject(UnsafeRawPointer(handle), function) else { return (false, nil) }
    if let v = o as? Value { return (true, v) }
    if o is AttributedText || o is Font { return (true, Value(.object(o))) }
    recordError(QZErrorWrongType, function, "expected a CAValueRef, a CFAttributedStringRef or a CTFontRef")
    return (false, nil)
}
