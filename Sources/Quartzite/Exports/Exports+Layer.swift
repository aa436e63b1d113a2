import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel
import QuartziteRender

// CALayer: creation, classes, the tree, geometry, hit testing, scrolling,
// layout, display, delegates and key-value coding. Every call holds the model
// lock, so the tree may be used from any thread. Callbacks (delegate, layout
// manager, class methods) run on the calling thread and may call back in.

/// A layer made through the API joins the calling thread's transaction: it
/// has no implicit animations until that transaction commits.
@inline(__always)
func enlistedNewLayer(_ l: Layer) -> Layer {
    Transactions.layerCreated(l)
    return l
}

/// Reads a layer under the model lock without retaining it.
@inline(__always)
func readLayer<R>(_ layer: CALayerRef?, _ fallback: R, _ function: StaticString = #function, _ body: (Layer) -> R) -> R {
    withObject(layer, as: Layer.self, fallback: fallback, function) { l in withModelLock { body(l) } }
}

/// Runs `body` on a layer under the model lock (a typed setter: the model's
/// set(key:) method does the change), or records the error.
@inline(__always)
func writeLayer(_ layer: CALayerRef?, _ function: StaticString = #function, _ body: (Layer) -> Void) {
    // (One closure, not withObject's and withModelLock's nested ones: the
    // typed setters stay one straight call into the model.)
    guard let layer else {
        recordError(QZErrorNullArgument, function, "CALayerRef argument is NULL")
        return
    }
    guard Layer.accepts(readTag(layer)) else {
        reportWrongHandle(layer, Layer.handleKind, function)
        return
    }
    qz_internal_model_lock()
    Unmanaged<Layer>.fromOpaque(UnsafeRawPointer(layer))._withUnsafeGuaranteedRef(body)
    qz_internal_model_unlock()
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

// MARK: - Creation and classes

/// Creates a CALayer with the spec's defaults. Returns +1: release with CARelease.
@c public func CALayerCreate() -> CALayerRef? {
    retainedHandle(withModelLock { enlistedNewLayer(Layer()) })
}

/// Creates a layer of class `cls` (built-in or made with CALayerClassCreate);
/// class defaults (defaultValueForKey) are applied. Returns +1.
@c public func CALayerCreateWithClass(_ cls: CALayerClassRef?) -> CALayerRef? {
    guard let c = object(cls, as: LayerClass.self) else { return nil }
    return retainedHandle(withModelLock { enlistedNewLayer(Layer(class: c)) })
}

/// Creates a CAScrollLayer (scrollMode kCAScrollBoth). Returns +1.
@c public func CAScrollLayerCreate() -> CALayerRef? {
    retainedHandle(withModelLock { enlistedNewLayer(Layer(class: .scroll)) })
}

/// Creates a CATextLayer (font Helvetica, fontSize 36, white foreground, not
/// wrapped, alignment natural, truncation none). Returns +1.
@c public func CATextLayerCreate() -> CALayerRef? {
    retainedHandle(withModelLock { enlistedNewLayer(Layer(class: .text)) })
}

/// Creates a CATiledLayer (levelsOfDetail 1, bias 0, tiles 256x256). Returns +1.
@c public func CATiledLayerCreate() -> CALayerRef? {
    retainedHandle(withModelLock { enlistedNewLayer(Layer(class: .tiled)) })
}

/// Creates a CAGradientLayer (no colours, so nothing drawn until they are
/// set; locations NULL; startPoint (0.5, 0); endPoint (0.5, 1); type
/// kCAGradientLayerAxial). The renderers draw its gradient over its
/// background colour and under its contents, inside its (rounded) bounds.
/// Returns +1.
@c public func CAGradientLayerCreate() -> CALayerRef? {
    retainedHandle(withModelLock { enlistedNewLayer(Layer(class: .gradient)) })
}

/// Creates a CAShapeLayer (no path; fill opaque black, non-zero rule; no
/// stroke colour; stroke from 0 to 1; line width 1, miter limit 10, butt
/// caps, miter joins, no dashes). The renderers draw its path every frame
/// from its presentation values, over its background and gradient and
/// under its sublayers. Returns +1.
@c public func CAShapeLayerCreate() -> CALayerRef? {
    retainedHandle(withModelLock { enlistedNewLayer(Layer(class: .shape)) })
}

/// Creates a CAReplicatorLayer (one instance, no delay, identity instance
/// transform, opaque white instance colour, zero colour offsets, depth not
/// preserved). The renderers draw its sublayers once per instance; the
/// instances are not layers of the tree. Returns +1.
@c public func CAReplicatorLayerCreate() -> CALayerRef? {
    retainedHandle(withModelLock { enlistedNewLayer(Layer(class: .replicator)) })
}

/// Returns the layer's class. Borrowed.
@c public func CALayerGetClass(_ layer: CALayerRef?) -> CALayerClassRef? {
    readLayer(layer, nil) { borrowedHandle($0.layerClass) }
}

/// Creates a layer "subclass" of `superclass` (NULL means CALayer) whose
/// non-NULL callbacks override the superclass's methods. The table is copied;
/// `callbacks->release(info)` runs when the class is freed. Returns +1.
@c public func CALayerClassCreate(_ name: UnsafePointer<CChar>?, _ superclass: CALayerClassRef?,
                                  _ callbacks: UnsafePointer<CALayerClassCallbacks>?, _ info: UnsafeMutableRawPointer?) -> CALayerClassRef? {
    guard let n = requireString(name, "name", #function) else { return nil }
    var parent = LayerClass.base
    if let superclass {
        guard let p = object(superclass, as: LayerClass.self) else { return nil }
        parent = p
    }
    if let callbacks, callbacks.pointee.version != 0 {
        recordError(QZErrorInvalidArgument, #function, "callbacks version \(callbacks.pointee.version) is not supported (use 0)")
        return nil
    }
    return retainedHandle(LayerClass(name: n, superclass: parent, callbacks: callbacks?.pointee, info: info))
}

/// Returns a built-in class by name: "CALayer", "CAScrollLayer", "CATextLayer"
/// or "CATiledLayer". Borrowed (never freed). Other names record
/// QZErrorUnknownConstant and return NULL.
@c public func CALayerClassGetBuiltin(_ name: UnsafePointer<CChar>?) -> CALayerClassRef? {
    guard let n = requireString(name, "name", #function) else { return nil }
    guard let c = LayerClass.builtin(named: n) else {
        recordError(QZErrorUnknownConstant, #function, "\"\(n)\" is not a built-in layer class")
        return nil
    }
    return borrowedHandle(c)
}

/// Returns the class's name. Borrowed: valid while the class lives.
@c public func CALayerClassGetName(_ cls: CALayerClassRef?) -> UnsafePointer<CChar>? {
    withObject(cls, as: LayerClass.self, fallback: nil) { UnsafePointer($0.cName.pointer) }
}

/// Returns the superclass (NULL for CALayer). Borrowed.
@c public func CALayerClassGetSuperclass(_ cls: CALayerClassRef?) -> CALayerClassRef? {
    withObject(cls, as: LayerClass.self, fallback: nil) { $0.superclass.map(borrowedHandle) }
}

/// Apple's +defaultValueForKey: for a class: its callbacks' answer, else the
/// spec's default of a declared property (zero values by type, identity for
/// transforms), else NULL. As observed on Apple's QuartzCore (Apple's
/// behaviour wins over the reference's property defaults), there is none
/// (NULL) for bounds, position, frame, minificationFilterBias, filters,
/// compositingFilter, backgroundFilters and mask. Returns +1 (or NULL).
@c public func CALayerClassCopyDefaultValueForKey(_ cls: CALayerClassRef?, _ key: UnsafePointer<CChar>?) -> CAValueRef? {
    guard let c = object(cls, as: LayerClass.self), let k = requireString(key, "key", #function) else { return nil }
    return c.defaultValue(forKey: k).map(retainedHandle)
}

/// Apple's +[CALayer defaultValueForKey:] (NULL for bounds, position, frame,
/// minificationFilterBias, filters, compositingFilter, backgroundFilters and
/// mask, as observed on Apple's QuartzCore). Returns +1 (or NULL).
@c public func CALayerCopyDefaultValueForKey(_ key: UnsafePointer<CChar>?) -> CAValueRef? {
    guard let k = requireString(key, "key", #function) else { return nil }
    return LayerClass.base.defaultValue(forKey: k).map(retainedHandle)
}

/// Apple's +needsDisplayForKey: for a class (false unless a callback says so).
/// A layer of the class is marked for display when a property it names
/// changes value, through its setter or key-value coding alike; setting the
/// value the property already has does not mark it (observed on Apple's
/// QuartzCore).
@c public func CALayerClassNeedsDisplayForKey(_ cls: CALayerClassRef?, _ key: UnsafePointer<CChar>?) -> Bool {
    guard let c = object(cls, as: LayerClass.self), let k = requireString(key, "key", #function) else { return false }
    return c.needsDisplay(forKey: k)
}

/// Apple's -shouldArchiveValueForKey:, as observed on Apple's QuartzCore
/// (where the reference says true, Apple's behaviour wins): false for a property until it
/// has been set (by its setter or key-value coding; setting the frame sets
/// the position and bounds), true after; always false for "frame" and
/// "superlayer". A custom key is set while it holds a value.
@c public func CALayerShouldArchiveValueForKey(_ layer: CALayerRef?, _ key: UnsafePointer<CChar>?) -> Bool {
    guard let k = requireString(key, "key", #function) else { return false }
    return readLayer(layer, false) { $0.shouldArchiveValue(forKey: k) }
}

// MARK: - The tree

/// Appends `sublayer` (moving it from any superlayer). A cycle records
/// QZErrorInvalidArgument and changes nothing. The superlayer holds a reference.
@c public func CALayerAddSublayer(_ layer: CALayerRef?, _ sublayer: CALayerRef?) {
    // (Borrowed, not retained: the caller's references keep both alive.)
    withObject(layer, as: Layer.self, fallback: ()) { parent in
        withObject(sublayer, as: Layer.self, fallback: ()) { child in
            withModelLock { if parent.addSublayer(child, function: #function) { child.triggerAction("onOrderIn") } }
        }
    }
}

/// Inserts `sublayer` at `index` (0...count; out of range records QZErrorOutOfRange).
@c public func CALayerInsertSublayerAtIndex(_ layer: CALayerRef?, _ sublayer: CALayerRef?, _ index: CUnsignedInt) {
    withObject(layer, as: Layer.self, fallback: ()) { parent in
        withObject(sublayer, as: Layer.self, fallback: ()) { child in
            withModelLock { if parent.insertSublayer(child, at: Int(index), function: #function) { child.triggerAction("onOrderIn") } }
        }
    }
}

/// Inserts `sublayer` just below `sibling`, which must be a sublayer
/// (otherwise QZErrorInvalidArgument).
@c public func CALayerInsertSublayerBelow(_ layer: CALayerRef?, _ sublayer: CALayerRef?, _ sibling: CALayerRef?) {
    guard let parent = object(layer, as: Layer.self), let child = object(sublayer, as: Layer.self),
          let s = object(sibling, as: Layer.self) else { return }
    withModelLock { if parent.insertSublayer(child, relativeTo: s, above: false, function: #function) { child.triggerAction("onOrderIn") } }
}

/// Inserts `sublayer` just above `sibling`, which must be a sublayer.
@c public func CALayerInsertSublayerAbove(_ layer: CALayerRef?, _ sublayer: CALayerRef?, _ sibling: CALayerRef?) {
    guard let parent = object(layer, as: Layer.self), let child = object(sublayer, as: Layer.self),
          let s = object(sibling, as: Layer.self) else { return }
    withModelLock { if parent.insertSublayer(child, relativeTo: s, above: true, function: #function) { child.triggerAction("onOrderIn") } }
}

/// Replaces the sublayer `oldLayer` with `newLayer` at the same index.
@c public func CALayerReplaceSublayer(_ layer: CALayerRef?, _ oldLayer: CALayerRef?, _ newLayer: CALayerRef?) {
    // (The layers are held inside the lock: `old` may go with this reference,
    // and a layer is only ever freed under the lock; see releaseHandle.)
    withModelLock {
        guard let parent = object(layer, as: Layer.self), let old = object(oldLayer, as: Layer.self),
              let new = object(newLayer, as: Layer.self) else { return }
        withExtendedLifetime(old) {
            if parent.replaceSublayer(old, with: new, function: #function) {
                parent.triggerAction("transition")
                old.triggerAction("onOrderOut")
                new.triggerAction("onOrderIn")
            }
        }
    }
}

/// Detaches the layer from its superlayer (or from the layer it masks).
/// Without a superlayer it does nothing.
@c public func CALayerRemoveFromSuperlayer(_ layer: CALayerRef?) {
    withModelLock {
        // Keep the layer alive while its superlayer lets go of it (and
        // free it, if this was its last reference, inside the lock).
        guard let l = object(layer, as: Layer.self) else { return }
        withExtendedLifetime(l) {
            guard l.fixedTreeAllows(#function) else { return }
            let hadSuperlayer = l.superlayer != nil
            l.detach()
            if hadSuperlayer { l.triggerAction("onOrderOut") }
        }
    }
}

/// Returns the superlayer (for a mask, the layer it masks), or NULL. Borrowed.
@c public func CALayerGetSuperlayer(_ layer: CALayerRef?) -> CALayerRef? {
    readLayer(layer, nil) { $0.superlayer.map(borrowedHandle) }
}

/// Returns the number of sublayers.
@c public func CALayerGetSublayerCount(_ layer: CALayerRef?) -> size_t {
    readLayer(layer, 0) { $0.sublayerCount }
}

/// Returns sublayer `index` (back to front). Borrowed. Out of range records
/// QZErrorOutOfRange and returns NULL.
@c public func CALayerGetSublayerAtIndex(_ layer: CALayerRef?, _ index: size_t) -> CALayerRef? {
    readLayer(layer, nil) { l in
        let count = l.sublayerCount
        guard index >= 0, index < count else {
            recordError(QZErrorOutOfRange, #function, "index \(index) is outside 0..<\(count)")
            return nil
        }
        return borrowedHandle(l.sublayer(at: index))
    }
}

/// Replaces all sublayers with `layers[0..<count]` (each moved from its old
/// superlayer). Duplicates, cycles or NULL entries record an error and change
/// nothing. `layers` may be NULL when `count` is 0.
@c public func CALayerSetSublayers(_ layer: CALayerRef?, _ layers: UnsafePointer<CALayerRef?>?, _ count: size_t) {
    guard let parent = object(layer, as: Layer.self) else { return }
    guard count >= 0, count < 1 << 32 else {
        recordError(QZErrorOutOfRange, #function, "count \(count) is out of range")
        return
    }
    var list: [Layer] = []
    if count > 0 {
        guard let layers else {
            recordError(QZErrorNullArgument, #function, "layers is NULL but count is \(count)")
            return
        }
        for i in 0..<count {
            guard let p = layers[i] else {
                recordError(QZErrorNullArgument, #function, "layers[\(i)] is NULL")
                return
            }
            guard let l = object(p, as: Layer.self) else { return }
            list.append(l)
        }
    }
    withModelLock {
        let old = parent.sublayers
        guard parent.setSublayers(list, function: #function) else { return }
        // (Sets: a list of many layers must not cost old x new comparisons.)
        let kept = Set(list.map(ObjectIdentifier.init)), before = Set(old.map(ObjectIdentifier.init))
        for l in old where !kept.contains(ObjectIdentifier(l)) { l.triggerAction("onOrderOut") }
        for l in list where !before.contains(ObjectIdentifier(l)) { l.triggerAction("onOrderIn") }
    }
}

// MARK: - Geometry

/// Converts `point` from `other`'s coordinates (NULL: the space the root's
/// position is in) to the layer's, through transforms, sublayerTransforms
/// (perspective included) and geometry flips. A layer flattened to a line
/// records QZErrorInvalidArgument and returns the point unchanged.
@c public func CALayerConvertPointFromLayer(_ layer: CALayerRef?, _ point: CGPoint, _ other: CALayerRef?) -> CGPoint {
    guard checkFinite(point.x, point.y, function: #function), let l = object(layer, as: Layer.self) else { return point }
    let o = optionalLayer(other, #function)
    guard o.ok else { return point }
    return withModelLock {
        guard let p = l.convert(point, from: o.layer) else {
            recordError(QZErrorInvalidArgument, #function, "the layer's plane is seen edge-on: no inverse")
            return point
        }
        return p
    }
}

/// Converts `point` from the layer's coordinates to `other`'s (NULL: the root's position space).
@c public func CALayerConvertPointToLayer(_ layer: CALayerRef?, _ point: CGPoint, _ other: CALayerRef?) -> CGPoint {
    guard checkFinite(point.x, point.y, function: #function), let l = object(layer, as: Layer.self) else { return point }
    let o = optionalLayer(other, #function)
    guard o.ok else { return point }
    return withModelLock {
        guard let p = l.convert(point, to: o.layer) else {
            recordError(QZErrorInvalidArgument, #function, "the other layer's plane is seen edge-on: no inverse")
            return point
        }
        return p
    }
}

/// Converts a rectangle from `other`'s coordinates; the result is the bounding
/// box of the converted corners.
@c public func CALayerConvertRectFromLayer(_ layer: CALayerRef?, _ rect: CGRect, _ other: CALayerRef?) -> CGRect {
    guard checkRect(rect, #function), let l = object(layer, as: Layer.self) else { return rect }
    let o = optionalLayer(other, #function)
    guard o.ok else { return rect }
    return withModelLock {
        guard let r = l.convert(rect, from: o.layer) else {
            recordError(QZErrorInvalidArgument, #function, "the layer's plane is seen edge-on: no inverse")
            return rect
        }
        return r
    }
}

/// Converts a rectangle from the layer's coordinates to `other`'s.
@c public func CALayerConvertRectToLayer(_ layer: CALayerRef?, _ rect: CGRect, _ other: CALayerRef?) -> CGRect {
    guard checkRect(rect, #function), let l = object(layer, as: Layer.self) else { return rect }
    let o = optionalLayer(other, #function)
    guard o.ok else { return rect }
    return withModelLock {
        guard let r = l.convert(rect, to: o.layer) else {
            recordError(QZErrorInvalidArgument, #function, "the other layer's plane is seen edge-on: no inverse")
            return rect
        }
        return r
    }
}

/// Converts a time from `other`'s local time (NULL: absolute media time) to
/// the layer's: each layer maps its parent's time t to (t - beginTime) *
/// speed + timeOffset, and a layer with a finite duration to the position in
/// its cycle (repeats, autoreverse, fill mode: the time model of animations).
/// Going up the tree inverts the linear part only (a cycle has no single
/// inverse); where a layer has no time (outside its active interval without
/// fill) the linear mapping is used.
@c public func CALayerConvertTimeFromLayer(_ layer: CALayerRef?, _ time: CFTimeInterval, _ other: CALayerRef?) -> CFTimeInterval {
    guard checkFinite(time, function: #function), let l = object(layer, as: Layer.self) else { return time }
    let o = optionalLayer(other, #function)
    guard o.ok else { return time }
    return withModelLock { l.convertTime(time, from: o.layer) }
}

/// Converts a time from the layer's local time to `other`'s (NULL: absolute media time).
@c public func CALayerConvertTimeToLayer(_ layer: CALayerRef?, _ time: CFTimeInterval, _ other: CALayerRef?) -> CFTimeInterval {
    guard checkFinite(time, function: #function), let l = object(layer, as: Layer.self) else { return time }
    let o = optionalLayer(other, #function)
    guard o.ok else { return time }
    return withModelLock { l.convertTime(time, to: o.layer) }
}

/// Returns the front-most layer of the subtree containing `point` (in the
/// superlayer's coordinates), or NULL. Hidden layers, and with masksToBounds
/// the area outside the bounds, are skipped. Borrowed.
@c public func CALayerHitTest(_ layer: CALayerRef?, _ point: CGPoint) -> CALayerRef? {
    guard checkFinite(point.x, point.y, function: #function) else { return nil }
    return readLayer(layer, nil) { $0.hitTest(point).map(borrowedHandle) }
}

/// True when `point` (layer coordinates) is inside the bounds.
@c public func CALayerContainsPoint(_ layer: CALayerRef?, _ point: CGPoint) -> Bool {
    guard checkFinite(point.x, point.y, function: #function) else { return false }
    return readLayer(layer, false) { $0.contains(point) }
}

/// Apple's preferredFrameSize: the class's or layout manager's answer, else
/// the bounds size mapped into the superlayer's space.
@c public func CALayerGetPreferredFrameSize(_ layer: CALayerRef?) -> CGSize {
    readLayer(layer, CGSize(width: 0, height: 0)) { $0.preferredFrameSize }
}

/// The part of the bounds not clipped by enclosing scroll layers.
@c public func CALayerGetVisibleRect(_ layer: CALayerRef?) -> CGRect {
    readLayer(layer, .null) { $0.visibleRect }
}

/// Scrolls the closest enclosing CAScrollLayer so that `point` (layer
/// coordinates) lies at its top left (its bounds origin), as far as its
/// scrollMode allows; the layer's visibleRect follows. On a CAScrollLayer
/// itself it scrolls that layer (observed on Apple's QuartzCore). Without
/// a scroll layer it does nothing.
@c public func CALayerScrollPoint(_ layer: CALayerRef?, _ point: CGPoint) {
    guard checkFinite(point.x, point.y, function: #function) else { return }
    readLayer(layer, ()) { l in
        guard let scroller = l.scrollingLayer else { return }
        guard let p = scroller === l ? point : l.convert(point, to: scroller) else { return }
        scroller.scroll(to: p)
    }
}

/// Scrolls the closest enclosing CAScrollLayer (or the layer itself when it
/// is one) by the least amount that makes `rect` (layer coordinates) visible.
@c public func CALayerScrollRectToVisible(_ layer: CALayerRef?, _ rect: CGRect) {
    guard checkRect(rect, #function) else { return }
    readLayer(layer, ()) { l in
        guard let scroller = l.scrollingLayer else { return }
        guard let r = scroller === l ? rect : l.convert(rect, to: scroller) else { return }
        scroller.scroll(toVisible: r)
    }
}

/// True when the layer's contents are drawn flipped: an odd number of
/// geometryFlipped layers from it up to its root.
@c public func CALayerContentsAreFlipped(_ layer: CALayerRef?) -> Bool {
    readLayer(layer, false) { $0.contentsAreFlipped }
}

// MARK: - CAScrollLayer

/// Scrolls a CAScrollLayer: its bounds origin becomes `point`, as far as
/// scrollMode allows.
@c public func CAScrollLayerScrollToPoint(_ layer: CALayerRef?, _ point: CGPoint) {
    guard checkFinite(point.x, point.y, function: #function) else { return }
    readSubclassLayer(layer, .scroll, ()) { $0.scroll(to: point) }
}

/// Scrolls a CAScrollLayer by the least amount that makes `rect` visible.
@c public func CAScrollLayerScrollToRect(_ layer: CALayerRef?, _ rect: CGRect) {
    guard checkRect(rect, #function) else { return }
    readSubclassLayer(layer, .scroll, ()) { $0.scroll(toVisible: rect) }
}

// MARK: - Layout

/// Marks the layer as needing layout and tells its layout manager
/// (invalidateLayoutOfLayer) if it did not need layout yet: a second call
/// while the layout is pending does not tell it again (as observed on
/// Apple's QuartzCore).
@c public func CALayerSetNeedsLayout(_ layer: CALayerRef?) {
    readLayer(layer, ()) { $0.setNeedsLayout() }
}

/// Apple's -needsLayout.
@c public func CALayerNeedsLayout(_ layer: CALayerRef?) -> Bool {
    readLayer(layer, false) { $0.needsLayout }
}

/// Climbs to the highest ancestor needing layout and lays out every layer
/// beneath it that needs it, top down.
@c public func CALayerLayoutIfNeeded(_ layer: CALayerRef?) {
    readLayer(layer, ()) { $0.layoutIfNeeded() }
}

/// Apple's -layoutSublayers: the class override, else the delegate's
/// layoutSublayersOfLayer, else the layout manager's.
@c public func CALayerLayoutSublayers(_ layer: CALayerRef?) {
    readLayer(layer, ()) { $0.layoutSublayers() }
}

/// Installs the layout manager (table copied; NULL removes it). The previous
/// one's release(info) is called.
@c public func CALayerSetLayoutManager(_ layer: CALayerRef?, _ callbacks: UnsafePointer<CALayoutManagerCallbacks>?, _ info: UnsafeMutableRawPointer?) {
    if let callbacks, callbacks.pointee.version != 0 {
        recordError(QZErrorInvalidArgument, #function, "callbacks version \(callbacks.pointee.version) is not supported (use 0)")
        return
    }
    readLayer(layer, ()) { $0.setLayoutManager(callbacks?.pointee, callbacks == nil ? nil : info) }
}

// MARK: - Display

/// Marks the whole layer for redisplay: the commit of the calling thread's
/// transaction (CATransactionCommit or Flush, the run loop's turn,
/// CARendererBeginFrameAtTime) displays it, on the committing thread.
@c public func CALayerSetNeedsDisplay(_ layer: CALayerRef?) {
    readLayer(layer, ()) { $0.setNeedsDisplay() }
}

/// Marks `rect` (layer coordinates) for redisplay; rectangles accumulate.
/// At the commit, only the marked area (rounded out to whole pixels) is
/// cleared and redrawn when the backing store keeps its size.
@c public func CALayerSetNeedsDisplayInRect(_ layer: CALayerRef?, _ rect: CGRect) {
    guard checkRect(rect, #function) else { return }
    readLayer(layer, ()) { $0.setNeedsDisplay(in: rect) }
}

/// Apple's -needsDisplay.
@c public func CALayerNeedsDisplay(_ layer: CALayerRef?) -> Bool {
    readLayer(layer, false) { $0.needsDisplay }
}

/// The area marked for redisplay since the last display (CGRectNull when
/// none). CALayerSetNeedsDisplay marks the whole layer: the area then
/// includes the layer's bounds as they are when this is read.
@c public func QZLayerGetDirtyRect(_ layer: CALayerRef?) -> CGRect {
    readLayer(layer, .null) { $0.dirtyRect }
}

/// Displays the layer if it is marked.
@c public func CALayerDisplayIfNeeded(_ layer: CALayerRef?) {
    readLayer(layer, ()) { $0.displayIfNeeded() }
}

/// Apple's -display: the class's display, else the delegate's displayLayer,
/// else drawInContext (class) or drawLayerInContext (delegate) into the
/// layer's backing store (ceil(bounds x contentsScale) pixels of
/// premultiplied BGRA, which becomes its contents) through a context whose
/// CTM maps layer coordinates and whose clip is the marked area (the whole
/// layer when unmarked or when the store is new). Clears the mark. A layer
/// with no drawing method gets no backing store.
@c public func CALayerDisplay(_ layer: CALayerRef?) {
    readLayer(layer, ()) { $0.display() }
}

/// Installs the delegate (table copied; NULL removes it). The previous one's
/// release(info) is called.
@c public func CALayerSetDelegate(_ layer: CALayerRef?, _ callbacks: UnsafePointer<CALayerDelegateCallbacks>?, _ info: UnsafeMutableRawPointer?) {
    if let callbacks, callbacks.pointee.version != 0 {
        recordError(QZErrorInvalidArgument, #function, "callbacks version \(callbacks.pointee.version) is not supported (use 0)")
        return
    }
    readLayer(layer, ()) { $0.setDelegate(callbacks?.pointee, callbacks == nil ? nil : info) }
}

// MARK: - Key-value coding

/// Apple's setValue:forKey:. Declared properties are type-checked (a wrong
/// type records QZErrorWrongType and changes nothing); other keys are stored
/// as given. NULL or the null value clears a custom key.
@c public func CALayerSetValueForKey(_ layer: CALayerRef?, _ key: UnsafePointer<CChar>?, _ value: CAValueRef?) {
    guard let k = requireString(key, "key", #function) else { return }
    var v: Value?
    if let value { guard let o = object(value, as: Value.self) else { return }; v = o }
    readLayer(layer, ()) { l in l.transactionChange(keyPath: k) { _ = l.setValue(v, forKey: k, function: #function) } }
}

/// Apple's setValue:forKeyPath:, with struct fields ("position.x",
/// "bounds.size.width"), transform fields ("transform.rotation.z",
/// "sublayerTransform.scale") and nested dictionaries of custom keys.
@c public func CALayerSetValueForKeyPath(_ layer: CALayerRef?, _ keyPath: UnsafePointer<CChar>?, _ value: CAValueRef?) {
    guard let k = requireString(keyPath, "keyPath", #function) else { return }
    var v: Value?
    if let value { guard let o = object(value, as: Value.self) else { return }; v = o }
    readLayer(layer, ()) { l in l.transactionChange(keyPath: k) { _ = l.setValue(v, forKeyPath: k, function: #function) } }
}

/// Apple's valueForKey:: the property's value, a custom value, the style
/// dictionary's, or the class default. Returns +1, or NULL for nil.
@c public func CALayerCopyValueForKey(_ layer: CALayerRef?, _ key: UnsafePointer<CChar>?) -> CAValueRef? {
    guard let k = requireString(key, "key", #function) else { return nil }
    return readLayer(layer, nil) { $0.value(forKey: k).map(retainedHandle) }
}

/// Apple's valueForKeyPath:. Returns +1, or NULL when nothing is there.
@c public func CALayerCopyValueForKeyPath(_ layer: CALayerRef?, _ keyPath: UnsafePointer<CChar>?) -> CAValueRef? {
    guard let k = requireString(keyPath, "keyPath", #function) else { return nil }
    return readLayer(layer, nil) { $0.value(forKeyPath: k).map(retainedHandle) }
}

/// Sets a number at a key path (a shortcut for CALayerSetValueForKeyPath).
@c public func CALayerSetNumberForKeyPath(_ layer: CALayerRef?, _ keyPath: UnsafePointer<CChar>?, _ number: Double) {
    guard let k = requireString(keyPath, "keyPath", #function) else { return }
    readLayer(layer, ()) { l in l.transactionChange(keyPath: k) { _ = l.setValue(Value(.number(number)), forKeyPath: k, function: #function) } }
}

/// Reads a number at a key path; 0 with QZErrorWrongType when the value there
/// is not a number, 0 without an error when there is none.
@c public func CALayerGetNumberForKeyPath(_ layer: CALayerRef?, _ keyPath: UnsafePointer<CChar>?) -> Double {
    guard let k = requireString(keyPath, "keyPath", #function) else { return 0 }
    return readLayer(layer, 0) { l in
        guard let v = l.value(forKeyPath: k) else { return 0 }
        guard let n = v.number else {
            recordError(QZErrorWrongType, #function, "the value at \"\(k)\" is \(withArticle(valueTypeName(v.type))), not a number")
            return 0
        }
        return n
    }
}
