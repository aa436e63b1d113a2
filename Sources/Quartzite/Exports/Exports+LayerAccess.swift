import CQuartzite

// What the layer exports share: reaching a layer behind a handle under the
// model lock, changing a declared property inside the calling thread's
// transaction, and converting property arguments. No exports of its own.

/// Reads a layer under the model lock without retaining it.
@inline(__always)
func readLayer<R>(_ layer: CALayerRef?, _ fallback: R, _ function: StaticString = #function, _ body: (Layer) -> R) -> R {
    withObject(layer, as: Layer.self, fallback: fallback, function) { l in withModelLock { body(l) } }
}

/// Changes a declared property under the model lock, then records it as set
/// and runs the change's side effects.
@inline(__always)
func changeLayer(_ layer: CALayerRef?, _ key: LayerKey, _ function: StaticString = #function, _ body: (Layer) -> Void) {
    withObject(layer, as: Layer.self, fallback: (), function) { l in
        withModelLock {
            l.transactionChange(key) {
                // (Two copies of the body: the common case keeps no value
                // from before and forms no closure.)
                if l.layerClass.hasNeedsDisplayForKey {
                    // The class redisplays for some keys: only a change of value marks it.
                    let before = l.storedValue(key)
                    body(l)
                    l.markSet(key)
                    l.redisplayIfChanged(key, from: before)
                } else {
                    body(l)
                    l.markSet(key)
                }
            }
        }
    }
}

/// Sets a declared property from a value (for setters that reuse the
/// key-value coding checks: constants, colours, objects).
@inline(__always)
func setLayerValue(_ layer: CALayerRef?, _ key: LayerKey, _ value: Value?, _ function: StaticString = #function) {
    withObject(layer, as: Layer.self, fallback: (), function) { l in
        withModelLock {
            guard l.declares(key) else {
                recordError(QZErrorWrongType, function, "\(key.name) belongs to another layer class than \(l.layerClass.name)")
                return
            }
            l.transactionChange(key) { l.setDeclared(key, value, function: function) }
        }
    }
}

/// Reads a declared property of a subclass, checking the layer's class.
@inline(__always)
func readSubclassLayer<R>(_ layer: CALayerRef?, _ kind: BuiltinLayerKind, _ fallback: R, _ function: StaticString = #function,
                          _ body: (Layer) -> R) -> R {
    readLayer(layer, fallback, function) { l in
        guard l.layerClass.builtin == kind else {
            recordError(QZErrorWrongType, function, "the layer is a \(l.layerClass.name), which does not declare this property")
            return fallback
        }
        return body(l)
    }
}

@inline(__always)
func optionalLayer(_ p: CALayerRef?, _ function: StaticString) -> (ok: Bool, layer: Layer?) {
    guard let p else { return (true, nil) }
    guard let l = object(p, as: Layer.self, function) else { return (false, nil) }
    return (true, l)
}

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
