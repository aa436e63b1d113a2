import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel
import QuartziteRender

// CARenderer with Apple's macOS shape (CARenderer.h), the draw list for GPU
// hosts (QZRendererCopyDrawList, QZDrawList...), and CALayerRenderInContext.
// A frame: CARendererBeginFrameAtTime (presentation values at that media
// time, damage computed against the last frame), CARendererUpdateBounds /
// CARendererAddUpdateRect, CARendererRender (draws the update rectangle),
// CARendererEndFrame. Every renderer call holds the model lock; a renderer
// is used from one thread at a time.

@inline(__always)
func withRenderer<R>(_ r: CARendererRef?, _ fallback: R, _ function: StaticString = #function, _ body: (Renderer) -> R) -> R {
    withObject(r, as: Renderer.self, fallback: fallback, function) { rr in withModelLock { body(rr) } }
}

/// Creates a renderer drawing into `target` (retained), whose format must be
/// one the compositor can read and write (every chunky RGB format: 32BGRA,
/// 32ARGB, 32RGBA, 32ABGR, 24RGB, 24BGR, 64ARGB, ...; premultiplied 32BGRA is
/// the native one). `options` may be NULL or a dictionary (its keys,
/// kCARendererColorSpace, are accepted and ignored: Quartzite renders sRGB).
/// The renderer's bounds start as the target's rectangle {0, 0, w, h}.
/// Returns +1 (release with CARelease), or NULL: QZErrorNullArgument (NULL
/// target), QZErrorWrongType, QZErrorInvalidArgument (a target format that
/// cannot be rendered into, e.g. planar Y'CbCr, or options not a dictionary).
@c public func CARendererCreate(_ target: QZCVPixelBufferRef?, _ options: CAValueRef?) -> CARendererRef? {
    guard let pb = object(target, as: PixelBuffer.self) else { return nil }
    if let options {
        guard let v = object(options, as: Value.self) else { return nil }
        guard case .dictionary = v.storage else {
            recordError(QZErrorInvalidArgument, #function, "options must be a dictionary value or NULL")
            return nil
        }
    }
    guard pb.isRenderable else {
        recordError(QZErrorInvalidArgument, #function,
                    "pixel format '\(fourCharCodeString(pb.pixelFormat))' cannot be rendered into (use a chunky RGB format such as kCVPixelFormatType_32BGRA)")
        return nil
    }
    return retainedHandle(Renderer(target: pb))
}

/// Sets the root layer (retained; NULL removes it). Its position is
/// expressed in the renderer's space, which CARendererSetBounds maps to the
/// target. The next frame redraws everything.
@c public func CARendererSetLayer(_ renderer: CARendererRef?, _ layer: CALayerRef?) {
    var l: Layer?
    if let layer { guard let o = object(layer, as: Layer.self) else { return }; l = o }
    withRenderer(renderer, ()) { r in r.setRootLayer(l) }
}

/// The root layer (+0), or NULL.
@c public func CARendererGetLayer(_ renderer: CARendererRef?) -> CALayerRef? {
    withRenderer(renderer, nil) { r in r.layer.map { borrowedHandle($0) } }
}

/// Sets the rectangle of the renderer's space drawn into the target: its
/// origin lands on pixel (0, 0), one point per pixel. QZErrorNotFinite for
/// NaN or infinite values. The next frame redraws everything.
@c public func CARendererSetBounds(_ renderer: CARendererRef?, _ bounds: CGRect) {
    guard !bounds.hasNaN, bounds.origin.isFinite, bounds.size.width.isFinite, bounds.size.height.isFinite else {
        recordError(QZErrorNotFinite, #function, "bounds must be finite")
        return
    }
    withRenderer(renderer, ()) { r in r.setBounds(bounds) }
}

/// The rectangle of the renderer's space drawn into the target (see CARendererSetBounds);
/// CGRectNull for a bad handle.
@c public func CARendererGetBounds(_ renderer: CARendererRef?) -> CGRect {
    withRenderer(renderer, .null) { $0.bounds }
}

/// Starts a frame showing the layer tree at media time `timeStamp` (the
/// CVTimeStamp may be NULL and is otherwise ignored). Computes the update
/// rectangle: what changed since the last completed frame (everything for
/// the first frame or after SetLayer/SetBounds). The frame shows committed
/// state: it first commits the calling thread's implicit transaction (as
/// CATransactionFlush does, and as a run loop's turn would). QZErrorNotFinite
/// for a NaN time; QZErrorInvalidState when a frame is already open (it is
/// replaced).
@c public func CARendererBeginFrameAtTime(_ renderer: CARendererRef?, _ timeStamp: CFTimeInterval,
                                          _ ts: UnsafePointer<CVTimeStamp>?) {
    guard timeStamp.isFinite else {
        recordError(QZErrorNotFinite, #function, "the frame time must be finite")
        return
    }
    Renderer.prepareFrame()
    withRenderer(renderer, ()) { r in
        if r.frameTime != nil { recordError(QZErrorInvalidState, #function, "a frame is already open; it is replaced") }
        r.beginFrame(at: timeStamp)
    }
}

/// The target pixels the current frame will redraw (Apple's updateBounds):
/// the union of the target-space bounds of the draw operations that changed
/// since the last frame, plus rectangles added with CARendererAddUpdateRect,
/// clipped to the target. CGRectNull when nothing changed or outside a frame.
@c public func CARendererUpdateBounds(_ renderer: CARendererRef?) -> CGRect {
    withRenderer(renderer, .null) { r in
        r.frameTime == nil || r.updateRect.isEmpty ? .null : r.updateRect.cgRect
    }
}

/// Adds `rect` (target pixels) to the current frame's update rectangle.
/// QZErrorInvalidState outside a frame; QZErrorNotFinite for NaN.
@c public func CARendererAddUpdateRect(_ renderer: CARendererRef?, _ rect: CGRect) {
    guard checkRect(rect, #function) else { return }
    withRenderer(renderer, ()) { r in
        if !r.addUpdateRect(rect) {
            recordError(QZErrorInvalidState, #function, "no frame is open (call CARendererBeginFrameAtTime)")
        }
    }
}

/// Draws the current frame's update rectangle into the target (cleared to
/// transparent there first, then the layer tree composited over it).
/// QZErrorInvalidState when no frame is open or no layer is set (the target
/// is left unchanged).
@c public func CARendererRender(_ renderer: CARendererRef?) {
    withRenderer(renderer, ()) { r in
        guard r.frameTime != nil else {
            recordError(QZErrorInvalidState, #function, "no frame is open (call CARendererBeginFrameAtTime)")
            return
        }
        guard r.layer != nil else {
            recordError(QZErrorInvalidState, #function, "the renderer has no layer (call CARendererSetLayer)")
            return
        }
        _ = r.render(#function)
    }
}

/// The media time at which the next frame is needed: the current frame's
/// time (or now, outside a frame) while an animation runs, the start of the
/// earliest animation that has not begun, or infinity when nothing animates
/// (a host can sleep until the tree changes).
@c public func CARendererGetNextFrameTime(_ renderer: CARendererRef?) -> CFTimeInterval {
    withRenderer(renderer, .infinity) { r in r.nextFrameTime(after: r.frameTime ?? MediaClock.now(#function)) }
}

/// Ends the frame: its operations become what the next frame is compared
/// with. QZErrorInvalidState when no frame is open.
@c public func CARendererEndFrame(_ renderer: CARendererRef?) {
    withRenderer(renderer, ()) { r in
        guard r.frameTime != nil else {
            recordError(QZErrorInvalidState, #function, "no frame is open")
            return
        }
        r.endFrame()
    }
}

// MARK: - Draw lists

/// Sets how many threads draw each frame of a CPU renderer: the update
/// region is cut into bands of rows drawn at once by the calling thread and
/// workers of the pool the tiled layers use (which grows to count - 1 workers
/// if it is smaller). The pixels are the same bytes whatever the count; a
/// region under 128 x 128 pixels is drawn by the calling thread alone.
/// 1 (the default): the calling thread alone. 0: one per core (the
/// machine's online processors). Counts above 64 are refused with
/// QZErrorOutOfRange (nothing changes). A GL renderer keeps the count and
/// draws on the GPU as before.
@c public func QZRendererSetThreadCount(_ renderer: CARendererRef?, _ count: size_t) {
    // (size_t arrives as Int: a count past Int.max reads negative.)
    guard count >= 0, count <= Renderer.maximumThreadCount else {
        recordError(QZErrorOutOfRange, #function, "count \(UInt(bitPattern: count)) is above \(Renderer.maximumThreadCount)")
        return
    }
    let n = count == 0 ? Renderer.coreCount : Int(count)
    withRenderer(renderer, ()) { $0.threadCount = n }
}

/// The number of threads drawing each frame of `renderer` (0 was resolved
/// to the number of cores when set); 0 for a bad handle.
@c public func QZRendererGetThreadCount(_ renderer: CARendererRef?) -> size_t {
    withRenderer(renderer, 0) { size_t($0.threadCount) }
}

/// The current frame's draw operations (between BeginFrame and EndFrame),
/// else the last completed frame's, else an empty list. These are exactly the
/// operations CARendererRender replays. Returns +1 (release with CARelease).
@c public func QZRendererCopyDrawList(_ renderer: CARendererRef?) -> QZDrawListRef? {
    withRenderer(renderer, nil) { r in
        let ops = r.frameTime != nil ? r.frameOps : (r.lastOps ?? [])
        let size = r.targetRect
        return retainedHandle(DrawList(ops: ops, width: size.width, height: size.height))
    }
}

/// The number of operations in a draw list (0 on a bad handle).
@c public func QZDrawListGetCount(_ list: QZDrawListRef?) -> size_t {
    withObject(list, as: DrawList.self, fallback: 0) { $0.ops.count }
}

/// Copies operation `index` into `*operation` (pointers in it are borrowed from
/// the list). Returns false (and records QZErrorOutOfRange or
/// QZErrorNullArgument) when it cannot.
@c public func QZDrawListGetOperation(_ list: QZDrawListRef?, _ index: size_t, _ operation: UnsafeMutablePointer<QZDrawOperation>?) -> Bool {
    guard let out = requireOut(operation, #function) else { return false }
    return withObject(list, as: DrawList.self, fallback: false) { l in
        guard index >= 0, index < l.ops.count else {
            recordError(QZErrorOutOfRange, #function, "index \(index) is outside 0..<\(l.ops.count)")
            return false
        }
        let op = l.ops[index]
        var c = QZDrawOperation()
        c.kind = op.kind.rawValue
        // (Additive particles are plus-lighter: min(src + dst, 1) per channel.)
        c.blendMode = op.additive ? UInt32(QZBlendModeAdditive) : UInt32(op.blendMode)
        c.transform = op.transform.transform3D
        c.rect = op.rect
        c.cornerRadius = op.cornerRadius
        c.borderWidth = op.borderWidth
        // (An image's colour is its tint: opaque white when it has none.)
        let color = op.kind == .image ? op.tint ?? SIMD4(1, 1, 1, 1) : op.color
        c.color = (color.x, color.y, color.z, color.w)
        c.opacity = op.opacity
        // Stored as bits: Swift sees these CF-named pointer fields as Unmanaged.
        c.texture = op.texture.map { .fromOpaque(UnsafeRawPointer(borrowedHandle($0))) }
        c.textureRect = op.textureRect
        c.minificationFilter = UInt32(op.minFilter)
        c.magnificationFilter = UInt32(op.magFilter)
        c.minificationFilterBias = op.filterBias
        c.edgeAntialiasingMask = op.edgeMask
        c.bounds = op.bounds
        c.shadowOffset = op.shadowOffset
        c.shadowRadius = op.shadowRadius
        c.path = op.path.map { .fromOpaque(UnsafeRawPointer(borrowedHandle($0))) }
        c.layerID = UInt64(op.layerID)
        c.depth = op.depth
        out.pointee = c
        return true
    }
}

/// The filters of operation `index` (a BEGIN_GROUP's filters, applied to its
/// contents before it is composited, or a BACKDROP's): a new array value (+1)
/// of dictionaries in the order they apply, each with "name" (CIGaussianBlur,
/// CIColorMatrix, CIColorControls) and every input resolved (defaults filled
/// in; inputRadius in target pixels); NULL (no error) when it has none.
/// Records QZErrorOutOfRange for an index outside the list.
@c public func QZDrawListCopyOperationFilters(_ list: QZDrawListRef?, _ index: size_t) -> CAValueRef? {
    withObject(list, as: DrawList.self, fallback: nil) { l in
        guard index >= 0, index < l.ops.count else {
            recordError(QZErrorOutOfRange, #function, "index \(index) is outside 0..<\(l.ops.count)")
            return nil
        }
        let filters = l.ops[index].filters
        guard !filters.isEmpty else { return nil }
        func vector(_ v: SIMD4<Float>) -> Value { Value(.array((0..<4).map { Value(.number(Double(v[$0]))) })) }
        let items: [Value] = filters.map { f in
            var d = ValueDictionary()
            switch f {
            case .gaussianBlur(let r):
                d.set(Value(string: "CIGaussianBlur"), for: "name")
                d.set(Value(.number(r)), for: "inputRadius")
            case let .colorMatrix(r, g, b, a, bias):
                d.set(Value(string: "CIColorMatrix"), for: "name")
                for (k, v) in [("inputRVector", r), ("inputGVector", g), ("inputBVector", b), ("inputAVector", a),
                               ("inputBiasVector", bias)] { d.set(vector(v), for: k) }
            case let .colorControls(s, br, c):
                d.set(Value(string: "CIColorControls"), for: "name")
                d.set(Value(.number(Double(s))), for: "inputSaturation")
                d.set(Value(.number(Double(br))), for: "inputBrightness")
                d.set(Value(.number(Double(c))), for: "inputContrast")
            }
            return Value(.dictionary(d))
        }
        return retainedHandle(Value(.array(items)))
    }
}

/// The width and height in pixels of the target a draw list was made for.
@c public func QZDrawListGetTargetSize(_ list: QZDrawListRef?) -> CGSize {
    withObject(list, as: DrawList.self, fallback: CGSize(width: 0, height: 0)) {
        CGSize(width: Double($0.width), height: Double($0.height))
    }
}

// MARK: - renderInContext

/// Apple's renderInContext:: draws the layer and its sublayers, as the model
/// tree says (animations are ignored), in the layer's own coordinate space:
/// layer point (0, 0) is the context's user-space origin (through the
/// context's CTM), so a layer with bounds (10, 10, 20, 20) paints its
/// background over 10...30, not 0...20 (as observed on Apple's QuartzCore).
/// Composited over the context's pixels with the context's clip, alpha,
/// blend mode and shadow. The layer's own position and transform are not
/// applied.
@c public func CALayerRenderInContext(_ layer: CALayerRef?, _ ctx: QZCGContextRef?) {
    guard let l = object(layer, as: Layer.self), let c = object(ctx, as: DrawingContext.self) else { return }
    withModelLock {
        if !l.render(in: c) { recordError(QZErrorOutOfMemory, #function, "the layer tree could not be drawn") }
    }
}
