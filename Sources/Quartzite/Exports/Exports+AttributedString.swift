import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel
import QuartziteRender

// CFAttributedString with Apple's names (CFAttributedString.h). Strings are
// UTF-8 `const char *` (invalid sequences read as U+FFFD); positions and
// lengths count UTF-16 code units, as Apple's do. A range outside the
// string is QZErrorOutOfRange and leaves the string unchanged. Attribute
// values are Quartzite handles (CFTypeRef): a CTFontRef, a CGColorRef, or a
// CAValueRef (numbers, booleans, ...). Release with CARelease. The text
// domain (Text/AttributedText.swift) keeps the runs.
//
// Threads: any thread; each call holds the text lock, so a mutable string
// changed on one thread is seen whole by another.

/// The attributed string behind a handle, under the text lock.
@inline(__always)
func withAttributedText<R>(_ s: QZCFAttributedStringRef?, _ fallback: R, _ function: StaticString = #function,
                           _ body: (AttributedText) -> R) -> R {
    withObject(s, as: AttributedText.self, fallback: fallback, function) { t in withTextLock { body(t) } }
}

/// A mutable attributed string's change, or an error for immutable ones.
@inline(__always)
func changeAttributedText(_ s: QZCFMutableAttributedStringRef?, _ function: StaticString, _ body: (AttributedText) -> Void) {
    withAttributedText(s, (), function) { t in
        guard t.isMutable else {
            recordError(QZErrorInvalidArgument, function, "the attributed string is not mutable (make it with CFAttributedStringCreateMutable)")
            return
        }
        body(t)
    }
}

/// True when `range` lies inside `t`; otherwise records QZErrorOutOfRange.
func checkTextRange(_ range: CFRange, _ t: AttributedText, _ function: StaticString) -> Bool {
    if t.contains(range) { return true }
    recordError(QZErrorOutOfRange, function,
                "the range {\(range.location), \(range.length)} is outside the string of length \(t.length) (UTF-16 units)")
    return false
}

/// An attribute value from a handle, checked against what Core Text reads
/// under `name`; nil (with an error) when it cannot be used.
func attributeValue(_ name: String, _ value: UnsafeRawPointer?, _ function: StaticString) -> QZObject? {
    guard let o = anyObject(value, function) else { return nil }
    func wrong(_ expected: String) -> QZObject? {
        recordError(QZErrorWrongType, function, "\(name) takes \(expected)")
        return nil
    }
    switch name {
    case TextAttributeName.font:
        if o is Font { return o }
        if let v = o as? Value, case .object(let f as Font) = v.storage { return f }
        return wrong("a CTFontRef")
    case TextAttributeName.foregroundColor, TextAttributeName.underlineColor:
        if o is Color { return o }
        if let v = o as? Value, case .color(let c) = v.storage { return c }
        return wrong("a CGColorRef")
    case TextAttributeName.underlineStyle, TextAttributeName.kern, TextAttributeName.ligature,
         TextAttributeName.foregroundColorFromContext:
        if let v = o as? Value, let n = v.number {
            guard n.isFinite else {
                recordError(QZErrorNotFinite, function, "\(name) must be finite, got \(n)")
                return nil
            }
            return v
        }
        return wrong("a number value")
    default:
        return o
    }
}

/// Attributes from a dictionary value (names to handles wrapped as object
/// values, colours, numbers); nil (with an error) when one cannot be used.
func textAttributes(_ dictionary: CAValueRef?, _ function: StaticString) -> TextAttributes? {
    var attributes = TextAttributes()
    guard let dictionary else { return attributes }
    guard let d = object(dictionary, as: Value.self, function) else { return nil }
    guard case .dictionary(let entries) = d.storage else {
        recordError(QZErrorWrongType, function, "the attributes must be a dictionary value")
        return nil
    }
    for (key, value) in zip(entries.keys, entries.values) {
        // Objects arrive wrapped in values (CAValueCreateWithObject): unwrap them.
        var handle: QZObject = value
        if case .object(let o) = value.storage { handle = o }
        guard let v = attributeValue(key.string, UnsafeRawPointer(Unmanaged.passUnretained(handle).toOpaque()), function) else {
            return nil
        }
        attributes[key.string] = v
    }
    return attributes
}

/// A string argument (NULL is an error); invalid UTF-8 becomes U+FFFD.
@inline(__always)
func textString(_ s: UnsafePointer<CChar>?, _ what: StaticString, _ function: StaticString) -> String? {
    requireString(s, what, function)
}

/// Apple's CFRangeMake (an inline function in Core Foundation; a plain
/// function here, so that FFI hosts can call it too).
@c public func CFRangeMake(_ location: CFIndex, _ length: CFIndex) -> CFRange {
    CFRange(location: location, length: length)
}

// MARK: - Creating

/// Creates an immutable attributed string of `str` (UTF-8; invalid
/// sequences become U+FFFD) with `attributes` (a dictionary value from
/// attribute names to values, or NULL) over all of it. `alloc` is ignored
/// (NULL). Returns +1, or NULL with QZErrorNullArgument or QZErrorWrongType.
@c public func CFAttributedStringCreate(_ alloc: QZCFAllocatorRef?, _ str: UnsafePointer<CChar>?,
                                        _ attributes: CAValueRef?) -> QZCFAttributedStringRef? {
    guard let s = textString(str, "str", #function), let a = textAttributes(attributes, #function) else { return nil }
    return retainedHandle(AttributedText(s, attributes: a, mutable: false))
}

/// Creates an empty mutable attributed string that may hold at most
/// `maxLength` UTF-16 units (0: no limit; negative is QZErrorOutOfRange). +1.
@c public func CFAttributedStringCreateMutable(_ alloc: QZCFAllocatorRef?, _ maxLength: CFIndex) -> QZCFMutableAttributedStringRef? {
    guard maxLength >= 0 else {
        recordError(QZErrorOutOfRange, #function, "maxLength must not be negative, got \(maxLength)")
        return nil
    }
    return retainedHandle(AttributedText("", mutable: true, maxLength: maxLength))
}

/// A mutable copy of `aStr` (its text and attributes), limited to
/// `maxLength` units (0: no limit; a string already longer is
/// QZErrorOutOfRange). +1.
@c public func CFAttributedStringCreateMutableCopy(_ alloc: QZCFAllocatorRef?, _ maxLength: CFIndex,
                                                   _ aStr: QZCFAttributedStringRef?) -> QZCFMutableAttributedStringRef? {
    withAttributedText(aStr, nil) { t in
        guard maxLength >= 0, maxLength == 0 || t.length <= maxLength else {
            recordError(QZErrorOutOfRange, #function, "maxLength \(maxLength) is negative or shorter than the string (\(t.length))")
            return nil
        }
        return retainedHandle(AttributedText(copyOf: t, mutable: true, maxLength: maxLength))
    }
}

/// An immutable copy of `aStr`. +1.
@c public func CFAttributedStringCreateCopy(_ alloc: QZCFAllocatorRef?, _ aStr: QZCFAttributedStringRef?) -> QZCFAttributedStringRef? {
    withAttributedText(aStr, nil) { t in retainedHandle(AttributedText(copyOf: t, mutable: false)) }
}

// MARK: - Reading

/// The length in UTF-16 code units (0 for NULL, with an error).
@c public func CFAttributedStringGetLength(_ aStr: QZCFAttributedStringRef?) -> CFIndex {
    withAttributedText(aStr, 0) { $0.length }
}

/// The text as UTF-8 (unpaired surrogates read as U+FFFD). Borrowed: valid
/// until the string next changes or is released.
@c public func CFAttributedStringGetString(_ aStr: QZCFAttributedStringRef?) -> UnsafePointer<CChar>? {
    withAttributedText(aStr, nil) { UnsafePointer($0.cString.pointer) }
}

/// The value of attribute `attrName` at `loc` (borrowed; NULL when the run
/// there has none), and in `effectiveRange` (may be NULL) the range of the
/// run holding it. A location outside the string is QZErrorOutOfRange.
@c public func CFAttributedStringGetAttribute(_ aStr: QZCFAttributedStringRef?, _ loc: CFIndex,
                                              _ attrName: UnsafePointer<CChar>?,
                                              _ effectiveRange: UnsafeMutablePointer<CFRange>?) -> UnsafeRawPointer? {
    guard let name = requireString(attrName, "attrName", #function) else { return nil }
    return withAttributedText(aStr, nil) { t in
        guard let (attributes, range) = t.attributes(at: loc) else {
            recordError(QZErrorOutOfRange, #function, "location \(loc) is outside the string of length \(t.length)")
            return nil
        }
        effectiveRange?.pointee = range
        return attributes[name].map { UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()) }
    }
}

// MARK: - Changing (mutable strings)

/// Replaces the units in `range` with `replacement` (UTF-8); the new text
/// takes the attributes of the first replaced unit (for an insertion, of
/// the unit before it). QZErrorOutOfRange for a range outside the string or
/// a result longer than the string's maxLength (the string is unchanged).
@c public func CFAttributedStringReplaceString(_ aStr: QZCFMutableAttributedStringRef?, _ range: CFRange,
                                               _ replacement: UnsafePointer<CChar>?) {
    guard let r = textString(replacement, "replacement", #function) else { return }
    changeAttributedText(aStr, #function) { t in
        guard checkTextRange(range, t, #function) else { return }
        let newLength = t.length - range.length + r.utf16.count
        guard t.maxLength == 0 || newLength <= t.maxLength else {
            recordError(QZErrorOutOfRange, #function, "the result (\(newLength) units) would exceed maxLength \(t.maxLength)")
            return
        }
        t.replace(range, with: r)
    }
}

/// Sets attribute `attrName` to `value` over `range`. The value must suit
/// the name (kCTFontAttributeName a CTFontRef, kCTForegroundColorAttributeName
/// a CGColorRef, kCTUnderlineStyleAttributeName and kCTKernAttributeName
/// number values; QZErrorWrongType otherwise); other names take any handle.
/// A range outside the string is QZErrorOutOfRange and changes nothing.
@c public func CFAttributedStringSetAttribute(_ aStr: QZCFMutableAttributedStringRef?, _ range: CFRange,
                                              _ attrName: UnsafePointer<CChar>?, _ value: UnsafeRawPointer?) {
    guard let name = requireString(attrName, "attrName", #function) else { return }
    guard let v = attributeValue(name, value, #function) else { return }
    changeAttributedText(aStr, #function) { t in
        guard checkTextRange(range, t, #function) else { return }
        t.modifyAttributes(in: range) { $0[name] = v }
    }
}

/// Sets the attributes of a dictionary value over `range`; with
/// `clearOtherAttributes`, the range keeps no others.
@c public func CFAttributedStringSetAttributes(_ aStr: QZCFMutableAttributedStringRef?, _ range: CFRange,
                                               _ replacement: CAValueRef?, _ clearOtherAttributes: Bool) {
    guard let a = textAttributes(replacement, #function) else { return }
    changeAttributedText(aStr, #function) { t in
        guard checkTextRange(range, t, #function) else { return }
        t.modifyAttributes(in: range) { existing in
            if clearOtherAttributes { existing = TextAttributes() }
            for (name, value) in a.entries { existing[name] = value }
        }
    }
}

/// Removes attribute `attrName` over `range`.
@c public func CFAttributedStringRemoveAttribute(_ aStr: QZCFMutableAttributedStringRef?, _ range: CFRange,
                                                 _ attrName: UnsafePointer<CChar>?) {
    guard let name = requireString(attrName, "attrName", #function) else { return }
    changeAttributedText(aStr, #function) { t in
        guard checkTextRange(range, t, #function) else { return }
        t.modifyAttributes(in: range) { $0[name] = nil }
    }
}

/// Apple's batching hint: changes take effect at once here, so it only checks the handle.
@c public func CFAttributedStringBeginEditing(_ aStr: QZCFMutableAttributedStringRef?) {
    changeAttributedText(aStr, #function) { _ in }
}

/// Ends CFAttributedStringBeginEditing (nothing is deferred).
@c public func CFAttributedStringEndEditing(_ aStr: QZCFMutableAttributedStringRef?) {
    changeAttributedText(aStr, #function) { _ in }
}
