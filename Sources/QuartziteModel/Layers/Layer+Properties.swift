import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics

// Reading and writing declared properties as values (key-value coding), the
// spec's defaults, the style dictionary and the side effects of a change
// (needsLayout, needsDisplay). Callers hold the model lock.
//
// The style dictionary lives in the model: setting `style` writes its values
// into the stored properties that were never set explicitly (and puts the
// class default back where a style no longer has a value), so every reader
// of the stored properties (getters, key-value coding, presentation copies,
// the renderer and draw list, hit testing, animations) sees the same value,
// and a layer without a style pays nothing on any read.

extension Layer {
    // MARK: - Style dictionary

    /// The style dictionary's value for `key`, searching nested "style"
    /// dictionaries; the shallowest wins.
    package func styleValue(_ key: String) -> Value? {
        var dictionary = visuals?.style
        while let d = dictionary, case .dictionary(let entries) = d.storage {
            if let v = entries[key] { return v }
            dictionary = entries["style"]
        }
        return nil
    }

    /// Writes the style into every declared property never set explicitly:
    /// the style's value when it has one of the property's kind, else the
    /// class default. Called when `style` changes (not on any read). Each
    /// property it changes is logged first, so presentation keeps showing
    /// the committed values until the transaction commits.
    package func applyStyle() {
        for key in LayerKey.allCases where key.usesStyle && declares(key) && !isSet(key) {
            let wanted = styleValue(key.name).flatMap { key.accepts($0) ? $0 : nil }
            let current = storedValue(key)
            if let wanted, let current, wanted.isEqual(to: current) { continue }
            // A style value the setter refuses (a contents object that is not
            // a pixel buffer, an infinite opacity) counts as absent: the
            // class default. Errors are not the caller's (hostCall).
            hostCall {
                if let wanted, storeStyled(key, wanted, current: current) { return }
                let fallback = layerClass.classDefault(key) ?? Layer.initialValue(key, builtin: layerClass.builtin)
                if let fallback, let current, fallback.isEqual(to: current) { return }
                if fallback == nil && current == nil { return }
                _ = storeStyled(key, fallback, current: current)
            }
        }
    }

    /// Stores a style-supplied (or default) value without marking it set.
    private func storeStyled(_ key: LayerKey, _ value: Value?, current: Value?) -> Bool {
        transactionState?.log(key, of: self)
        return setDeclared(key, value, explicit: false, function: "style")
    }

    // MARK: - Reading

    /// The value of a declared property (nil for a nil object). A style's
    /// values are already in the stored properties (applyStyle).
    @inline(__always)
    package func declaredValue(_ key: LayerKey) -> Value? { storedValue(key) }

    // MARK: - Writing

    /// Stores `value` into a declared property after checking its type. Records
    /// an error naming `function` and returns false on a mismatch. `explicit`
    /// is false for class defaults and style values (they do not hide the
    /// style dictionary). `applyingStyle` false stores a `style` without
    /// writing its values into the properties (restoring a logged value:
    /// those are restored one by one).
    @discardableResult
    package func setDeclared(_ key: LayerKey, _ value: Value?, explicit: Bool = true, applyingStyle: Bool = true,
                     function: StaticString) -> Bool {
        // The value before, for needsDisplayForKey (only classes that have one).
        let before = layerClass.hasNeedsDisplayForKey ? storedValue(key) : nil
        let v: Value? = value.flatMap { (x: Value) -> Value? in if case .null = x.storage { return nil } else { return x } }
        // Contents the renderer cannot read are refused rather than drawn as nothing.
        if key == .contents, let v, case .object(let o) = v.storage, let pb = o as? PixelBuffer, !pb.canBeContents {
            recordError(QZErrorInvalidArgument, function,
                        "contents in pixel format \(fourCharCodeString(pb.pixelFormat)) (\(pb.format.name)) cannot be rendered")
            return false
        }
        switch storeDeclared(key, ValueReader(key: key, v: v, function: function)) {
        case .failed: return false
        case .finished(let ok): return ok
        case .stored: break
        }
        if explicit { markSet(key) }
        if key == .style {
            if visuals?.style != nil { flags.insert(.hasStyle) } else { flags.remove(.hasStyle) }
            if applyingStyle { applyStyle() }
        }
        if key == .actions {
            if visuals?.actions != nil { flags.insert(.hasActions) } else { flags.remove(.hasActions) }
        }
        if layerClass.hasNeedsDisplayForKey { redisplayIfChanged(key, from: before) }
        return true
    }

    // MARK: - Side effects of a change

    /// A change of a declared property by a typed setter: inside the calling
    /// thread's transaction (logging, implicit actions), then recorded as set
    /// and, for a class that redisplays for the key, marked for display when
    /// the value changed. Callers hold the model lock.
    @inlinable @inline(__always)
    package func changeDeclared(_ key: LayerKey, _ body: (Layer) -> Void) {
        // (The body takes the layer instead of capturing it: no retain.)
        transactionChange(key) {
            // (Two copies of the body: the common case keeps no value from
            // before and forms no closure.)
            // (.classRedisplays: layerClass.hasNeedsDisplayForKey, read from the flags.)
            if flags.contains(.classRedisplays) {
                let before = storedValue(key)
                body(self)
                markSet(key)
                redisplayIfChanged(key, from: before)
            } else {
                body(self)
                markSet(key)
            }
        }
    }

    /// changeDeclared for a typed setter's value: `apply` stores it (a
    /// closure without captures). The common case, a layer without action
    /// sources or redisplay keys whose creation is not committed yet, runs
    /// inline; everything else goes through `changeDeclared(_:_:)` out of
    /// line. (No closure context is formed on the inline path: the value
    /// stays in registers.)
    @inlinable @inline(__always)
    package func changeDeclared<T>(_ key: LayerKey, _ value: T, _ apply: (Layer, T) -> Void) {
        // (transactionChange's and changeDeclared(_:_:)'s tests, in their
        // order, for a layer without action sources or redisplay keys.)
        if !flags.contains(.classRedisplays), key != .frame, !hasActionSources {
            if creator != nil, !isCommitted {
                apply(self, value)
                markSet(key)
            } else {
                implicitChangeOutOfLine(key, value, apply)
            }
            return
        }
        changeDeclaredOutOfLine(key, value, apply)
    }

    /// changeDeclared's implicit-animation path (transactionChange's for a
    /// layer without action sources), out of line.
    @inlinable @inline(never)
    package func implicitChangeOutOfLine<T>(_ key: LayerKey, _ value: T, _ apply: (Layer, T) -> Void) {
        implicitChange(key) {
            apply(self, value)
            markSet(key)
        }
    }

    /// changeDeclared's other paths, out of line.
    @inlinable @inline(never)
    package func changeDeclaredOutOfLine<T>(_ key: LayerKey, _ value: T, _ apply: (Layer, T) -> Void) {
        changeDeclared(key) { l in apply(l, value) }
    }

    /// CALayerSetAffineTransform's model side: the transform from an affine one.
    package func set(affineTransform t: CGAffineTransform) {
        changeDeclared(.transform) { l in l.transformBox = TransformBox.make(CATransform3D(affine: t)) }
    }

    /// Runs `body` on this layer without retaining it: for the typed setters,
    /// whose caller's reference keeps the layer alive.
    @inlinable @inline(__always)
    package func withGuaranteedSelf(_ body: (Layer) -> Void) {
        Unmanaged.passUnretained(self)._withUnsafeGuaranteedRef(body)
    }

    /// After a change of a declared property (typed setters and key-value
    /// coding alike): setNeedsDisplay when the class's needsDisplayForKey
    /// names the key and the value differs from `before`. As observed on
    /// Apple's QuartzCore, setting the value a property already has does not
    /// mark the layer.
    @usableFromInline package func redisplayIfChanged(_ key: LayerKey, from before: Value?) {
        guard layerClass.needsDisplay(forKey: key.name) else { return }
        let after = storedValue(key)
        if let before, let after, before.isEqual(to: after) { return }
        if before == nil && after == nil { return }
        setNeedsDisplay()
    }

    /// bounds: a size change asks for layout, and for display when
    /// needsDisplayOnBoundsChange is set.
    /// Sets zPosition. Every cached sibling order becomes stale (one global
    /// epoch: cheaper for a setter than reaching the superlayer).
    @inlinable package func setZPosition(_ z: Double) {
        zPosition = z
        Layer.zPositionEpoch &+= 1
    }

    /// Moves on every zPosition change (model lock held); starts at 1.
    @usableFromInline nonisolated(unsafe) package static var zPositionEpoch: UInt64 = 1

    @inlinable @inline(__always) package func setBounds(_ r: CGRect) {
        let sizeChanged = r.size.width != bounds.size.width || r.size.height != bounds.size.height
        bounds = r
        // (Inline up to here: a layer already marked for layout, and not
        // redisplayed for its size, has nothing more to do.)
        if sizeChanged, flags.rawValue & (LayerFlags.needsLayout.rawValue | LayerFlags.needsDisplayOnBoundsChange.rawValue)
            != LayerFlags.needsLayout.rawValue || layerClass.builtin == .text {
            boundsSizeChanged()
        }
    }

    /// setBounds after a size change: layout, and display where the layer asks for it.
    @usableFromInline @inline(never) package func boundsSizeChanged() {
        setNeedsLayout()
        // (A text layer lays its text out for its bounds.)
        if flags.contains(.needsDisplayOnBoundsChange) || layerClass.builtin == .text { setNeedsDisplay() }
    }
}

/// What storing a boxed value into a declared property did (storeDeclared,
/// generated from the property table).
package enum StoreOutcome {
    /// Stored: the common side effects follow (marked as set, style, redisplay).
    case stored
    /// Refused, with the error recorded.
    case failed
    /// The property's own code ran to the end (a tree change: sublayers, mask);
    /// nothing else follows.
    case finished(Bool)
}

/// A boxed value on its way into a declared property, read as the property's
/// type; each reader answers nil when the value has another type, and the
/// failures record an error naming the key and the calling C function.
package struct ValueReader {
    package let key: LayerKey
    /// The value (nil for nil or NSNull).
    package let v: Value?
    package let function: StaticString

    package func fail(_ wanted: String) -> StoreOutcome {
        let got = v.map { valueTypeName($0.type) } ?? "nil"
        recordError(QZErrorWrongType, function, "\(key.name) takes \(wanted), got \(got)")
        return .failed
    }

    /// A number that failed: NaN already recorded its own error.
    package func numberFail() -> StoreOutcome {
        lastErrorCode() == QZErrorNotFinite ? .failed : fail("a number")
    }

    /// The number; NaN (and, with `finite`, infinities) records QZErrorNotFinite.
    package func number(finite: Bool = true) -> Double? {
        guard let n = v?.number else { return nil }
        if n.isNaN || (finite && !n.isFinite) {
            recordError(QZErrorNotFinite, function, "\(key.name) must be finite, got \(n)")
            return nil
        }
        return n
    }

    package func point() -> CGPoint? {
        guard let v, case .point(let p) = v.storage else { return nil }
        return p
    }

    package func size() -> CGSize? {
        guard let v, case .size(let s) = v.storage else { return nil }
        return s
    }

    package func rect() -> CGRect? {
        guard let v, case .rect(let r) = v.storage, r.origin.isFinite, r.size.width.isFinite, r.size.height.isFinite else { return nil }
        return r
    }

    package func bool() -> Bool? { v?.number.map { $0 != 0 } }

    /// The colour; .some(nil) for nil, nil for another type.
    package func color() -> Color?? {
        guard let v else { return .some(nil) }
        if case .color(let c) = v.storage { return .some(c) }
        return nil
    }

    /// The constant's index; an unknown string records QZErrorUnknownConstant.
    package func constant(_ set: ConstantSet) -> UInt8? {
        guard let s = v?.string else { return nil }
        guard let i = set.index(of: s) else {
            recordError(QZErrorUnknownConstant, function, "\"\(s)\" is not a known value for \(key.name)")
            return nil
        }
        return i
    }

    /// The object (a colour counts); .some(nil) for nil, nil for another type.
    package func object() -> QZObject?? {
        guard let v else { return .some(nil) }
        switch v.storage {
        case .object(let o): return .some(o)
        case .color(let c): return .some(c)
        default: return nil
        }
    }

    package func transform() -> CATransform3D? {
        guard let v else { return nil }
        switch v.storage {
        case .transform3D(let t) where t.isFinite: return t
        case .affineTransform(let t) where t.isFinite: return CATransform3D(affine: t)
        default: return nil
        }
    }
}
