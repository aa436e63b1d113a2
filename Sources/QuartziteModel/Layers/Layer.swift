import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics

/// A layer: the model object users build trees of (Apple's CALayer and its
/// built-in subclasses). Hot geometry lives inline; appearance, timing and
/// subclass state live in side objects allocated on first use, so a layer
/// with default properties stays small. Every access holds the model lock.
public final class Layer: QZObject, Handle {
    // Stored properties in the order a presentation frame reads them: the
    // fields it copies and the links it follows first (three to four cache
    // lines; a plain leaf's values and visuals in the first 128 bytes), the
    // state it never reads (the creating transaction, the explicitly-set
    // bits) last, and rarely used state in `extras`.

    // MARK: Geometry (inline)
    @usableFromInline package var opacity: Float = 1
    /// (A new layer starts with `sideState`: the first presentation copy
    /// that finds it a plain leaf clears it.)
    @usableFromInline package var flags = LayerFlags.defaults.union(.sideState)
    /// CAScrollLayer.scrollMode (an index into ConstantSet.scrollMode).
    package var scrollMode: UInt8 = 0
    /// In AnimationRegistry.layers (never copied: copies are not registered).
    package var inAnimationRegistry = false
    @usableFromInline package var bounds = CGRect.zero
    @usableFromInline package var position = CGPoint(x: 0, y: 0)
    @usableFromInline package var anchorPoint = CGPoint(x: 0.5, y: 0.5)
    @usableFromInline package var zPosition = 0.0
    @usableFromInline package var anchorPointZ = 0.0
    /// nil means the identity (most layers).
    @usableFromInline package var transformBox: TransformBox?
    // (The visuals next: a plain leaf's presentation values end here, in
    // the first 128 bytes; see PresentationLeaves.swift.)
    @usableFromInline package var visuals: LayerVisuals?
    // The visuals most layers that have any set, inline (no side object to
    // allocate on a layer's first visual property, nor to read and copy):
    // the next line after the first 128 bytes. Every write sets the
    // `commonVisuals` flag, so that a presentation leaf reads them only
    // when it is set (PresentationLeaves.swift). Their storage, `_name`, is
    // only read directly.
    package var _backgroundColor: Color?
    package var _cornerRadius = 0.0
    package var _borderWidth = 0.0
    @usableFromInline package var backgroundColor: Color? {
        @inline(__always) get { _backgroundColor }
        @inline(__always) set { _backgroundColor = newValue; flags.insert(.commonVisuals) }
    }
    @usableFromInline package var cornerRadius: Double {
        @inline(__always) get { _cornerRadius }
        @inline(__always) set { _cornerRadius = newValue; flags.insert(.commonVisuals) }
    }
    @usableFromInline package var borderWidth: Double {
        @inline(__always) get { _borderWidth }
        @inline(__always) set { _borderWidth = newValue; flags.insert(.commonVisuals) }
    }
    /// Storage of `sublayerTransformBox` (read only; writes go through it).
    package var _sublayerTransformBox: TransformBox?
    @usableFromInline package var sublayerTransformBox: TransformBox? {
        @inline(__always) get { _sublayerTransformBox }
        @inline(__always) set { _sublayerTransformBox = newValue; flags.insert(.sideState) }
        @inline(__always) _modify { flags.insert(.sideState); yield &_sublayerTransformBox }
    }

    // MARK: Tree
    /// Back-reference, cleared when the superlayer removes or frees this layer.
    package unowned(unsafe) var superlayer: Layer?
    /// The sublayer objects (empty while a presentation copy keeps its
    /// sublayers as values: see `sublayers` and PresentationLeaves.swift).
    package var storedSublayers: [Layer] = [] {
        didSet { _extras?.zOrderEpoch = 0; flags.insert(.sideState) }
    }
    /// The sublayers. A presentation copy made for the host may keep them as
    /// values (the `lazySublayers` flag): reading or changing the array
    /// makes their objects first.
    package var sublayers: [Layer] {
        // (Yielded, not returned: a read borrows the array, without the
        // retain and release a getter's result would cost.)
        @inline(__always) _read {
            if _slowPath(flags.contains(.lazySublayers)) { makeLazySublayers() }
            yield storedSublayers
        }
        set {
            if _slowPath(flags.contains(.lazySublayers)) { dropLazySublayers() }
            storedSublayers = newValue
        }
        _modify {
            if _slowPath(flags.contains(.lazySublayers)) { makeLazySublayers() }
            yield &storedSublayers
        }
    }

    // MARK: Side storage (nil until something non-default is set)
    // Every write of these (and of `storedSublayers` and
    // `sublayerTransformBox`) sets the `sideState` flag: while it is clear,
    // none of them holds anything (PresentationLeaves.swift). Their storage,
    // `_name`, is only read directly (and is `package`, not private, so that
    // the accessors inline into the export module: private storage left the
    // `hooks` getter every setter calls out of line).
    package var _timing: LayerTiming?
    package var timing: LayerTiming? {
        @inline(__always) get { _timing }
        @inline(__always) set { _timing = newValue; flags.insert(.sideState) }
        @inline(__always) _modify { flags.insert(.sideState); yield &_timing }
    }
    /// Animations in the order they were added (nil when none).
    package var animationList: [AnimationEntry]? {
        didSet { if planBlock != nil { dropPlanBlock() }; flags.insert(.sideState) }
    }
    /// The animations' plans packed for presentation (PlanBlock.swift), made
    /// on the first presentation after the list changed; nil before.
    package var planBlock: UnsafeMutableRawPointer?
    package var _implicitList: [ImplicitAnimation]?
    /// Running implicit animations kept as records (ImplicitAnimation.swift),
    /// all newer than the animations in `animationList`; nil when none.
    package var implicitList: [ImplicitAnimation]? {
        @inline(__always) get { _implicitList }
        @inline(__always) set { _implicitList = newValue; flags.insert(.sideState) }
        @inline(__always) _modify { flags.insert(.sideState); yield &_implicitList }
    }
    package var _modelLayer: Layer?
    /// For a presentation copy: the model layer it shows.
    package var modelLayer: Layer? {
        @inline(__always) get { _modelLayer }
        @inline(__always) set { _modelLayer = newValue; flags.insert(.sideState) }
        @inline(__always) _modify { flags.insert(.sideState); yield &_modelLayer }
    }
    package var _transactionState: LayerTransactionState?
    /// Transaction bookkeeping (committed snapshot, pending animations); nil
    /// until an export creates or changes the layer.
    package var transactionState: LayerTransactionState? {
        @inline(__always) get { _transactionState }
        @inline(__always) set { _transactionState = newValue; flags.insert(.sideState) }
        @inline(__always) _modify { flags.insert(.sideState); yield &_transactionState }
    }
    package var _extras: LayerExtras?
    /// Text, tiled and custom state, hooks and presentation links (nil for
    /// most layers): see LayerExtras.
    package var extras: LayerExtras? {
        @inline(__always) get { _extras }
        @inline(__always) set { _extras = newValue; flags.insert(.sideState) }
        @inline(__always) _modify { flags.insert(.sideState); yield &_extras }
    }

    public let layerClass: LayerClass

    /// For a layer created through the API: the mark of the transaction
    /// that created it (no implicit animations before it commits), until
    /// the layer sees it committed. nil: committed.
    @usableFromInline package var creator: CreationMark?

    /// Properties set explicitly (the style dictionary does not change them;
    /// shouldArchiveValueForKey: answers from them).
    @usableFromInline package var setBits: (UInt64, UInt64) = (0, 0)

    // The object is 264 bytes (a 272-byte heap block): the sublayers' z
    // order cache lives in `extras`, and the creating transaction is one
    // reference. (Measured in bench_animation earlier: 240-byte blocks made
    // presentation copies of 100,000 layers 1.6x slower, 256-byte blocks
    // animated frames 5-15% slower than 272-byte ones, and 304-byte blocks
    // copies of 100,000 plain leaves 0-20% slower depending on what the
    // heap held before: benchmarks/README.md.)

    package var text: TextLayerState? {
        get { extras?.text }
        set { if newValue != nil || extras != nil { ensureExtras.text = newValue } }
    }
    package var tiled: TiledLayerState? {
        get { extras?.tiled }
        set { if newValue != nil || extras != nil { ensureExtras.tiled = newValue } }
    }
    /// CAEAGLLayer's drawable properties and GL storage (GL/EAGLDrawable.swift).
    package var eagl: EAGLLayerState? {
        get { extras?.eagl }
        set { if newValue != nil || extras != nil { ensureExtras.eagl = newValue } }
    }
    /// CAGradientLayer's colours, locations, end points and type (GradientLayer.swift).
    package var gradient: GradientLayerState? {
        get { extras?.gradient }
        set { if newValue != nil || extras != nil { ensureExtras.gradient = newValue } }
    }
    /// CAShapeLayer's path and stroke and fill properties (ShapeLayer.swift).
    package var shape: ShapeLayerState? {
        get { extras?.shape }
        set { if newValue != nil || extras != nil { ensureExtras.shape = newValue } }
    }
    /// CAReplicatorLayer's instance count, delay, transform and colours (ReplicatorLayer.swift).
    package var replicator: ReplicatorLayerState? {
        get { extras?.replicator }
        set { if newValue != nil || extras != nil { ensureExtras.replicator = newValue } }
    }
    /// CAEmitterLayer's emitter geometry, cells and multipliers (EmitterLayer.swift).
    package var emitter: EmitterLayerState? {
        get { extras?.emitter }
        set { if newValue != nil || extras != nil { ensureExtras.emitter = newValue } }
    }
    package var custom: CustomValues? {
        get { extras?.custom }
        set { if newValue != nil || extras != nil { ensureExtras.custom = newValue } }
    }
    @usableFromInline package var hooks: LayerHooks? {
        get { extras?.hooks }
        set { if newValue != nil || extras != nil { ensureExtras.hooks = newValue } }
    }
    /// For a presentation copy of a non-root layer: its superlayer's copy, held
    /// strongly so the chain of ancestors outlives the parent copies' release.
    package var presentationParent: Layer? {
        get { extras?.presentationParent }
        set { if newValue != nil || extras != nil { ensureExtras.presentationParent = newValue } }
    }
    /// For a model root: the copies of its sublayers from a presentation copy
    /// the host has released, for the next presentation copy to reuse in
    /// place (those nobody else holds) instead of allocating new ones.
    package var presentationSpare: [Layer]? {
        get { extras?.presentationSpare }
        set { if newValue != nil || extras != nil { ensureExtras.presentationSpare = newValue } }
    }
    package var presentationSpareLeaves: PresentationLeaves? {
        get { extras?.presentationSpareLeaves }
        set { if newValue != nil || extras != nil { ensureExtras.presentationSpareLeaves = newValue } }
    }

    @inline(__always) package var ensureExtras: LayerExtras {
        if let r = extras { return r }
        let r = LayerExtras()
        extras = r
        return r
    }


    @inlinable package static var handleKind: ObjectKind { .layer }
    @inlinable package static func accepts(_ tag: UInt32) -> Bool { tag == tagMagic | UInt32(ObjectKind.layer.rawValue) }

    public init(class layerClass: LayerClass = .base) {
        self.layerClass = layerClass
        super.init(kind: .layer)
        switch layerClass.builtin {
        case .text: text = TextLayerState()
        case .tiled: tiled = TiledLayerState()
        case .eagl: eagl = EAGLLayerState()
        case .gradient: gradient = GradientLayerState()
        case .shape: shape = ShapeLayerState()
        case .replicator: replicator = ReplicatorLayerState()
        case .emitter: emitter = EmitterLayerState()
        case .scroll, .layer: break
        }
        if layerClass.hasLayoutSublayers { flags.insert(.laysOutAtCommit) }
        if layerClass.hasDefaultActionForKey { flags.insert(.classActions) }
        if layerClass.hasNeedsDisplayForKey { flags.insert(.classRedisplays) }
        layerClass.applyDefaults(to: self)
    }

    /// A copy of `other`'s own state for a presentation layer: no tree links,
    /// no animations, no delegate or layout manager (those belong to the model).
    package init(copyOf other: Layer) {
        layerClass = other.layerClass
        super.init(kind: .layer)
        assign(copyOf: other)
    }

    /// A blank copy of class `layerClass`, whose state the caller writes
    /// (a presentation leaf made from its values).
    package init(copyClass layerClass: LayerClass) {
        self.layerClass = layerClass
        super.init(kind: .layer)
    }

    /// Makes this layer (a fresh copy, or an earlier presentation copy nobody
    /// holds any more, of the same class) a copy of `other`'s own state, as
    /// `init(copyOf:)` describes. Every stored property except the tree links
    /// (superlayer, sublayers) and modelLayer, which the caller sets, and,
    /// with `deferTransform`, the transform.
    package func assign(copyOf other: Layer, deferTransform: Bool = false) {
        assignInlineState(copyOf: other, deferTransform: deferTransform)
        // (Fields written only when either side has something: most layers
        // have none of these side objects.)
        if let m = visuals?.mask, m.superlayer === self { m.superlayer = nil }   // an earlier copy's mask copy
        assignVisuals(copyOf: other)
        if let t = other.timing { timing = t.copy() } else if timing != nil { timing = nil }
        if other.extras != nil || extras != nil { assignExtras(copyOf: other) }
        if animationList != nil { animationList = nil }
        if implicitList != nil { implicitList = nil }
        // A copy is never part of a transaction (nor created by one: its
        // `creator` stays nil).
        if transactionState != nil { transactionState = nil }
        // (Read only with a style: the tail of the object is not touched.)
        if other.flags.contains(.hasStyle) { setBits = other.setBits }
    }

    /// The inline part of `assign(copyOf:)`: geometry, transforms, opacity
    /// and flags (all a plain leaf has besides its visuals; see
    /// `presentsAsPlainLeaf`).
    @inline(__always)
    package func assignInlineState(copyOf other: Layer, deferTransform: Bool = false) {
        bounds = other.bounds
        position = other.position
        anchorPoint = other.anchorPoint
        zPosition = other.zPosition
        anchorPointZ = other.anchorPointZ
        // Shared with the model (every write goes through TransformBox.store,
        // which copies a shared box), or written into this copy's own box.
        // (deferTransform: the caller takes the transform later if it must.)
        if !deferTransform { TransformBox.assign(from: &other.transformBox, to: &transformBox) }
        TransformBox.assign(from: &other._sublayerTransformBox, to: &sublayerTransformBox)
        opacity = other.opacity
        // (The common visuals only when either side may have them.)
        let hadCommonVisuals = flags.contains(.commonVisuals)
        flags = other.flags.subtracting([.presentationRoot, .lazySublayers]).union([.copy, .sideState])
        scrollMode = other.scrollMode
        if hadCommonVisuals || flags.contains(.commonVisuals) {
            _cornerRadius = other._cornerRadius
            _borderWidth = other._borderWidth
            if _backgroundColor !== other._backgroundColor { _backgroundColor = other._backgroundColor }
        }
    }

    /// The extras of a copy: `other`'s text, tiled and custom state
    /// copied; no hooks and no presentation links of its own.
    @inline(never)
    private func assignExtras(copyOf other: Layer) {
        let old = extras
        extras = nil
        // (A reused presentation copy's sublayer values: kept for its walk.)
        if let leaves = old?.presentationLeaves { ensureExtras.presentationLeaves = leaves }
        if let m = other.extras, m.text != nil || m.tiled != nil || m.custom != nil || m.eagl != nil
            || m.gradient != nil || m.shape != nil || m.replicator != nil || m.emitter != nil {
            let r = LayerExtras()
            r.text = m.text?.copy()
            r.tiled = m.tiled?.copy()
            r.eagl = m.eagl?.copy()
            r.gradient = m.gradient?.copy()
            r.shape = m.shape?.copy()
            r.replicator = m.replicator?.copy()
            r.emitter = m.emitter?.copy()
            if let c = m.custom { r.custom = CustomValues(); r.custom!.values = c.values }
            r.presentationLeaves = extras?.presentationLeaves
            extras = r
        }
        old?.hooks?.releaseAll()
    }

    deinit {
        storedSublayers.withUnsafeBufferPointer { subs in
            // (A released presentation root visits every copy: the line
            // holding `superlayer` is requested 64 sublayers ahead, into the
            // second-level cache: a step takes a few nanoseconds, memory
            // answers in about a hundred.)
            @inline(__always) func unlink(_ j: Int) {
                subs.unretained(j)._withUnsafeGuaranteedRef { if $0.superlayerIs(self) { $0.superlayer = nil } }
            }
            let n = subs.count
            var i = 0
            if n > 128, let ahead = Layer.superlayerOffset {
                while i &+ 64 < n {
                    qz_internal_prefetch_l2(UnsafeRawPointer(subs.unretained(i &+ 64).toOpaque()) + ahead)
                    unlink(i)
                    i &+= 1
                }
            }
            while i < n { unlink(i); i &+= 1 }
        }
        if let mask = visuals?.mask, mask.superlayer === self { mask.superlayer = nil }
        hooks?.releaseAll()
        if inAnimationRegistry { withModelLock { AnimationRegistry.unregister(self) } }
        if let s = transactionState { Transactions.layerFreed(s) }
        planBlock?.deallocate()
        // A presentation root the host released: its sublayers' copies go to
        // the model root, whose next presentation copy reuses them.
        // (Only when the lock is free or ours: a release never waits on it.)
        if flags.contains(.presentationRoot), let model = modelLayer, !storedSublayers.isEmpty, qz_internal_model_trylock() {
            model.presentationSpare = storedSublayers
            qz_internal_model_unlock()
        }
        if flags.contains(.lazySublayers), let leaves = releaseLazySublayers(), flags.contains(.presentationRoot),
           let model = modelLayer, qz_internal_model_trylock() {
            model.presentationSpareLeaves = leaves
            qz_internal_model_unlock()
        }
    }

    /// Byte offset of `superlayer` inside a layer (nil if it cannot be measured).
    package static let superlayerOffset: Int? = {
        let l = Layer()
        let base = UnsafeRawPointer(Unmanaged.passUnretained(l).toOpaque())
        let offset = withUnsafeMutablePointer(to: &l.superlayer) { UnsafeRawPointer($0) - base }
        return withExtendedLifetime(l) { offset >= 0 && offset < 512 ? offset : nil }
    }()

    /// The superlayer's address, read without making a strong reference
    /// (no retain and release, as reading `superlayer` would).
    @inline(__always)
    package var superlayerAddress: UnsafeMutableRawPointer? {
        withUnsafeMutablePointer(to: &superlayer) { UnsafeRawPointer($0).load(as: UnsafeMutableRawPointer?.self) }
    }

    /// True when `superlayer` is `layer` (compared by address, no retain).
    @inline(__always)
    package func superlayerIs(_ layer: Layer) -> Bool {
        // (As integers: comparing optional pointers costs a few more instructions.)
        withUnsafeMutablePointer(to: &superlayer) { UnsafeRawPointer($0).load(as: UInt.self) }
            == UInt(bitPattern: Unmanaged.passUnretained(layer).toOpaque())
    }

    // MARK: Derived access

    public var transform: CATransform3D { transformBox?.value ?? .identity }
    public var sublayerTransform: CATransform3D { sublayerTransformBox?.value ?? .identity }

    /// The visuals, made on first use. Yielded, not returned: a setter's
    /// `ensureVisuals.x = v` borrows the box instead of retaining and
    /// releasing it (two atomic operations, a third of a cheap setter).
    @inlinable @inline(__always) package var ensureVisuals: LayerVisuals {
        _read {
            if visuals == nil { makeVisuals() }
            yield visuals.unsafelyUnwrapped
        }
    }

    /// ensureVisuals' first use (visuals is nil): out of line, so the inlined
    /// getter stays small. The new box is stored as it comes from its
    /// initialiser: no release of the old value (nil), and no second
    /// reference to return and drop (a fresh layer's first visual property
    /// set saves a retain and two releases).
    @usableFromInline @inline(never) package func makeVisuals() {
        assert(visuals == nil)
        withUnsafeMutablePointer(to: &visuals) { $0.initialize(to: LayerVisuals()) }
    }

    @inline(__always) @usableFromInline package var ensureTiming: LayerTiming {
        if let t = timing { return t }
        let t = LayerTiming()
        timing = t
        return t
    }

    @inline(__always) package var ensureHooks: LayerHooks {
        if let h = hooks { return h }
        let h = LayerHooks()
        hooks = h
        return h
    }

    /// A presentation copy or a snapshot (see LayerFlags.copy).
    @inlinable @inline(__always) package var isPresentationCopy: Bool { flags.contains(.copy) }

    @inlinable @inline(__always) package func markSet(_ key: LayerKey) {
        if key.word == 0 { setBits.0 |= key.bit } else { setBits.1 |= key.bit }
        // Setting the frame sets the position and bounds (as Apple's setFrame: does).
        if key == .frame { setBits.0 |= LayerKey.position.bit | LayerKey.bounds.bit }
    }

    @inline(__always) package func isSet(_ key: LayerKey) -> Bool {
        key.word == 0 ? setBits.0 & key.bit != 0 : setBits.1 & key.bit != 0
    }

    /// True when the layer's class is or derives from `kind`.
    package func declares(_ key: LayerKey) -> Bool {
        let kind = key.declaringKind
        return kind == .layer || kind == layerClass.builtin
    }
}

/// A boxed transform, so that identity transforms cost one pointer.
@usableFromInline package final class TransformBox {
    package var value: CATransform3D
    package init(_ value: CATransform3D) { self.value = value }

    package static func make(_ t: CATransform3D) -> TransformBox? { t.isIdentity ? nil : TransformBox(t) }

    /// Stores `t` in `box`, reusing the allocation when nothing else shares it.
    /// A copy's box from the source's: the source's box shared, or its value
    /// written into the copy's own box when nothing else holds that one (then
    /// it cannot be the source's). No reference counting on the second path.
    @inline(__always)
    package static func assign(from source: inout TransformBox?, to box: inout TransformBox?) {
        let raw = withUnsafeMutablePointer(to: &source) { UnsafeRawPointer($0).load(as: UnsafeRawPointer?.self) }
        guard let raw else {
            if box != nil { box = nil }
            return
        }
        // Already sharing it (a copy of a layer whose transform does not
        // animate): nothing to read or count.
        if withUnsafeMutablePointer(to: &box, { UnsafeRawPointer($0).load(as: UnsafeRawPointer?.self) }) == raw { return }
        if box != nil, isKnownUniquelyReferenced(&box!) {
            box.unsafelyUnwrapped.value = Unmanaged<TransformBox>.fromOpaque(raw)._withUnsafeGuaranteedRef { $0.value }
        } else {
            box = source
        }
    }

    @inlinable @inline(__always)
    package static func store(_ t: CATransform3D, in box: inout TransformBox?) {
        // (A free function: a static one's callers in other modules pass the
        // metatype, made by a call, and reach it through a thunk.)
        storeTransform(t, in: &box)
    }
}

/// TransformBox.store.
@usableFromInline package func storeTransform(_ t: CATransform3D, in box: inout TransformBox?) {
    if t.isIdentity {
        box = nil
    } else if box == nil {
        // (Stored without a release of the old value, which is nil.)
        withUnsafeMutablePointer(to: &box) { $0.initialize(to: TransformBox(t)) }
    } else if isKnownUniquelyReferenced(&box!) {
        box!.value = t
    } else {
        box = TransformBox(t)
    }
}

/// Boolean properties and state bits.
@usableFromInline package struct LayerFlags: OptionSet {
    @usableFromInline package let rawValue: UInt32
    @inlinable package init(rawValue: UInt32) { self.rawValue = rawValue }
    @inlinable package static var hidden: LayerFlags { LayerFlags(rawValue: 1 << 0) }
    @inlinable package static var masksToBounds: LayerFlags { LayerFlags(rawValue: 1 << 1) }
    @inlinable package static var doubleSided: LayerFlags { LayerFlags(rawValue: 1 << 2) }
    @inlinable package static var opaque: LayerFlags { LayerFlags(rawValue: 1 << 3) }
    @inlinable package static var geometryFlipped: LayerFlags { LayerFlags(rawValue: 1 << 4) }
    @inlinable package static var needsDisplayOnBoundsChange: LayerFlags { LayerFlags(rawValue: 1 << 5) }
    @inlinable package static var shouldRasterize: LayerFlags { LayerFlags(rawValue: 1 << 6) }
    @inlinable package static var needsLayout: LayerFlags { LayerFlags(rawValue: 1 << 7) }
    @inlinable package static var needsDisplay: LayerFlags { LayerFlags(rawValue: 1 << 8) }
    /// A style dictionary is set: getters of unset properties consult it.
    @inlinable package static var hasStyle: LayerFlags { LayerFlags(rawValue: 1 << 9) }
    @inlinable package static var insideLayout: LayerFlags { LayerFlags(rawValue: 1 << 10) }
    /// The root of a presentation copy (what the host releases).
    @inlinable package static var presentationRoot: LayerFlags { LayerFlags(rawValue: 1 << 11) }
    /// A presentation copy with an animated key its class needs display
    /// for: it redraws itself once its animated values are in.
    @inlinable package static var presentationRedraw: LayerFlags { LayerFlags(rawValue: 1 << 12) }
    /// The class, delegate or layout manager lays out sublayers: a mark
    /// for layout joins the transaction, whose commit lays the layer out.
    @inlinable package static var laysOutAtCommit: LayerFlags { LayerFlags(rawValue: 1 << 13) }
    /// A copy (presentation, committed snapshot, transition snapshot): never
    /// part of a transaction, even before its model link is set; it runs no
    /// animations, its property changes take effect at once (no action) and
    /// its tree is fixed.
    @inlinable package static var copy: LayerFlags { LayerFlags(rawValue: 1 << 14) }
    /// An actions dictionary is set (mirrors `visuals?.actions != nil`, kept
    /// by setDeclared: the setters' action-source check reads the flags, not
    /// LayerVisuals' rare storage).
    @inlinable package static var hasActions: LayerFlags { LayerFlags(rawValue: 1 << 15) }
    /// setNeedsDisplay marked the whole layer: the marked area is the
    /// bounds (with whatever setNeedsDisplayInRect added), kept as this bit
    /// so that the common whole-layer mark stores no rectangle (which lives
    /// in LayerRareVisuals, one more block to allocate and later to read).
    @inlinable package static var displayWhole: LayerFlags { LayerFlags(rawValue: 1 << 16) }
    /// A presentation copy whose sublayers are kept as values until read
    /// (PresentationLeaves.swift); `storedSublayers` is then empty.
    @inlinable package static var lazySublayers: LayerFlags { LayerFlags(rawValue: 1 << 17) }
    /// Set by every write of the side state a presentation leaf kept as
    /// values must lack (sublayers, sublayer transform, timing, animations,
    /// transaction state, model link, extras), and by a copy; cleared by a
    /// presentation copy that finds none of it (`presentsAsValueLeaf`). So
    /// while it is clear the copy reads only the layer's first lines.
    /// Not part of what a layer shows (the fingerprint leaves it out).
    @inlinable package static var sideState: LayerFlags { LayerFlags(rawValue: 1 << 18) }
    /// Set by every write of the inline common visuals (background colour,
    /// corner radius, border width): while it is clear they are at their
    /// defaults, and a presentation leaf does not read them. Never cleared
    /// but by a copy of a layer without it.
    @inlinable package static var commonVisuals: LayerFlags { LayerFlags(rawValue: 1 << 19) }
    /// The class (or a superclass) answers defaultActionForKey: and
    /// needsDisplayForKey: (LayerClass.hasDefaultActionForKey and
    /// hasNeedsDisplayForKey, fixed for the class): kept in the flags so
    /// that a setter's checks read the word it reads anyway, not the class.
    @inlinable package static var classActions: LayerFlags { LayerFlags(rawValue: 1 << 20) }
    @inlinable package static var classRedisplays: LayerFlags { LayerFlags(rawValue: 1 << 21) }

    package static let defaults: LayerFlags = [.doubleSided]
}

/// A layer's rarely used state (one pointer in the layer; allocated on first use).
package final class LayerExtras {
    /// The pixels the display cycle draws into (the contents while nobody
    /// replaces them; not copied to presentation copies). Kept here rather
    /// than in LayerVisuals, which every presentation copy of a visible
    /// layer allocates.
    package var backingStore: PixelBuffer?
    package var text: TextLayerState?
    package var tiled: TiledLayerState?
    package var eagl: EAGLLayerState?
    package var gradient: GradientLayerState?
    package var shape: ShapeLayerState?
    package var replicator: ReplicatorLayerState?
    package var emitter: EmitterLayerState?
    package var custom: CustomValues?
    @usableFromInline package var hooks: LayerHooks?
    package var presentationParent: Layer?
    package var presentationSpare: [Layer]?
    /// For a presentation copy with the `lazySublayers` flag: its sublayers' values.
    package var presentationLeaves: PresentationLeaves?
    /// For a model root: the leaves of a lazy presentation copy the host
    /// released, for the next one to refill (as `presentationSpare`).
    package var presentationSpareLeaves: PresentationLeaves?
    /// The sublayers' front-to-back order (indices), computed by the first
    /// walk that needs it (hit testing) so a walk does not sort on every
    /// visit; empty when all share one zPosition (reverse index order).
    /// Not copied.
    package var zOrderIndices: [Int32] = []
    /// zOrderIndices is up to date while this equals Layer.zPositionEpoch
    /// (0: never; sublayer changes reset it, any zPosition change moves the epoch).
    package var zOrderEpoch: UInt64 = 0
}

/// Appearance and contents properties, with the spec's defaults (the
/// background colour, corner radius and border width live in the layer).
/// The contents are stored here; the other properties live in a
/// `LayerRareVisuals` made when one of them first takes a value other than
/// its default (writing a default allocates nothing).
@usableFromInline package final class LayerVisuals {
    package var contents: QZObject?
    /// Everything else (nil: all at their defaults).
    @usableFromInline package var rare: LayerRareVisuals?

    @usableFromInline package init() {}

    /// `rare`'s first use: out of line, so the inlined setters stay small.
    @usableFromInline @inline(never) package func makeRare() -> LayerRareVisuals {
        let r = LayerRareVisuals()
        rare = r
        return r
    }

    /// Bitwise equality (a NaN or -0 is not the default: it is stored).
    @inlinable @inline(__always) package static func sameBits(_ a: CGRect, _ b: CGRect) -> Bool {
        a.origin.x.bitPattern == b.origin.x.bitPattern && a.origin.y.bitPattern == b.origin.y.bitPattern
            && sameBits(a.size, b.size)
    }

    @inlinable @inline(__always) package static func sameBits(_ a: CGSize, _ b: CGSize) -> Bool {
        a.width.bitPattern == b.width.bitPattern && a.height.bitPattern == b.height.bitPattern
    }

    @inlinable package var contentsRect: CGRect {
        get { if let r = rare { return r.contentsRect } else { return CGRect(x: 0, y: 0, width: 1, height: 1) } }
        set { if let r = rare { r.contentsRect = newValue } else if !(LayerVisuals.sameBits(newValue, CGRect(x: 0, y: 0, width: 1, height: 1))) { makeRare().contentsRect = newValue } }
    }
    @inlinable package var contentsCenter: CGRect {
        get { if let r = rare { return r.contentsCenter } else { return CGRect(x: 0, y: 0, width: 1, height: 1) } }
        set { if let r = rare { r.contentsCenter = newValue } else if !(LayerVisuals.sameBits(newValue, CGRect(x: 0, y: 0, width: 1, height: 1))) { makeRare().contentsCenter = newValue } }
    }
    package var contentsGravity: UInt8 {
        get { if let r = rare { return r.contentsGravity } else { return ConstantSet.gravityResize } }
        set { if let r = rare { r.contentsGravity = newValue } else if !(newValue == ConstantSet.gravityResize) { makeRare().contentsGravity = newValue } }
    }
    @inlinable package var contentsScale: Double {
        get { if let r = rare { return r.contentsScale } else { return 1.0 } }
        set { if let r = rare { r.contentsScale = newValue } else if !(newValue.bitPattern == (1.0 as Double).bitPattern) { makeRare().contentsScale = newValue } }
    }
    package var minificationFilter: UInt8 {
        get { if let r = rare { return r.minificationFilter } else { return ConstantSet.filterLinear } }
        set { if let r = rare { r.minificationFilter = newValue } else if !(newValue == ConstantSet.filterLinear) { makeRare().minificationFilter = newValue } }
    }
    @inlinable package var minificationFilterBias: Float {
        get { if let r = rare { return r.minificationFilterBias } else { return 0 } }
        set { if let r = rare { r.minificationFilterBias = newValue } else if !(newValue.bitPattern == (0 as Float).bitPattern) { makeRare().minificationFilterBias = newValue } }
    }
    package var magnificationFilter: UInt8 {
        get { if let r = rare { return r.magnificationFilter } else { return ConstantSet.filterLinear } }
        set { if let r = rare { r.magnificationFilter = newValue } else if !(newValue == ConstantSet.filterLinear) { makeRare().magnificationFilter = newValue } }
    }
    @inlinable package var borderColor: Color? {
        get { if let r = rare { return r.borderColor } else { return Color.opaqueBlack } }
        set { if let r = rare { r.borderColor = newValue } else if !(newValue === Color.opaqueBlack) { makeRare().borderColor = newValue } }
    }
    @inlinable package var shadowOpacity: Float {
        get { if let r = rare { return r.shadowOpacity } else { return 0 } }
        set { if let r = rare { r.shadowOpacity = newValue } else if !(newValue.bitPattern == (0 as Float).bitPattern) { makeRare().shadowOpacity = newValue } }
    }
    @inlinable package var shadowRadius: Double {
        get { if let r = rare { return r.shadowRadius } else { return 3.0 } }
        set { if let r = rare { r.shadowRadius = newValue } else if !(newValue.bitPattern == (3.0 as Double).bitPattern) { makeRare().shadowRadius = newValue } }
    }
    @inlinable package var shadowOffset: CGSize {
        get { if let r = rare { return r.shadowOffset } else { return CGSize(width: 0, height: -3) } }
        set { if let r = rare { r.shadowOffset = newValue } else if !(LayerVisuals.sameBits(newValue, CGSize(width: 0, height: -3))) { makeRare().shadowOffset = newValue } }
    }
    @inlinable package var shadowColor: Color? {
        get { if let r = rare { return r.shadowColor } else { return Color.opaqueBlack } }
        set { if let r = rare { r.shadowColor = newValue } else if !(newValue === Color.opaqueBlack) { makeRare().shadowColor = newValue } }
    }
    package var shadowPath: QZObject? {
        get { if let r = rare { return r.shadowPath } else { return nil } }
        set { if let r = rare { r.shadowPath = newValue } else if !(newValue == nil) { makeRare().shadowPath = newValue } }
    }
    @inlinable package var edgeAntialiasingMask: UInt32 {
        get { if let r = rare { return r.edgeAntialiasingMask } else { return 0xF } }
        set { if let r = rare { r.edgeAntialiasingMask = newValue } else if !(newValue == 0xF) { makeRare().edgeAntialiasingMask = newValue } }
    }
    @inlinable package var rasterizationScale: Double {
        get { if let r = rare { return r.rasterizationScale } else { return 1.0 } }
        set { if let r = rare { r.rasterizationScale = newValue } else if !(newValue.bitPattern == (1.0 as Double).bitPattern) { makeRare().rasterizationScale = newValue } }
    }
    package var filters: Value? {
        get { if let r = rare { return r.filters } else { return nil } }
        set { if let r = rare { r.filters = newValue } else if !(newValue == nil) { makeRare().filters = newValue } }
    }
    package var backgroundFilters: Value? {
        get { if let r = rare { return r.backgroundFilters } else { return nil } }
        set { if let r = rare { r.backgroundFilters = newValue } else if !(newValue == nil) { makeRare().backgroundFilters = newValue } }
    }
    package var compositingFilter: Value? {
        get { if let r = rare { return r.compositingFilter } else { return nil } }
        set { if let r = rare { r.compositingFilter = newValue } else if !(newValue == nil) { makeRare().compositingFilter = newValue } }
    }
    package var mask: Layer? {
        get { if let r = rare { return r.mask } else { return nil } }
        set { if let r = rare { r.mask = newValue } else if !(newValue == nil) { makeRare().mask = newValue } }
    }
    package var name: CString? {
        get { if let r = rare { return r.name } else { return nil } }
        set { if let r = rare { r.name = newValue } else if !(newValue == nil) { makeRare().name = newValue } }
    }
    package var style: Value? {
        get { if let r = rare { return r.style } else { return nil } }
        set { if let r = rare { r.style = newValue } else if !(newValue == nil) { makeRare().style = newValue } }
    }
    @inlinable package var actions: Value? {
        get { if let r = rare { return r.actions } else { return nil } }
        set { if let r = rare { r.actions = newValue } else if !(newValue == nil) { makeRare().actions = newValue } }
    }
    package var dirtyRect: CGRect {
        get { if let r = rare { return r.dirtyRect } else { return CGRect.null } }
        set { if let r = rare { r.dirtyRect = newValue } else if !(LayerVisuals.sameBits(newValue, CGRect.null)) { makeRare().dirtyRect = newValue } }
    }
}

/// LayerVisuals' less common properties, with the spec's defaults.
@usableFromInline package final class LayerRareVisuals {
    @usableFromInline package var contentsRect: CGRect = CGRect(x: 0, y: 0, width: 1, height: 1)
    @usableFromInline package var contentsCenter: CGRect = CGRect(x: 0, y: 0, width: 1, height: 1)
    package var contentsGravity: UInt8 = ConstantSet.gravityResize
    @usableFromInline package var contentsScale: Double = 1.0
    package var minificationFilter: UInt8 = ConstantSet.filterLinear
    @usableFromInline package var minificationFilterBias: Float = 0
    package var magnificationFilter: UInt8 = ConstantSet.filterLinear
    @usableFromInline package var borderColor: Color? = Color.opaqueBlack
    @usableFromInline package var shadowOpacity: Float = 0
    @usableFromInline package var shadowRadius: Double = 3.0
    @usableFromInline package var shadowOffset: CGSize = CGSize(width: 0, height: -3)
    @usableFromInline package var shadowColor: Color? = Color.opaqueBlack
    package var shadowPath: QZObject? = nil
    @usableFromInline package var edgeAntialiasingMask: UInt32 = 0xF
    @usableFromInline package var rasterizationScale: Double = 1.0
    package var filters: Value? = nil
    package var backgroundFilters: Value? = nil
    package var compositingFilter: Value? = nil
    package var mask: Layer? = nil
    package var name: CString? = nil
    package var style: Value? = nil
    @usableFromInline package var actions: Value? = nil
    /// setNeedsDisplayInRect: accumulated dirty area (CGRectNull when clean).
    package var dirtyRect: CGRect = CGRect.null

    @usableFromInline package init() {}
}

/// CAMediaTiming of a layer, with the defaults observed on Apple's
/// QuartzCore: the duration is infinite (the reference's 0 is an
/// animation's), so a layer's time is its parent's, shifted and scaled,
/// until it is given a finite duration or repeatDuration.
@usableFromInline package final class LayerTiming {
    @usableFromInline package var beginTime = 0.0
    @usableFromInline package var duration = Double.infinity
    @usableFromInline package var speed: Float = 1
    @usableFromInline package var timeOffset = 0.0
    @usableFromInline package var repeatCount: Float = 0
    @usableFromInline package var repeatDuration = 0.0
    @usableFromInline package var autoreverses = false
    package var fillMode: UInt8 = 0   // removed

    /// No cycle and an endless active interval: local time is
    /// (t - beginTime) * speed + timeOffset (the common case, and every
    /// layer with default timing). Otherwise `mediaTiming` shapes it.
    @inline(__always)
    package var isLinear: Bool {
        !(duration > 0 && duration < .infinity) && !(repeatDuration > 0 && repeatDuration < .infinity)
    }

    /// The same timing as an animation's (one time model for both).
    package var mediaTiming: MediaTiming {
        var m = MediaTiming()
        m.beginTime = beginTime
        m.duration = duration
        m.speed = speed
        m.timeOffset = timeOffset
        m.repeatCount = repeatCount
        m.repeatDuration = repeatDuration
        m.autoreverses = autoreverses
        m.fillMode = MediaTiming.FillMode(rawValue: fillMode) ?? .removed
        return m
    }
}

/// CATextLayer's properties and defaults.
package final class TextLayerState {
    /// A new text layer's font: Apple's default face, Helvetica, as a font
    /// name (observed on Apple's QuartzCore: a new CATextLayer has a font,
    /// not nil). Shared by every text layer (values are immutable).
    package static let defaultFont = Value(string: "Helvetica")

    package var string: Value?
    package var font: Value? = TextLayerState.defaultFont
    package var fontSize = 36.0
    package var foregroundColor: Color? = Color.opaqueWhite
    package var wrapped = false
    package var alignmentMode: UInt8 = 0    // natural
    package var truncationMode: UInt8 = 0   // none
    /// The last layout drawn and what it was made from (Layer+Text.swift).
    package var lastLayout: TextLayout?
    package var lastSignature: TextLayoutSignature?
}

/// CATiledLayer's properties and defaults.
package final class TiledLayerState {
    // (A change of the grid drops the drawn tiles: TiledLayer.swift.)
    package var levelsOfDetail = 1 { didSet { if levelsOfDetail != oldValue { dropTiles() } } }
    package var levelsOfDetailBias = 0 { didSet { if levelsOfDetailBias != oldValue { dropTiles() } } }
    package var tileSize = CGSize(width: 256, height: 256) {
        didSet { if tileSize.width != oldValue.width || tileSize.height != oldValue.height { dropTiles() } }
    }
    /// The drawn tiles (TiledLayer.swift; on the model layer, made on first use).
    package var cache: TileCache?
    /// Counts invalidations and drops (frames showing the layer rebuild).
    package var changeCount: UInt64 = 0
}

/// Values stored under custom (undeclared) keys.
package final class CustomValues {
    package var values = ValueDictionary()
}

extension Color {
    /// Shared defaults (borderColor, shadowColor, CATextLayer.foregroundColor).
    @usableFromInline package static let opaqueBlack = Color(space: .sRGB, components: [0, 0, 0, 1])
    package static let opaqueWhite = Color(space: .sRGB, components: [1, 1, 1, 1])
}
