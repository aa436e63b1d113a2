import CQuartzite

// Typed getters and setters of CALayer's declared properties (and those of
// CAScrollLayer, CATextLayer and CATiledLayer), with the spec's defaults.
// Setters check their input (NaN records QZErrorNotFinite, an unknown
// constant QZErrorUnknownConstant) and change nothing on error. A style
// dictionary's values live in the model (Layer+Properties.swift), so the
// getters read them like any other value.
// Borrowed results (colours, strings, values, layers) stay valid until the
// property changes.

func colorValue(_ color: QZCGColorRef?, _ function: StaticString) -> (ok: Bool, value: Value?) {
    guard let color else { return (true, nil) }
    guard let c = object(color, as: Color.self, function) else { return (false, nil) }
    return (true, Value(.color(c)))
}

func constantValue(_ s: UnsafePointer<CChar>?, _ function: StaticString) -> Value? {
    requireString(s, "value", function).map { Value(string: $0) }
}

func borrowedColor(_ c: Color?) -> QZCGColorRef? { c.map(borrowedHandle) }

// MARK: - Geometry

/// The bounds (default CGRectZero). Changing the size marks the layer for
/// layout, and for display when needsDisplayOnBoundsChange is set.
@c public func CALayerGetBounds(_ layer: CALayerRef?) -> CGRect {
    readLayer(layer, .zero) { $0.bounds }
}

@c public func CALayerSetBounds(_ layer: CALayerRef?, _ bounds: CGRect) {
    guard checkFinite(bounds.origin.x, bounds.origin.y, bounds.size.width, bounds.size.height, function: #function) else { return }
    changeLayer(layer, .bounds) { $0.setBounds(bounds) }
}

/// The position of the anchor point in the superlayer (default (0, 0)).
@c public func CALayerGetPosition(_ layer: CALayerRef?) -> CGPoint {
    readLayer(layer, CGPoint(x: 0, y: 0)) { $0.position }
}

@c public func CALayerSetPosition(_ layer: CALayerRef?, _ position: CGPoint) {
    guard checkFinite(position.x, position.y, function: #function) else { return }
    changeLayer(layer, .position) { $0.position = position }
}

/// Position on the z axis (default 0); also orders siblings.
@c public func CALayerGetZPosition(_ layer: CALayerRef?) -> Double {
    readLayer(layer, 0) { $0.zPosition }
}

@c public func CALayerSetZPosition(_ layer: CALayerRef?, _ zPosition: Double) {
    guard checkFinite(zPosition, function: #function) else { return }
    changeLayer(layer, .zPosition) { $0.zPosition = zPosition }
}

/// The anchor point in the unit square of the bounds (default (0.5, 0.5)).
@c public func CALayerGetAnchorPoint(_ layer: CALayerRef?) -> CGPoint {
    readLayer(layer, CGPoint(x: 0.5, y: 0.5)) { $0.anchorPoint }
}

@c public func CALayerSetAnchorPoint(_ layer: CALayerRef?, _ anchorPoint: CGPoint) {
    guard checkFinite(anchorPoint.x, anchorPoint.y, function: #function) else { return }
    changeLayer(layer, .anchorPoint) { $0.anchorPoint = anchorPoint }
}

/// The anchor point's z (default 0).
@c public func CALayerGetAnchorPointZ(_ layer: CALayerRef?) -> Double {
    readLayer(layer, 0) { $0.anchorPointZ }
}

@c public func CALayerSetAnchorPointZ(_ layer: CALayerRef?, _ anchorPointZ: Double) {
    guard checkFinite(anchorPointZ, function: #function) else { return }
    changeLayer(layer, .anchorPointZ) { $0.anchorPointZ = anchorPointZ }
}

/// The transform, applied about the anchor point (default identity).
@c public func CALayerGetTransform(_ layer: CALayerRef?) -> CATransform3D {
    readLayer(layer, .identity) { $0.transform }
}

@c public func CALayerSetTransform(_ layer: CALayerRef?, _ transform: CATransform3D) {
    guard checkTransform(transform, #function) else { return }
    changeLayer(layer, .transform) { TransformBox.store(transform, in: &$0.transformBox) }
}

/// The transform applied to the sublayers about the anchor point (default identity).
@c public func CALayerGetSublayerTransform(_ layer: CALayerRef?) -> CATransform3D {
    readLayer(layer, .identity) { $0.sublayerTransform }
}

@c public func CALayerSetSublayerTransform(_ layer: CALayerRef?, _ transform: CATransform3D) {
    guard checkTransform(transform, #function) else { return }
    changeLayer(layer, .sublayerTransform) { TransformBox.store(transform, in: &$0.sublayerTransformBox) }
}

/// The transform as an affine transform, or the identity when the transform
/// is not affine (a z scale, a rotation about x or y, a z translation,
/// perspective): Apple's QuartzCore was observed to answer so, and where the
/// reference speaks of the affine transform that best represents the
/// transform, Apple's behaviour wins.
/// CATransform3DGetAffineTransform still gives the affine part.
@c public func CALayerGetAffineTransform(_ layer: CALayerRef?) -> CGAffineTransform {
    readLayer(layer, .identity) { l in
        let t = l.transform
        return t.isAffine ? t.affine : .identity
    }
}

/// Sets the transform from an affine transform.
@c public func CALayerSetAffineTransform(_ layer: CALayerRef?, _ transform: CGAffineTransform) {
    guard checkAffine(transform, #function) else { return }
    changeLayer(layer, .transform) { $0.transformBox = TransformBox.make(CATransform3D(affine: transform)) }
}

/// The frame: the bounding box of the transformed bounds in the superlayer's
/// coordinates (derived from bounds, position, anchorPoint and transform).
@c public func CALayerGetFrame(_ layer: CALayerRef?) -> CGRect {
    readLayer(layer, .zero) { $0.frame }
}

/// Sets position and bounds.size so that the frame becomes `frame` (with an
/// affine transform, the size is solved through it).
@c public func CALayerSetFrame(_ layer: CALayerRef?, _ frame: CGRect) {
    guard checkFinite(frame.origin.x, frame.origin.y, frame.size.width, frame.size.height, function: #function) else { return }
    changeLayer(layer, .frame) { $0.setFrame(frame) }
}

// MARK: - Appearance

/// Opacity, 0 (transparent) to 1 (default).
@c public func CALayerGetOpacity(_ layer: CALayerRef?) -> Float {
    readLayer(layer, 1) { $0.opacity }
}

@c public func CALayerSetOpacity(_ layer: CALayerRef?, _ opacity: Float) {
    guard checkFinite(Double(opacity), function: #function) else { return }
    changeLayer(layer, .opacity) { $0.opacity = opacity }
}

@inline(__always)
func flag(_ l: Layer, _ key: LayerKey, _ f: LayerFlags) -> Bool { l.flags.contains(f) }

@inline(__always)
func setFlag(_ layer: CALayerRef?, _ key: LayerKey, _ f: LayerFlags, _ on: Bool, _ function: StaticString) {
    changeLayer(layer, key, function) { l in if on { l.flags.insert(f) } else { l.flags.remove(f) } }
}

/// Whether the layer is hidden (default false).
@c public func CALayerGetHidden(_ layer: CALayerRef?) -> Bool { readLayer(layer, false) { flag($0, .hidden, .hidden) } }
@c public func CALayerSetHidden(_ layer: CALayerRef?, _ hidden: Bool) { setFlag(layer, .hidden, .hidden, hidden, #function) }

/// Whether sublayers are clipped to the bounds (default false).
@c public func CALayerGetMasksToBounds(_ layer: CALayerRef?) -> Bool { readLayer(layer, false) { flag($0, .masksToBounds, .masksToBounds) } }
@c public func CALayerSetMasksToBounds(_ layer: CALayerRef?, _ masks: Bool) { setFlag(layer, .masksToBounds, .masksToBounds, masks, #function) }

/// Whether the back face is drawn (default true).
@c public func CALayerGetDoubleSided(_ layer: CALayerRef?) -> Bool { readLayer(layer, true) { flag($0, .doubleSided, .doubleSided) } }
@c public func CALayerSetDoubleSided(_ layer: CALayerRef?, _ doubleSided: Bool) { setFlag(layer, .doubleSided, .doubleSided, doubleSided, #function) }

/// Whether the layer declares itself fully opaque (default false).
@c public func CALayerGetOpaque(_ layer: CALayerRef?) -> Bool { readLayer(layer, false) { flag($0, .opaque, .opaque) } }
@c public func CALayerSetOpaque(_ layer: CALayerRef?, _ opaque: Bool) { setFlag(layer, .opaque, .opaque, opaque, #function) }

/// Whether the geometry of the sublayers is flipped vertically (default false).
@c public func CALayerGetGeometryFlipped(_ layer: CALayerRef?) -> Bool { readLayer(layer, false) { flag($0, .geometryFlipped, .geometryFlipped) } }
@c public func CALayerSetGeometryFlipped(_ layer: CALayerRef?, _ flipped: Bool) { setFlag(layer, .geometryFlipped, .geometryFlipped, flipped, #function) }

/// Whether a bounds change calls setNeedsDisplay (default false).
@c public func CALayerGetNeedsDisplayOnBoundsChange(_ layer: CALayerRef?) -> Bool {
    readLayer(layer, false) { flag($0, .needsDisplayOnBoundsChange, .needsDisplayOnBoundsChange) }
}
@c public func CALayerSetNeedsDisplayOnBoundsChange(_ layer: CALayerRef?, _ on: Bool) {
    setFlag(layer, .needsDisplayOnBoundsChange, .needsDisplayOnBoundsChange, on, #function)
}

/// Whether the layer is rendered into a cached bitmap (default false).
@c public func CALayerGetShouldRasterize(_ layer: CALayerRef?) -> Bool { readLayer(layer, false) { flag($0, .shouldRasterize, .shouldRasterize) } }
@c public func CALayerSetShouldRasterize(_ layer: CALayerRef?, _ on: Bool) { setFlag(layer, .shouldRasterize, .shouldRasterize, on, #function) }

@inline(__always)
func visualNumber(_ layer: CALayerRef?, _ key: LayerKey, _ fallback: Double, _ function: StaticString,
                  _ read: (LayerVisuals) -> Double) -> Double {
    readLayer(layer, fallback, function) { l in l.visuals.map(read) ?? fallback }
}

@inline(__always)
func setVisualNumber(_ layer: CALayerRef?, _ key: LayerKey, _ x: Double, _ function: StaticString,
                     _ write: (LayerVisuals, Double) -> Void) {
    guard checkFinite(x, function: function) else { return }
    changeLayer(layer, key, function) { write($0.ensureVisuals, x) }
}

/// Corner radius of the background and border (default 0).
@c public func CALayerGetCornerRadius(_ layer: CALayerRef?) -> Double { visualNumber(layer, .cornerRadius, 0, #function) { $0.cornerRadius } }
@c public func CALayerSetCornerRadius(_ layer: CALayerRef?, _ radius: Double) { setVisualNumber(layer, .cornerRadius, radius, #function) { $0.cornerRadius = $1 } }

/// Width of the border, drawn inset from the bounds (default 0).
@c public func CALayerGetBorderWidth(_ layer: CALayerRef?) -> Double { visualNumber(layer, .borderWidth, 0, #function) { $0.borderWidth } }
@c public func CALayerSetBorderWidth(_ layer: CALayerRef?, _ width: Double) { setVisualNumber(layer, .borderWidth, width, #function) { $0.borderWidth = $1 } }

/// Blur radius of the shadow (default 3).
@c public func CALayerGetShadowRadius(_ layer: CALayerRef?) -> Double { visualNumber(layer, .shadowRadius, 3, #function) { $0.shadowRadius } }
@c public func CALayerSetShadowRadius(_ layer: CALayerRef?, _ radius: Double) { setVisualNumber(layer, .shadowRadius, radius, #function) { $0.shadowRadius = $1 } }

/// Scale of the contents' pixels per point (default 1).
@c public func CALayerGetContentsScale(_ layer: CALayerRef?) -> Double { visualNumber(layer, .contentsScale, 1, #function) { $0.contentsScale } }
@c public func CALayerSetContentsScale(_ layer: CALayerRef?, _ scale: Double) { setVisualNumber(layer, .contentsScale, scale, #function) { $0.contentsScale = $1 } }

/// Scale of the rasterized bitmap when shouldRasterize is set (default 1).
@c public func CALayerGetRasterizationScale(_ layer: CALayerRef?) -> Double { visualNumber(layer, .rasterizationScale, 1, #function) { $0.rasterizationScale } }
@c public func CALayerSetRasterizationScale(_ layer: CALayerRef?, _ scale: Double) { setVisualNumber(layer, .rasterizationScale, scale, #function) { $0.rasterizationScale = $1 } }

/// Opacity of the shadow (default 0).
@c public func CALayerGetShadowOpacity(_ layer: CALayerRef?) -> Float {
    Float(visualNumber(layer, .shadowOpacity, 0, #function) { Double($0.shadowOpacity) })
}
@c public func CALayerSetShadowOpacity(_ layer: CALayerRef?, _ opacity: Float) {
    setVisualNumber(layer, .shadowOpacity, Double(opacity), #function) { $0.shadowOpacity = Float($1) }
}

/// Level-of-detail bias of the minification filter (default 0).
@c public func CALayerGetMinificationFilterBias(_ layer: CALayerRef?) -> Float {
    Float(visualNumber(layer, .minificationFilterBias, 0, #function) { Double($0.minificationFilterBias) })
}
@c public func CALayerSetMinificationFilterBias(_ layer: CALayerRef?, _ bias: Float) {
    setVisualNumber(layer, .minificationFilterBias, Double(bias), #function) { $0.minificationFilterBias = Float($1) }
}

/// Offset of the shadow (default (0, -3)).
@c public func CALayerGetShadowOffset(_ layer: CALayerRef?) -> CGSize {
    readLayer(layer, CGSize(width: 0, height: -3)) { $0.visuals?.shadowOffset ?? CGSize(width: 0, height: -3) }
}
@c public func CALayerSetShadowOffset(_ layer: CALayerRef?, _ offset: CGSize) {
    guard checkFinite(offset.width, offset.height, function: #function) else { return }
    changeLayer(layer, .shadowOffset) { $0.ensureVisuals.shadowOffset = offset }
}

/// The portion of the contents shown, in the unit square (default (0, 0, 1, 1)).
@c public func CALayerGetContentsRect(_ layer: CALayerRef?) -> CGRect {
    readLayer(layer, CGRect(x: 0, y: 0, width: 1, height: 1)) { l in
        l.visuals?.contentsRect ?? CGRect(x: 0, y: 0, width: 1, height: 1)
    }
}
@c public func CALayerSetContentsRect(_ layer: CALayerRef?, _ rect: CGRect) {
    guard checkFinite(rect.origin.x, rect.origin.y, rect.size.width, rect.size.height, function: #function) else { return }
    changeLayer(layer, .contentsRect) { $0.ensureVisuals.contentsRect = rect }
}

/// The stretchable centre of the contents, in the unit square (default (0, 0, 1, 1)).
@c public func CALayerGetContentsCenter(_ layer: CALayerRef?) -> CGRect {
    readLayer(layer, CGRect(x: 0, y: 0, width: 1, height: 1)) { l in
        l.visuals?.contentsCenter ?? CGRect(x: 0, y: 0, width: 1, height: 1)
    }
}
@c public func CALayerSetContentsCenter(_ layer: CALayerRef?, _ rect: CGRect) {
    guard checkFinite(rect.origin.x, rect.origin.y, rect.size.width, rect.size.height, function: #function) else { return }
    changeLayer(layer, .contentsCenter) { $0.ensureVisuals.contentsCenter = rect }
}

/// Which edges are antialiased (kCALayerLeftEdge | ... ; default all four).
@c public func CALayerGetEdgeAntialiasingMask(_ layer: CALayerRef?) -> CUnsignedInt {
    readLayer(layer, 15) { $0.visuals?.edgeAntialiasingMask ?? 15 }
}
@c public func CALayerSetEdgeAntialiasingMask(_ layer: CALayerRef?, _ mask: CUnsignedInt) {
    changeLayer(layer, .edgeAntialiasingMask) { $0.ensureVisuals.edgeAntialiasingMask = mask }
}

// MARK: - Colours (borrowed getters; setters retain)

/// Typed colour setter: no boxed value on the way.
@inline(__always)
func setLayerColor(_ layer: CALayerRef?, _ key: LayerKey, _ color: QZCGColorRef?, _ function: StaticString,
                   _ write: (LayerVisuals, Color?) -> Void) {
    var c: Color?
    if let color {
        guard let o = object(color, as: Color.self, function) else { return }
        c = o
    }
    changeLayer(layer, key, function) { write($0.ensureVisuals, c) }
}

@inline(__always)
func layerColor(_ layer: CALayerRef?, _ key: LayerKey, _ fallback: Color?, _ function: StaticString,
                _ read: (LayerVisuals) -> Color?) -> QZCGColorRef? {
    readLayer(layer, nil, function) { l in
        return borrowedColor(l.visuals.map(read) ?? fallback)
    }
}

/// The background colour (default NULL: none). Borrowed.
@c public func CALayerGetBackgroundColor(_ layer: CALayerRef?) -> QZCGColorRef? { layerColor(layer, .backgroundColor, nil, #function) { $0.backgroundColor } }
@c public func CALayerSetBackgroundColor(_ layer: CALayerRef?, _ color: QZCGColorRef?) {
    setLayerColor(layer, .backgroundColor, color, #function) { $0.backgroundColor = $1 }
}

/// The border colour (default opaque black). Borrowed.
@c public func CALayerGetBorderColor(_ layer: CALayerRef?) -> QZCGColorRef? { layerColor(layer, .borderColor, .opaqueBlack, #function) { $0.borderColor } }
@c public func CALayerSetBorderColor(_ layer: CALayerRef?, _ color: QZCGColorRef?) {
    setLayerColor(layer, .borderColor, color, #function) { $0.borderColor = $1 }
}

/// The shadow colour (default opaque black). Borrowed.
@c public func CALayerGetShadowColor(_ layer: CALayerRef?) -> QZCGColorRef? { layerColor(layer, .shadowColor, .opaqueBlack, #function) { $0.shadowColor } }
@c public func CALayerSetShadowColor(_ layer: CALayerRef?, _ color: QZCGColorRef?) {
    setLayerColor(layer, .shadowColor, color, #function) { $0.shadowColor = $1 }
}

// MARK: - Objects

/// The contents: what CALayerSetContents set (a CGImageRef or a
/// CVPixelBufferRef), the backing store the display cycle drew (a
/// CVPixelBufferRef), or NULL (default). Borrowed.
@c public func CALayerGetContents(_ layer: CALayerRef?) -> UnsafeRawPointer? {
    readLayer(layer, nil) { l in (l.visuals?.contents).map { UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()) } }
}

/// Sets the contents, as Apple's `contents` (an `id`): a CGImageRef or a
/// CVPixelBufferRef (retained: the layer keeps it alive, so the release
/// callback of a CVPixelBufferCreateWithBytes buffer waits until the layer
/// lets it go), or NULL for none. Any other handle records QZErrorWrongType
/// and changes nothing. Every pixel format with a conversion renders (the
/// 32, 24, 48 and 64-bit RGB formats, the 16-bit RGB 555, 5551 and 565
/// formats, gray, and 8-bit 4:2:0 and 4:2:2 Y'CbCr, converted to BGRA); a
/// buffer in any other format (indexed colour, which has no colour table,
/// the 10-bit and 4:4:4 Y'CbCr formats, registered formats) records
/// QZErrorInvalidArgument and changes nothing, instead of rendering as
/// nothing. The renderer reads the pixels at render time; lock and unlock a
/// pixel buffer read-write after changing them (the seed tells caches).
@c public func CALayerSetContents(_ layer: CALayerRef?, _ contents: UnsafeRawPointer?) {
    var v: Value?
    if let contents {
        guard let o = anyObject(contents) else { return }
        guard o is PixelBuffer || o is Image else {
            wrongType(OpaquePointer(contents), expected: "CGImageRef or CVPixelBuffer", #function)
            return
        }
        v = Value(.object(o))
    }
    setLayerValue(layer, .contents, v)
}

/// The shadow's shape, or NULL (default: the layer's alpha). Borrowed.
@c public func CALayerGetShadowPath(_ layer: CALayerRef?) -> QZCGPathRef? {
    readLayer(layer, nil) { l in (l.visuals?.shadowPath).map { OpaquePointer(Unmanaged.passUnretained($0).toOpaque()) } }
}

/// Sets the shadow's shape. A mutable path is copied (later changes to it do
/// not reach the layer); an immutable one is retained. NULL removes it.
@c public func CALayerSetShadowPath(_ layer: CALayerRef?, _ path: QZCGPathRef?) {
    var v: Value?
    if let path {
        guard let p = object(path, as: Path.self) else { return }
        v = Value(.object(p.isMutable ? Path(p.data, mutable: false) : p))
    }
    setLayerValue(layer, .shadowPath, v)
}

/// The mask layer, or NULL (default). Borrowed.
@c public func CALayerGetMask(_ layer: CALayerRef?) -> CALayerRef? {
    readLayer(layer, nil) { l in (l.visuals?.mask).map(borrowedHandle) }
}

/// Sets the mask layer (retained; NULL removes it). A layer that is a
/// sublayer somewhere (or another layer's mask) leaves its old tree and
/// becomes the mask: its superlayer is then the masked layer (observed on
/// Apple's QuartzCore). A mask that would make a cycle (the layer itself or
/// one of its ancestors) records QZErrorInvalidArgument.
@c public func CALayerSetMask(_ layer: CALayerRef?, _ mask: CALayerRef?) {
    guard let l = object(layer, as: Layer.self) else { return }
    let m = optionalLayer(mask, #function)
    guard m.ok else { return }
    withModelLock {
        let before = l.layerClass.hasNeedsDisplayForKey ? l.storedValue(.mask) : nil
        if l.setMask(m.layer, function: #function) {
            l.markSet(.mask)
            if l.layerClass.hasNeedsDisplayForKey { l.redisplayIfChanged(.mask, from: before) }
        }
    }
}

@inline(__always)
func layerValueProperty(_ layer: CALayerRef?, _ key: LayerKey, _ function: StaticString) -> CAValueRef? {
    readLayer(layer, nil, function) { l in
        let v: Value?
        switch key {
        case .filters: v = l.visuals?.filters
        case .backgroundFilters: v = l.visuals?.backgroundFilters
        case .compositingFilter: v = l.visuals?.compositingFilter
        case .style: v = l.visuals?.style
        default: v = l.visuals?.actions
        }
        return v.map(borrowedHandle)
    }
}

@inline(__always)
func setLayerValueProperty(_ layer: CALayerRef?, _ key: LayerKey, _ value: CAValueRef?, _ function: StaticString) {
    var v: Value?
    if let value { guard let o = object(value, as: Value.self, function) else { return }; v = o }
    setLayerValue(layer, key, v, function)
}

/// Filters applied to the layer's contents (stored as given; default NULL). Borrowed.
@c public func CALayerGetFilters(_ layer: CALayerRef?) -> CAValueRef? { layerValueProperty(layer, .filters, #function) }
@c public func CALayerSetFilters(_ layer: CALayerRef?, _ filters: CAValueRef?) { setLayerValueProperty(layer, .filters, filters, #function) }

/// Filters applied to what is behind the layer (stored as given; default NULL). Borrowed.
@c public func CALayerGetBackgroundFilters(_ layer: CALayerRef?) -> CAValueRef? { layerValueProperty(layer, .backgroundFilters, #function) }
@c public func CALayerSetBackgroundFilters(_ layer: CALayerRef?, _ filters: CAValueRef?) { setLayerValueProperty(layer, .backgroundFilters, filters, #function) }

/// The compositing filter (stored as given; default NULL: source-over). Borrowed.
@c public func CALayerGetCompositingFilter(_ layer: CALayerRef?) -> CAValueRef? { layerValueProperty(layer, .compositingFilter, #function) }
@c public func CALayerSetCompositingFilter(_ layer: CALayerRef?, _ filter: CAValueRef?) { setLayerValueProperty(layer, .compositingFilter, filter, #function) }

/// The style dictionary: values for properties not set explicitly, searched
/// through nested "style" entries (default NULL). Borrowed.
@c public func CALayerGetStyle(_ layer: CALayerRef?) -> CAValueRef? { layerValueProperty(layer, .style, #function) }
@c public func CALayerSetStyle(_ layer: CALayerRef?, _ style: CAValueRef?) { setLayerValueProperty(layer, .style, style, #function) }

/// The actions dictionary (key -> action object value; default NULL). Borrowed.
@c public func CALayerGetActions(_ layer: CALayerRef?) -> CAValueRef? { layerValueProperty(layer, .actions, #function) }
@c public func CALayerSetActions(_ layer: CALayerRef?, _ actions: CAValueRef?) { setLayerValueProperty(layer, .actions, actions, #function) }

/// The layer's name (default NULL). Borrowed.
@c public func CALayerGetName(_ layer: CALayerRef?) -> UnsafePointer<CChar>? {
    readLayer(layer, nil) { l in
        return (l.visuals?.name).map { UnsafePointer($0.pointer) }
    }
}
@c public func CALayerSetName(_ layer: CALayerRef?, _ name: UnsafePointer<CChar>?) {
    setLayerValue(layer, .name, name.map { Value(string: String(cString: $0)) })
}

// MARK: - String constants

@inline(__always)
func constantProperty(_ layer: CALayerRef?, _ key: LayerKey, _ set: ConstantSet, _ function: StaticString,
                      _ read: (Layer) -> UInt8) -> UnsafePointer<CChar>? {
    readLayer(layer, nil, function) { l in set.cString(read(l)) }
}

/// How the contents fill the bounds: kCAGravityResize (default) or another
/// kCAGravity* constant. Borrowed static string.
@c public func CALayerGetContentsGravity(_ layer: CALayerRef?) -> UnsafePointer<CChar>? {
    constantProperty(layer, .contentsGravity, .gravity, #function) { $0.visuals?.contentsGravity ?? ConstantSet.gravityResize }
}
@c public func CALayerSetContentsGravity(_ layer: CALayerRef?, _ gravity: UnsafePointer<CChar>?) {
    if let v = constantValue(gravity, #function) { setLayerValue(layer, .contentsGravity, v) }
}

/// Filter used when shrinking the contents: kCAFilterLinear (default), Nearest or Trilinear.
@c public func CALayerGetMinificationFilter(_ layer: CALayerRef?) -> UnsafePointer<CChar>? {
    constantProperty(layer, .minificationFilter, .filter, #function) { $0.visuals?.minificationFilter ?? 1 }
}
@c public func CALayerSetMinificationFilter(_ layer: CALayerRef?, _ filter: UnsafePointer<CChar>?) {
    if let v = constantValue(filter, #function) { setLayerValue(layer, .minificationFilter, v) }
}

/// Filter used when enlarging the contents: kCAFilterLinear (default) or Nearest.
@c public func CALayerGetMagnificationFilter(_ layer: CALayerRef?) -> UnsafePointer<CChar>? {
    constantProperty(layer, .magnificationFilter, .filter, #function) { $0.visuals?.magnificationFilter ?? 1 }
}
@c public func CALayerSetMagnificationFilter(_ layer: CALayerRef?, _ filter: UnsafePointer<CChar>?) {
    if let v = constantValue(filter, #function) { setLayerValue(layer, .magnificationFilter, v) }
}

// MARK: - CAMediaTiming of a layer

@inline(__always)
func timingNumber(_ layer: CALayerRef?, _ key: LayerKey, _ fallback: Double, _ function: StaticString,
                  _ read: (LayerTiming) -> Double) -> Double {
    readLayer(layer, fallback, function) { l in l.timing.map(read) ?? fallback }
}

@inline(__always)
func setTimingNumber(_ layer: CALayerRef?, _ key: LayerKey, _ x: Double, allowInfinity: Bool, _ function: StaticString,
                     _ write: (LayerTiming, Double) -> Void) {
    if x.isNaN || (!allowInfinity && !x.isFinite) {
        recordError(QZErrorNotFinite, function, "\(key.name) must be \(allowInfinity ? "a number" : "finite"), got \(x)")
        return
    }
    changeLayer(layer, key, function) { write($0.ensureTiming, x) }
}

/// Start of the layer's time space in its parent's (default 0).
@c public func CALayerGetBeginTime(_ layer: CALayerRef?) -> CFTimeInterval { timingNumber(layer, .beginTime, 0, #function) { $0.beginTime } }
@c public func CALayerSetBeginTime(_ layer: CALayerRef?, _ t: CFTimeInterval) { setTimingNumber(layer, .beginTime, t, allowInfinity: false, #function) { $0.beginTime = $1 } }

/// Duration of one pass through the layer's time (default infinite, as
/// observed on Apple's QuartzCore; where the reference gives 0, Apple's
/// behaviour wins).
/// A finite duration makes the layer's time cycle like an animation's: its
/// sublayers' and its own animations replay repeatCount times (or for
/// repeatDuration), backwards on the way back when it autoreverses, and
/// fillMode says what they show outside its active interval.
@c public func CALayerGetDuration(_ layer: CALayerRef?) -> CFTimeInterval { timingNumber(layer, .duration, .infinity, #function) { $0.duration } }
@c public func CALayerSetDuration(_ layer: CALayerRef?, _ t: CFTimeInterval) { setTimingNumber(layer, .duration, t, allowInfinity: true, #function) { $0.duration = $1 } }

/// Rate of the layer's time relative to its parent's (default 1; 0 pauses).
@c public func CALayerGetSpeed(_ layer: CALayerRef?) -> Float { Float(timingNumber(layer, .speed, 1, #function) { Double($0.speed) }) }
@c public func CALayerSetSpeed(_ layer: CALayerRef?, _ speed: Float) { setTimingNumber(layer, .speed, Double(speed), allowInfinity: false, #function) { $0.speed = Float($1) } }

/// Offset added to the layer's local time (default 0).
@c public func CALayerGetTimeOffset(_ layer: CALayerRef?) -> CFTimeInterval { timingNumber(layer, .timeOffset, 0, #function) { $0.timeOffset } }
@c public func CALayerSetTimeOffset(_ layer: CALayerRef?, _ t: CFTimeInterval) { setTimingNumber(layer, .timeOffset, t, allowInfinity: false, #function) { $0.timeOffset = $1 } }

/// Repeat count of the layer's cycle (default 0: once; HUGE_VALF repeats
/// forever; used with a finite duration).
@c public func CALayerGetRepeatCount(_ layer: CALayerRef?) -> Float { Float(timingNumber(layer, .repeatCount, 0, #function) { Double($0.repeatCount) }) }
@c public func CALayerSetRepeatCount(_ layer: CALayerRef?, _ count: Float) { setTimingNumber(layer, .repeatCount, Double(count), allowInfinity: true, #function) { $0.repeatCount = Float($1) } }

/// Repeat duration: the length of the layer's active interval (default 0:
/// repeatCount decides).
@c public func CALayerGetRepeatDuration(_ layer: CALayerRef?) -> CFTimeInterval { timingNumber(layer, .repeatDuration, 0, #function) { $0.repeatDuration } }
@c public func CALayerSetRepeatDuration(_ layer: CALayerRef?, _ t: CFTimeInterval) { setTimingNumber(layer, .repeatDuration, t, allowInfinity: true, #function) { $0.repeatDuration = $1 } }

/// Whether each cycle of the layer's time plays backwards after forwards
/// (default false; used with a finite duration).
@c public func CALayerGetAutoreverses(_ layer: CALayerRef?) -> Bool { readLayer(layer, false) { $0.timing?.autoreverses ?? false } }
@c public func CALayerSetAutoreverses(_ layer: CALayerRef?, _ on: Bool) { changeLayer(layer, .autoreverses) { $0.ensureTiming.autoreverses = on } }

/// Fill mode of the layer's time outside its active interval:
/// kCAFillModeRemoved (default: no time there, so the animations in it have
/// no effect), Forwards, Backwards or Both.
@c public func CALayerGetFillMode(_ layer: CALayerRef?) -> UnsafePointer<CChar>? {
    constantProperty(layer, .fillMode, .fillMode, #function) { $0.timing?.fillMode ?? 0 }
}
@c public func CALayerSetFillMode(_ layer: CALayerRef?, _ mode: UnsafePointer<CChar>?) {
    if let v = constantValue(mode, #function) { setLayerValue(layer, .fillMode, v) }
}

// MARK: - CAScrollLayer

/// Which directions a CAScrollLayer scrolls: kCAScrollBoth (default), None,
/// Vertically or Horizontally.
@c public func CAScrollLayerGetScrollMode(_ layer: CALayerRef?) -> UnsafePointer<CChar>? {
    readSubclassLayer(layer, .scroll, nil) { ConstantSet.scrollMode.cString($0.scrollMode) }
}
@c public func CAScrollLayerSetScrollMode(_ layer: CALayerRef?, _ mode: UnsafePointer<CChar>?) {
    if let v = constantValue(mode, #function) { setLayerValue(layer, .scrollMode, v) }
}

// MARK: - CATextLayer

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

/// The text (default NULL): a string value (UTF-8; invalid sequences are
/// drawn as U+FFFD), or an attributed string (a CFAttributedStringRef,
/// given directly or as an object value; the layer keeps an immutable copy,
/// read back as an object value), whose fonts and colours replace `font`,
/// `fontSize` and `foregroundColor`. Changing it redraws the layer at the
/// next commit. Borrowed.
@c public func CATextLayerGetString(_ layer: CALayerRef?) -> CAValueRef? {
    readSubclassLayer(layer, .text, nil) { $0.text?.string.map(borrowedHandle) }
}
@c public func CATextLayerSetString(_ layer: CALayerRef?, _ string: CAValueRef?) {
    let v = textPropertyValue(string, #function)
    if v.ok { setLayerValue(layer, .string, v.value, #function) }
}

/// The font: a font-name string value (default "Helvetica", Apple's default
/// face: a new text layer has a font, not NULL, as observed on Apple's
/// QuartzCore; setting NULL clears it and draws in Helvetica): "Helvetica",
/// "Helvetica-Bold", "Menlo", a fontconfig family or a PostScript name
/// (unknown names draw in Helvetica), or a CTFontRef (given directly or as
/// an object value) whose size is ignored, as the reference says. Borrowed.
@c public func CATextLayerGetFont(_ layer: CALayerRef?) -> CAValueRef? {
    readSubclassLayer(layer, .text, nil) { $0.text?.font.map(borrowedHandle) }
}
@c public func CATextLayerSetFont(_ layer: CALayerRef?, _ font: CAValueRef?) {
    let v = textPropertyValue(font, #function)
    if v.ok { setLayerValue(layer, .font, v.value, #function) }
}

/// Font size in points (default 36; animatable). Zero or negative sizes
/// draw nothing; sizes above 4096 draw at 4096; NaN and infinities are
/// QZErrorNotFinite.
@c public func CATextLayerGetFontSize(_ layer: CALayerRef?) -> Double {
    readSubclassLayer(layer, .text, 36) { $0.text?.fontSize ?? 36 }
}
@c public func CATextLayerSetFontSize(_ layer: CALayerRef?, _ size: Double) {
    guard checkFinite(size, function: #function) else { return }
    setLayerValue(layer, .fontSize, Value(.number(size)))
}

/// Text colour (default opaque white; animatable; NULL draws nothing).
/// Unused for attributed strings. Borrowed.
@c public func CATextLayerGetForegroundColor(_ layer: CALayerRef?) -> QZCGColorRef? {
    readSubclassLayer(layer, .text, nil) { l in
        return borrowedColor(l.text?.foregroundColor)
    }
}
@c public func CATextLayerSetForegroundColor(_ layer: CALayerRef?, _ color: QZCGColorRef?) {
    let c = colorValue(color, #function); if c.ok { setLayerValue(layer, .foregroundColor, c.value) }
}

/// Whether the text wraps at the bounds' width, between words and, for
/// words longer than a line, between characters (default false).
@c public func CATextLayerGetWrapped(_ layer: CALayerRef?) -> Bool {
    readSubclassLayer(layer, .text, false) { $0.text?.wrapped ?? false }
}
@c public func CATextLayerSetWrapped(_ layer: CALayerRef?, _ wrapped: Bool) { setLayerValue(layer, .wrapped, Value(.bool(wrapped))) }

/// Horizontal alignment of each line in the bounds: kCAAlignmentNatural
/// (default: left for left-to-right paragraphs, right for right-to-left
/// ones), Left, Right, Center or Justified (wrapped lines but a paragraph's
/// last fill the width).
@c public func CATextLayerGetAlignmentMode(_ layer: CALayerRef?) -> UnsafePointer<CChar>? {
    readSubclassLayer(layer, .text, nil) { ConstantSet.alignment.cString($0.text?.alignmentMode ?? 0) }
}
@c public func CATextLayerSetAlignmentMode(_ layer: CALayerRef?, _ mode: UnsafePointer<CChar>?) {
    if let v = constantValue(mode, #function) { setLayerValue(layer, .alignmentMode, v) }
}

/// Truncation: kCATruncationNone (default: text past the bounds is
/// clipped), Start, End or Middle: text that does not fit the bounds' width
/// is replaced by "…" at that place (wrapped text: in the last line that
/// fits the bounds' height).
@c public func CATextLayerGetTruncationMode(_ layer: CALayerRef?) -> UnsafePointer<CChar>? {
    readSubclassLayer(layer, .text, nil) { ConstantSet.truncation.cString($0.text?.truncationMode ?? 0) }
}
@c public func CATextLayerSetTruncationMode(_ layer: CALayerRef?, _ mode: UnsafePointer<CChar>?) {
    if let v = constantValue(mode, #function) { setLayerValue(layer, .truncationMode, v) }
}

// MARK: - CATiledLayer

/// Number of levels of detail (default 1).
@c public func CATiledLayerGetLevelsOfDetail(_ layer: CALayerRef?) -> size_t {
    readSubclassLayer(layer, .tiled, 1) { $0.tiled?.levelsOfDetail ?? 1 }
}
@c public func CATiledLayerSetLevelsOfDetail(_ layer: CALayerRef?, _ levels: size_t) {
    guard levels >= 0 else { recordError(QZErrorOutOfRange, #function, "levels \(levels) is out of range"); return }
    setLayerValue(layer, .levelsOfDetail, Value(.number(Double(levels))))
}

/// Number of magnified levels of detail (default 0).
@c public func CATiledLayerGetLevelsOfDetailBias(_ layer: CALayerRef?) -> size_t {
    readSubclassLayer(layer, .tiled, 0) { $0.tiled?.levelsOfDetailBias ?? 0 }
}
@c public func CATiledLayerSetLevelsOfDetailBias(_ layer: CALayerRef?, _ bias: size_t) {
    guard bias >= 0 else { recordError(QZErrorOutOfRange, #function, "bias \(bias) is out of range"); return }
    setLayerValue(layer, .levelsOfDetailBias, Value(.number(Double(bias))))
}

/// Tile size in pixels (default 256 x 256).
@c public func CATiledLayerGetTileSize(_ layer: CALayerRef?) -> CGSize {
    readSubclassLayer(layer, .tiled, CGSize(width: 256, height: 256)) { $0.tiled?.tileSize ?? CGSize(width: 256, height: 256) }
}
@c public func CATiledLayerSetTileSize(_ layer: CALayerRef?, _ size: CGSize) {
    guard checkFinite(size.width, size.height, function: #function) else { return }
    setLayerValue(layer, .tileSize, Value(.size(size)))
}

/// Apple's +[CATiledLayer fadeDuration]: 0.25 s.
@c public func CATiledLayerGetFadeDuration() -> CFTimeInterval { 0.25 }
