import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics

// Key-value coding on layers: declared properties by key, arbitrary custom
// keys, struct-field and transform key paths, nested dictionary key paths
// ("touchPoints.<id>.scale"), the style fallback and class defaults.
// Callers hold the model lock.

extension Value {
    /// The field at a struct key path (point x/y, size width/height, rect
    /// origin(.x/.y)/size(.width/.height), transform fields), or nil.
    package func field(_ path: [Substring]) -> Value? {
        guard let first = path.first else { return self }
        switch storage {
        case .point(let p):
            guard path.count == 1 else { return nil }
            return first == "x" ? Value(.number(p.x)) : first == "y" ? Value(.number(p.y)) : nil
        case .size(let s):
            guard path.count == 1 else { return nil }
            return first == "width" ? Value(.number(s.width)) : first == "height" ? Value(.number(s.height)) : nil
        case .rect(let r):
            if first == "origin" { return Value(.point(r.origin)).field(Array(path.dropFirst())) }
            if first == "size" { return Value(.size(r.size)).field(Array(path.dropFirst())) }
            return nil
        case .transform3D(let t):
            return t.value(atFieldPath: path)
        case .dictionary(let d):
            return d[String(first)]?.field(Array(path.dropFirst()))
        default:
            return nil
        }
    }

    /// A copy with the field at `path` replaced, or nil if the path does not
    /// exist in this value or `newValue` has the wrong type.
    package func setting(_ path: [Substring], to newValue: Value) -> Value? {
        guard let first = path.first else { return newValue }
        let rest = Array(path.dropFirst())
        func number() -> Double? { newValue.number.flatMap { $0.isFinite ? $0 : nil } }
        switch storage {
        case .point(var p):
            guard rest.isEmpty, let n = number() else { return nil }
            if first == "x" { p.x = n } else if first == "y" { p.y = n } else { return nil }
            return Value(.point(p))
        case .size(var s):
            guard rest.isEmpty, let n = number() else { return nil }
            if first == "width" { s.width = n } else if first == "height" { s.height = n } else { return nil }
            return Value(.size(s))
        case .rect(var r):
            if first == "origin", let v = Value(.point(r.origin)).setting(rest, to: newValue), case .point(let p) = v.storage {
                r.origin = p
                return Value(.rect(r))
            }
            if first == "size", let v = Value(.size(r.size)).setting(rest, to: newValue), case .size(let s) = v.storage {
                r.size = s
                return Value(.rect(r))
            }
            return nil
        case .transform3D(let t):
            return t.setting(fieldPath: path, to: newValue).map { Value(.transform3D($0)) }
        case .dictionary(var d):
            let key = String(first)
            if rest.isEmpty {
                d.set(newValue, for: key)
            } else {
                let child = d[key] ?? Value(.dictionary(ValueDictionary()))
                guard let updated = child.setting(rest, to: newValue) else { return nil }
                d.set(updated, for: key)
            }
            return Value(.dictionary(d))
        default:
            return nil
        }
    }
}

extension Layer {
    /// The declared key a name refers to on this layer, if any.
    @inline(__always)
    package func declaredKey(_ name: String) -> LayerKey? {
        guard let key = LayerKey.byName[name], declares(key) else { return nil }
        return key
    }

    /// Apple's valueForKey:. Declared properties; else the custom value; else
    /// the style dictionary; else the class's defaultValueForKey.
    public func value(forKey key: String) -> Value? {
        if let declared = declaredKey(key) { return declaredValue(declared) }
        if let v = custom?.values[key] { return v }
        if flags.contains(.hasStyle), let v = styleValue(key) { return v }
        return layerClass.defaultValue(forKey: key)
    }

    /// Apple's setValue:forKey:. A nil or null value clears a custom key.
    /// False when the value was refused (the error is recorded).
    @discardableResult
    public func setValue(_ value: Value?, forKey key: String) -> Bool {
        setValue(value, forKey: key, function: "setValue(_:forKey:)")
    }

    /// setValue(_:forKey:) recording errors under the C function `function`.
    @discardableResult
    package func setValue(_ value: Value?, forKey key: String, function: StaticString) -> Bool {
        if let declared = declaredKey(key) { return setDeclared(declared, value, function: function) }
        let before = layerClass.hasNeedsDisplayForKey ? custom?.values[key] : nil
        if let value, value.type != CAValueTypeNull {
            if custom == nil { custom = CustomValues() }
            custom!.values.set(value, for: key)
        } else if custom?.values[key] != nil {
            var d = ValueDictionary()
            for (k, v) in zip(custom!.values.keys, custom!.values.values) where k.string != key { d.set(v, for: k.string) }
            custom!.values = d
        }
        // As for declared keys: only a change of value marks the layer.
        if layerClass.hasNeedsDisplayForKey, layerClass.needsDisplay(forKey: key) {
            let after = custom?.values[key]
            let same = before.flatMap { b in after.map { b.isEqual(to: $0) } } ?? (before == nil && after == nil)
            if !same { setNeedsDisplay() }
        }
        return true
    }

    /// Apple's -shouldArchiveValueForKey: as observed: a declared property
    /// once it has been set explicitly, a custom key while it has a value;
    /// never frame or superlayer.
    package func shouldArchiveValue(forKey key: String) -> Bool {
        if key == "frame" || key == "superlayer" { return false }
        if let declared = declaredKey(key) { return isSet(declared) }
        return custom?.values[key] != nil
    }

    /// Apple's valueForKeyPath:.
    public func value(forKeyPath path: String) -> Value? {
        let parts = path.split(separator: ".", omittingEmptySubsequences: false)
        guard let first = parts.first, !first.isEmpty else { return nil }
        let head = value(forKey: String(first))
        if parts.count == 1 { return head }
        if let declared = declaredKey(String(first)), declared == .filters || declared == .backgroundFilters {
            return head.flatMap { LayerFilter.value(in: $0, at: Array(parts.dropFirst())) }
        }
        if first == "emitterCells", emitter != nil { return emitterCellValue(at: Array(parts.dropFirst())) }
        return head?.field(Array(parts.dropFirst()))
    }

    /// Apple's setValue:forKeyPath:. Struct and transform fields update the
    /// property; for custom keys, missing dictionaries along the path are created.
    @discardableResult
    public func setValue(_ value: Value?, forKeyPath path: String) -> Bool {
        setValue(value, forKeyPath: path, function: "setValue(_:forKeyPath:)")
    }

    /// setValue(_:forKeyPath:) recording errors under the C function `function`.
    @discardableResult
    package func setValue(_ value: Value?, forKeyPath path: String, function: StaticString) -> Bool {
        let parts = path.split(separator: ".", omittingEmptySubsequences: false)
        guard let first = parts.first, !first.isEmpty, !parts.contains(where: { $0.isEmpty }) else {
            recordError(QZErrorInvalidArgument, function, "\"\(path)\" is not a valid key path")
            return false
        }
        let key = String(first)
        if parts.count == 1 { return setValue(value, forKey: key, function: function) }
        guard let value else {
            recordError(QZErrorNullArgument, function, "a key path into a structure needs a value")
            return false
        }
        let rest = Array(parts.dropFirst())
        let declared = declaredKey(key)
        if key == "emitterCells", emitter != nil {
            // "emitterCells.<name>.<property>": the named cell's property.
            return setEmitterCellValue(value, at: rest, function: function)
        }
        if declared == .filters || declared == .backgroundFilters {
            // "filters.<name>.<input>": the named filter's input.
            guard let updated = LayerFilter.setting(self.value(forKey: key), at: rest, to: value, key: key,
                                                    function: function) else { return false }
            return setValue(updated, forKey: key, function: function)
        }
        let current = self.value(forKey: key) ?? (declared == nil ? Value(.dictionary(ValueDictionary())) : nil)
        guard let current, let updated = current.setting(rest, to: value) else {
            recordError(QZErrorInvalidArgument, function, "\"\(path)\" does not name a field that takes this value")
            return false
        }
        return setValue(updated, forKey: key, function: function)
    }
}
