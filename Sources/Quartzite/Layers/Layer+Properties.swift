import CQuartzite

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
    // MARK: - Defaults

    /// Apple's +defaultValueForKey: for a declared property of the built-in
    /// classes, boxed. As observed on Apple's QuartzCore, bounds, position,
    /// frame, minificationFilterBias, filters, backgroundFilters,
    /// compositingFilter and mask have none (nil), although a new layer's
    /// bounds, position and bias read as zero.
    static func builtinDefault(_ key: LayerKey, builtin: BuiltinLayerKind) -> Value? {
        switch key {
        case .anchorPoint: return Value(.point(CGPoint(x: 0.5, y: 0.5)))
        case .zPosition, .anchorPointZ, .cornerRadius, .borderWidth, .shadowOpacity,
             .beginTime, .timeOffset, .repeatCount, .repeatDuration, .levelsOfDetailBias:
            return Value(.number(0))
        case .duration: return Value(.number(.infinity))
        case .opacity, .contentsScale, .rasterizationScale, .speed, .levelsOfDetail: return Value(.number(1))
        case .shadowRadius: return Value(.number(3))
        case .fontSize: return Value(.number(36))
        case .edgeAntialiasingMask: return Value(.number(15))
        case .transform, .sublayerTransform: return Value(.transform3D(.identity))
        case .contentsRect, .contentsCenter: return Value(.rect(CGRect(x: 0, y: 0, width: 1, height: 1)))
        case .shadowOffset: return Value(.size(CGSize(width: 0, height: -3)))
        case .tileSize: return Value(.size(CGSize(width: 256, height: 256)))
        case .drawableProperties: return EAGLLayerState.defaultProperties
        case .hidden, .masksToBounds, .opaque, .geometryFlipped, .needsDisplayOnBoundsChange,
             .shouldRasterize, .autoreverses, .wrapped:
            return Value(.bool(false))
        case .doubleSided: return Value(.bool(true))
        case .borderColor, .shadowColor: return Value(.color(.opaqueBlack))
        case .foregroundColor: return Value(.color(.opaqueWhite))
        case .contentsGravity: return Value(string: "resize")
        case .minificationFilter, .magnificationFilter: return Value(string: "linear")
        case .fillMode: return Value(string: "removed")
        case .scrollMode: return Value(string: "both")
        case .alignmentMode: return Value(string: "natural")
        case .truncationMode: return Value(string: "none")
        case .bounds, .position, .frame, .minificationFilterBias,
             .contents, .mask, .backgroundColor, .shadowPath, .filters, .backgroundFilters, .compositingFilter,
             .style, .name, .actions, .sublayers, .string, .font:
            return nil
        }
    }

    /// The value a new layer of a built-in class holds (nil for a nil
    /// object): the default, or what the property reads before it is set
    /// where +defaultValueForKey: answers nil.
    static func initialValue(_ key: LayerKey, builtin: BuiltinLayerKind) -> Value? {
        switch key {
        case .bounds, .frame: return Value(.rect(.zero))
        case .position: return Value(.point(CGPoint(x: 0, y: 0)))
        case .minificationFilterBias: return Value(.number(0))
        case .font: return TextLayerState.defaultFont
        default: return builtinDefault(key, builtin: builtin)
        }
    }

    // MARK: - Style dictionary

    /// The style dictionary's value for `key`, searching nested "style"
    /// dictionaries; the shallowest wins.
    func styleValue(_ key: String) -> Value? {
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
    func applyStyle() {
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
    func declaredValue(_ key: LayerKey) -> Value? { storedValue(key) }

    /// The value a declared property holds.
    func storedValue(_ key: LayerKey) -> Value? {
        switch key {
        case .bounds: return Value(.rect(bounds))
        case .frame: return Value(.rect(frame))
        case .position: return Value(.point(position))
        case .anchorPoint: return Value(.point(anchorPoint))
        case .zPosition: return Value(.number(zPosition))
        case .anchorPointZ: return Value(.number(anchorPointZ))
        case .transform: return Value(.transform3D(transform))
        case .sublayerTransform: return Value(.transform3D(sublayerTransform))
        case .opacity: return Value(.number(Double(opacity)))
        case .hidden: return Value(.bool(flags.contains(.hidden)))
        case .masksToBounds: return Value(.bool(flags.contains(.masksToBounds)))
        case .doubleSided: return Value(.bool(flags.contains(.doubleSided)))
        case .opaque: return Value(.bool(flags.contains(.opaque)))
        case .geometryFlipped: return Value(.bool(flags.contains(.geometryFlipped)))
        case .needsDisplayOnBoundsChange: return Value(.bool(flags.contains(.needsDisplayOnBoundsChange)))
        case .shouldRasterize: return Value(.bool(flags.contains(.shouldRasterize)))
        case .sublayers: return sublayers.isEmpty ? nil : Value(.array(sublayers.map { Value(.object($0)) }))
        case .scrollMode: return Value(string: ConstantSet.scrollMode.name(scrollMode))
        default: break
        }
        if let v = visualValue(key) { return v }
        if let t = timingValue(key) { return t }
        return subclassValue(key)
    }

    /// Appearance keys; the outer optional says whether the key is one of them.
    private func visualValue(_ key: LayerKey) -> Value?? {
        let v = visuals
        func color(_ c: Color?) -> Value? { c.map { Value(.color($0)) } }
        switch key {
        case .contents: return .some((v?.contents).map { Value(.object($0)) })
        case .contentsRect: return .some(Value(.rect(v?.contentsRect ?? CGRect(x: 0, y: 0, width: 1, height: 1))))
        case .contentsCenter: return .some(Value(.rect(v?.contentsCenter ?? CGRect(x: 0, y: 0, width: 1, height: 1))))
        case .contentsGravity: return .some(Value(string: ConstantSet.gravity.name(v?.contentsGravity ?? ConstantSet.gravityResize)))
        case .contentsScale: return .some(Value(.number(v?.contentsScale ?? 1)))
        case .minificationFilter: return .some(Value(string: ConstantSet.filter.name(v?.minificationFilter ?? 1)))
        case .magnificationFilter: return .some(Value(string: ConstantSet.filter.name(v?.magnificationFilter ?? 1)))
        case .minificationFilterBias: return .some(Value(.number(Double(v?.minificationFilterBias ?? 0))))
        case .cornerRadius: return .some(Value(.number(v?.cornerRadius ?? 0)))
        case .borderWidth: return .some(Value(.number(v?.borderWidth ?? 0)))
        case .borderColor: return .some(v == nil ? Value(.color(.opaqueBlack)) : color(v!.borderColor))
        case .backgroundColor: return .some(color(v?.backgroundColor))
        case .shadowOpacity: return .some(Value(.number(Double(v?.shadowOpacity ?? 0))))
        case .shadowRadius: return .some(Value(.number(v?.shadowRadius ?? 3)))
        case .shadowOffset: return .some(Value(.size(v?.shadowOffset ?? CGSize(width: 0, height: -3))))
        case .shadowColor: return .some(v == nil ? Value(.color(.opaqueBlack)) : color(v!.shadowColor))
        case .shadowPath: return .some((v?.shadowPath).map { Value(.object($0)) })
        case .edgeAntialiasingMask: return .some(Value(.number(Double(v?.edgeAntialiasingMask ?? 15))))
        case .rasterizationScale: return .some(Value(.number(v?.rasterizationScale ?? 1)))
        case .filters: return .some(v?.filters)
        case .backgroundFilters: return .some(v?.backgroundFilters)
        case .compositingFilter: return .some(v?.compositingFilter)
        case .mask: return .some((v?.mask).map { Value(.object($0)) })
        case .name: return .some((v?.name).map { Value(.string($0)) })
        case .style: return .some(v?.style)
        case .actions: return .some(v?.actions)
        default: return nil
        }
    }

    private func timingValue(_ key: LayerKey) -> Value? {
        let t = timing
        switch key {
        case .beginTime: return Value(.number(t?.beginTime ?? 0))
        case .duration: return Value(.number(t?.duration ?? .infinity))
        case .speed: return Value(.number(Double(t?.speed ?? 1)))
        case .timeOffset: return Value(.number(t?.timeOffset ?? 0))
        case .repeatCount: return Value(.number(Double(t?.repeatCount ?? 0)))
        case .repeatDuration: return Value(.number(t?.repeatDuration ?? 0))
        case .autoreverses: return Value(.bool(t?.autoreverses ?? false))
        case .fillMode: return Value(string: ConstantSet.fillMode.name(t?.fillMode ?? 0))
        default: return nil
        }
    }

    private func subclassValue(_ key: LayerKey) -> Value? {
        switch key {
        case .string: return text?.string
        case .font: return text?.font
        case .fontSize: return Value(.number(text?.fontSize ?? 36))
        case .foregroundColor: return (text?.foregroundColor).map { Value(.color($0)) }
        case .wrapped: return Value(.bool(text?.wrapped ?? false))
        case .alignmentMode: return Value(string: ConstantSet.alignment.name(text?.alignmentMode ?? 0))
        case .truncationMode: return Value(string: ConstantSet.truncation.name(text?.truncationMode ?? 0))
        case .levelsOfDetail: return Value(.number(Double(tiled?.levelsOfDetail ?? 1)))
        case .levelsOfDetailBias: return Value(.number(Double(tiled?.levelsOfDetailBias ?? 0)))
        case .tileSize: return Value(.size(tiled?.tileSize ?? CGSize(width: 256, height: 256)))
        case .drawableProperties: return eagl?.properties
        default: return nil
        }
    }

    // MARK: - Writing

    /// Stores `value` into a declared property after checking its type. Records
    /// an error naming `function` and returns false on a mismatch. `explicit`
    /// is false for class defaults and style values (they do not hide the
    /// style dictionary). `applyingStyle` false stores a `style` without
    /// writing its values into the properties (restoring a logged value:
    /// those are restored one by one).
    @discardableResult
    func setDeclared(_ key: LayerKey, _ value: Value?, explicit: Bool = true, applyingStyle: Bool = true,
                     function: StaticString) -> Bool {
        // The value before, for needsDisplayForKey (only classes that have one).
        let before = layerClass.hasNeedsDisplayForKey ? storedValue(key) : nil
        let v: Value? = value.flatMap { (x: Value) -> Value? in if case .null = x.storage { return nil } else { return x } }
        func fail(_ wanted: String) -> Bool {
            let got = v.map { valueTypeName($0.type) } ?? "nil"
            recordError(QZErrorWrongType, function, "\(key.name) takes \(wanted), got \(got)")
            return false
        }
        func number(finite: Bool = true) -> Double? {
            guard let n = v?.number else { return nil }
            if n.isNaN || (finite && !n.isFinite) {
                recordError(QZErrorNotFinite, function, "\(key.name) must be finite, got \(n)")
                return nil
            }
            return n
        }
        func point() -> CGPoint? {
            guard let v, case .point(let p) = v.storage else { return nil }
            return p
        }
        func size() -> CGSize? {
            guard let v, case .size(let s) = v.storage else { return nil }
            return s
        }
        func rect() -> CGRect? {
            guard let v, case .rect(let r) = v.storage, r.origin.isFinite, r.size.width.isFinite, r.size.height.isFinite else { return nil }
            return r
        }
        func bool() -> Bool? { v?.number.map { $0 != 0 } }
        func color() -> Color?? {
            guard let v else { return .some(nil) }
            if case .color(let c) = v.storage { return .some(c) }
            return nil
        }
        func constant(_ set: ConstantSet) -> UInt8? {
            guard let s = v?.string else { return nil }
            guard let i = set.index(of: s) else {
                recordError(QZErrorUnknownConstant, function, "\"\(s)\" is not a known value for \(key.name)")
                return nil
            }
            return i
        }
        func object() -> QZObject?? {
            guard let v else { return .some(nil) }
            switch v.storage {
            case .object(let o): return .some(o)
            case .color(let c): return .some(c)
            default: return nil
            }
        }
        func transform() -> CATransform3D? {
            guard let v else { return nil }
            switch v.storage {
            case .transform3D(let t) where t.isFinite: return t
            case .affineTransform(let t) where t.isFinite: return CATransform3D(affine: t)
            default: return nil
            }
        }
        // NaN numbers already recorded their own error.
        func numberFail() -> Bool { lastErrorCode() == QZErrorNotFinite ? false : fail("a number") }
        // Contents the renderer cannot read are refused rather than drawn as nothing.
        if key == .contents, let v, case .object(let o) = v.storage, let pb = o as? PixelBuffer, !pb.canBeContents {
            recordError(QZErrorInvalidArgument, function,
                        "contents in pixel format \(fourCharCodeString(pb.pixelFormat)) (\(pb.format.name)) cannot be rendered")
            return false
        }

        switch key {
        case .bounds:
            guard let r = rect() else { return fail("a finite rect") }
            setBounds(r)
        case .frame:
            guard let r = rect() else { return fail("a finite rect") }
            setFrame(r)
        case .position:
            guard let p = point(), p.isFinite else { return fail("a finite point") }
            position = p
        case .anchorPoint:
            guard let p = point(), p.isFinite else { return fail("a finite point") }
            anchorPoint = p
        case .zPosition:
            guard let n = number() else { return numberFail() }
            zPosition = n
        case .anchorPointZ:
            guard let n = number() else { return numberFail() }
            anchorPointZ = n
        case .transform:
            guard let t = transform() else { return fail("a finite transform") }
            TransformBox.store(t, in: &transformBox)
        case .sublayerTransform:
            guard let t = transform() else { return fail("a finite transform") }
            TransformBox.store(t, in: &sublayerTransformBox)
        case .opacity:
            guard let n = number() else { return numberFail() }
            opacity = Float(n)
        case .hidden, .masksToBounds, .doubleSided, .opaque, .geometryFlipped, .needsDisplayOnBoundsChange, .shouldRasterize:
            guard let b = bool() else { return fail("a bool") }
            let flag: LayerFlags = key == .hidden ? .hidden : key == .masksToBounds ? .masksToBounds
                : key == .doubleSided ? .doubleSided : key == .opaque ? .opaque : key == .geometryFlipped ? .geometryFlipped
                : key == .needsDisplayOnBoundsChange ? .needsDisplayOnBoundsChange : .shouldRasterize
            if b { flags.insert(flag) } else { flags.remove(flag) }
        case .sublayers:
            var layers: [Layer] = []
            if let v {
                guard case .array(let items) = v.storage else { return fail("an array of layers") }
                for item in items {
                    guard case .object(let o) = item.storage, let l = o as? Layer else { return fail("an array of layers") }
                    layers.append(l)
                }
            }
            return setSublayers(layers, function: function)
        case .mask:
            guard let o = object(), o == nil || o! is Layer else { return fail("a layer") }
            return setMask(o as? Layer, function: function)
        case .scrollMode:
            guard let i = constant(.scrollMode) else { return v?.string == nil ? fail("a string") : false }
            scrollMode = i
        default:
            if let handled = setVisual(key, v, number: number, numberFail: numberFail, point: point, size: size, rect: rect,
                                       bool: bool, color: color, constant: constant, object: object, fail: fail) {
                if !handled { return false }
            } else if let handled = setTiming(key, v, number: number, numberFail: numberFail, bool: bool, constant: constant, fail: fail) {
                if !handled { return false }
            } else if !setSubclass(key, v, number: number, numberFail: numberFail, size: size, bool: bool, color: color,
                                   constant: constant, fail: fail, function: function) {
                return false
            }
        }
        if explicit { markSet(key) }
        if key == .style {
            if visuals?.style != nil { flags.insert(.hasStyle) } else { flags.remove(.hasStyle) }
            if applyingStyle { applyStyle() }
        }
        if layerClass.hasNeedsDisplayForKey { redisplayIfChanged(key, from: before) }
        return true
    }

    private func setVisual(_ key: LayerKey, _ v: Value?, number: (Bool) -> Double?, numberFail: () -> Bool,
                           point: () -> CGPoint?, size: () -> CGSize?, rect: () -> CGRect?, bool: () -> Bool?,
                           color: () -> Color??, constant: (ConstantSet) -> UInt8?, object: () -> QZObject??,
                           fail: (String) -> Bool) -> Bool? {
        switch key {
        case .contents:
            guard let o = object(), o == nil || o is PixelBuffer || o is Image else {
                return fail("a CGImageRef or a CVPixelBufferRef")
            }
            ensureVisuals.contents = o
        case .contentsRect, .contentsCenter:
            guard let r = rect() else { return fail("a finite rect") }
            if key == .contentsRect { ensureVisuals.contentsRect = r } else { ensureVisuals.contentsCenter = r }
        case .contentsGravity:
            guard let i = constant(.gravity) else { return v?.string == nil ? fail("a string") : false }
            ensureVisuals.contentsGravity = i
        case .minificationFilter, .magnificationFilter:
            guard let i = constant(.filter) else { return v?.string == nil ? fail("a string") : false }
            if key == .minificationFilter { ensureVisuals.minificationFilter = i } else { ensureVisuals.magnificationFilter = i }
        case .contentsScale, .cornerRadius, .borderWidth, .shadowRadius, .rasterizationScale:
            guard let n = number(true) else { return numberFail() }
            let vis = ensureVisuals
            switch key {
            case .contentsScale: vis.contentsScale = n
            case .cornerRadius: vis.cornerRadius = n
            case .borderWidth: vis.borderWidth = n
            case .shadowRadius: vis.shadowRadius = n
            default: vis.rasterizationScale = n
            }
        case .minificationFilterBias, .shadowOpacity:
            guard let n = number(true) else { return numberFail() }
            if key == .shadowOpacity { ensureVisuals.shadowOpacity = Float(n) } else { ensureVisuals.minificationFilterBias = Float(n) }
        case .edgeAntialiasingMask:
            guard let n = number(true), n >= 0, n <= Double(UInt32.max) else { return numberFail() }
            ensureVisuals.edgeAntialiasingMask = UInt32(n)
        case .shadowOffset:
            guard let s = size(), s.width.isFinite, s.height.isFinite else { return fail("a finite size") }
            ensureVisuals.shadowOffset = s
        case .borderColor, .backgroundColor, .shadowColor:
            guard let c = color() else { return fail("a color") }
            let vis = ensureVisuals
            switch key {
            case .borderColor: vis.borderColor = c
            case .backgroundColor: vis.backgroundColor = c
            default: vis.shadowColor = c
            }
        case .shadowPath:
            guard let o = object(), o == nil || o! is Path else { return fail("a path") }
            // Keep an immutable snapshot: later edits of a mutable path must not reach the layer.
            if let p = o as? Path, p.isMutable { ensureVisuals.shadowPath = Path(p.data, mutable: false) } else { ensureVisuals.shadowPath = o }
        case .filters, .backgroundFilters, .compositingFilter, .actions:
            if key == .actions, let v, v.type != CAValueTypeDictionary { return fail("a dictionary") }
            let vis = ensureVisuals
            switch key {
            case .filters: vis.filters = v
            case .backgroundFilters: vis.backgroundFilters = v
            case .compositingFilter: vis.compositingFilter = v
            default: vis.actions = v
            }
        case .style:
            if let v, v.type != CAValueTypeDictionary { return fail("a dictionary") }
            ensureVisuals.style = v
        case .name:
            if let v, v.string == nil { return fail("a string") }
            ensureVisuals.name = v.flatMap { (x: Value) -> CString? in if case .string(let s) = x.storage { return s } else { return nil } }
        default:
            return nil
        }
        return true
    }

    private func setTiming(_ key: LayerKey, _ v: Value?, number: (Bool) -> Double?, numberFail: () -> Bool, bool: () -> Bool?,
                           constant: (ConstantSet) -> UInt8?, fail: (String) -> Bool) -> Bool? {
        switch key {
        case .beginTime, .timeOffset, .speed:
            guard let n = number(true) else { return numberFail() }
            let t = ensureTiming
            switch key {
            case .beginTime: t.beginTime = n
            case .timeOffset: t.timeOffset = n
            default: t.speed = Float(n)
            }
        case .duration, .repeatCount, .repeatDuration:
            // HUGE_VALF means "forever": infinities are allowed, NaN is not.
            guard let n = number(false) else { return numberFail() }
            let t = ensureTiming
            switch key {
            case .duration: t.duration = n
            case .repeatCount: t.repeatCount = Float(n)
            default: t.repeatDuration = n
            }
        case .autoreverses:
            guard let b = bool() else { return fail("a bool") }
            ensureTiming.autoreverses = b
        case .fillMode:
            guard let i = constant(.fillMode) else { return v?.string == nil ? fail("a string") : false }
            ensureTiming.fillMode = i
        default:
            return nil
        }
        return true
    }

    private func setSubclass(_ key: LayerKey, _ v: Value?, number: (Bool) -> Double?, numberFail: () -> Bool,
                             size: () -> CGSize?, bool: () -> Bool?, color: () -> Color??,
                             constant: (ConstantSet) -> UInt8?, fail: (String) -> Bool, function: StaticString) -> Bool {
        switch key {
        case .string:
            // Kept as an immutable copy: later edits of a mutable attributed
            // string do not reach the layer (Apple's property is copy).
            if let v, case .object(let t as AttributedText) = v.storage, t.isMutable {
                text?.string = Value(.object(AttributedText(copyOf: t, mutable: false)))
            } else {
                text?.string = v
            }
        case .font: text?.font = v
        case .fontSize:
            guard let n = number(true) else { return numberFail() }
            text?.fontSize = n
        case .foregroundColor:
            guard let c = color() else { return fail("a color") }
            text?.foregroundColor = c
        case .wrapped:
            guard let b = bool() else { return fail("a bool") }
            text?.wrapped = b
        case .alignmentMode:
            guard let i = constant(.alignment) else { return v?.string == nil ? fail("a string") : false }
            text?.alignmentMode = i
        case .truncationMode:
            guard let i = constant(.truncation) else { return v?.string == nil ? fail("a string") : false }
            text?.truncationMode = i
        case .levelsOfDetail, .levelsOfDetailBias:
            guard let n = number(true) else { return numberFail() }
            guard n >= 0, n < 1e9 else {
                recordError(QZErrorOutOfRange, function, "\(key.name) \(n) is outside 0..<1e9")
                return false
            }
            if key == .levelsOfDetail { tiled?.levelsOfDetail = Int(n) } else { tiled?.levelsOfDetailBias = Int(n) }
        case .tileSize:
            guard let s = size(), s.width.isFinite, s.height.isFinite else { return fail("a finite size") }
            guard s.width > 0, s.height > 0 else {
                recordError(QZErrorInvalidArgument, function, "tileSize must be positive, got \(s.width) x \(s.height)")
                return false
            }
            tiled?.tileSize = s
        case .drawableProperties:
            // Stored as given (Apple's copy property); read when storage is made.
            if let v, v.type != CAValueTypeDictionary { return fail("a dictionary") }
            eagl?.properties = v
        default:
            return fail("a value")
        }
        return true
    }

    // MARK: - Side effects of a change

    /// After a change of a declared property (typed setters and key-value
    /// coding alike): setNeedsDisplay when the class's needsDisplayForKey
    /// names the key and the value differs from `before`. As observed on
    /// Apple's QuartzCore, setting the value a property already has does not
    /// mark the layer.
    func redisplayIfChanged(_ key: LayerKey, from before: Value?) {
        guard layerClass.needsDisplay(forKey: key.name) else { return }
        let after = storedValue(key)
        if let before, let after, before.isEqual(to: after) { return }
        if before == nil && after == nil { return }
        setNeedsDisplay()
    }

    /// bounds: a size change asks for layout, and for display when
    /// needsDisplayOnBoundsChange is set.
    func setBounds(_ r: CGRect) {
        let sizeChanged = r.size.width != bounds.size.width || r.size.height != bounds.size.height
        bounds = r
        if sizeChanged {
            setNeedsLayout()
            // (A text layer lays its text out for its bounds.)
            if flags.contains(.needsDisplayOnBoundsChange) || layerClass.builtin == .text { setNeedsDisplay() }
        }
    }
}
