import CQuartzite

// Reading and writing declared properties as values (key-value coding), the
// spec's defaults, the style-dictionary fallback and the side effects of a
// change (needsLayout, needsDisplay). Callers hold the model lock.

extension Layer {
    // MARK: - Defaults

    /// The spec's default of a declared property, boxed.
    static func builtinDefault(_ key: LayerKey, builtin: BuiltinLayerKind) -> Value? {
        switch key {
        case .bounds, .frame: return Value(.rect(.zero))
        case .position: return Value(.point(CGPoint(x: 0, y: 0)))
        case .anchorPoint: return Value(.point(CGPoint(x: 0.5, y: 0.5)))
        case .zPosition, .anchorPointZ, .cornerRadius, .borderWidth, .shadowOpacity, .minificationFilterBias,
             .beginTime, .duration, .timeOffset, .repeatCount, .repeatDuration, .levelsOfDetailBias:
            return Value(.number(0))
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
        case .contents, .mask, .backgroundColor, .shadowPath, .filters, .backgroundFilters, .compositingFilter,
             .style, .name, .actions, .sublayers, .string, .font:
            return nil
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

    /// For a getter: the style's value when the property was never set explicitly.
    @inline(__always)
    func styled(_ key: LayerKey) -> Value? {
        guard flags.contains(.hasStyle), key.usesStyle, !isSet(key) else { return nil }
        guard let v = styleValue(key.name), key.accepts(v) else { return nil }
        return v
    }

    // MARK: - Reading

    /// The value of a declared property, style included (nil for a nil object).
    func declaredValue(_ key: LayerKey) -> Value? {
        if let s = styled(key) { return s }
        return storedValue(key)
    }

    /// The value a declared property holds (the style not consulted).
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
        case .duration: return Value(.number(t?.duration ?? 0))
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
    /// is false for class defaults (they do not hide the style dictionary).
    @discardableResult
    func setDeclared(_ key: LayerKey, _ value: Value?, explicit: Bool = true, function: StaticString) -> Bool {
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
        }
        didChange(key)
        return true
    }

    private func setVisual(_ key: LayerKey, _ v: Value?, number: (Bool) -> Double?, numberFail: () -> Bool,
                           point: () -> CGPoint?, size: () -> CGSize?, rect: () -> CGRect?, bool: () -> Bool?,
                           color: () -> Color??, constant: (ConstantSet) -> UInt8?, object: () -> QZObject??,
                           fail: (String) -> Bool) -> Bool? {
        switch key {
        case .contents:
            guard let o = object(), o == nil || o is PixelBuffer else { return fail("a pixel buffer (CVPixelBufferRef)") }
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
        case .string: text?.string = v
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

    /// Called after a property changed (typed setters and key-value coding).
    @inline(__always)
    func didChange(_ key: LayerKey) {
        if layerClass.hasNeedsDisplayForKey, layerClass.needsDisplay(forKey: key.name) { setNeedsDisplay() }
    }

    /// bounds: a size change asks for layout, and for display when
    /// needsDisplayOnBoundsChange is set.
    func setBounds(_ r: CGRect) {
        let sizeChanged = r.size.width != bounds.size.width || r.size.height != bounds.size.height
        bounds = r
        if sizeChanged {
            setNeedsLayout()
            if flags.contains(.needsDisplayOnBoundsChange) { setNeedsDisplay() }
        }
    }
}
