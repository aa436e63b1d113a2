import CQuartzite

// Layout and display, calling class overrides, the delegate and the layout
// manager in the spec's order. Callers hold the model lock; callbacks run on
// the calling thread and may call back into the library (the lock is recursive).

extension Layer {
    var handle: OpaquePointer { borrowedHandle(self) }

    // MARK: - Layout

    /// Marks the layer for layout. The layout manager is told
    /// (invalidateLayoutOfLayer) when the layer starts needing layout, not
    /// again while that layout is pending, as observed on Apple's QuartzCore.
    func setNeedsLayout() {
        if flags.contains(.needsLayout) { return }
        flags.insert(.needsLayout)
        if let manager = hooks?.layoutManager, let invalidate = manager.invalidateLayoutOfLayer {
            hostCall { invalidate(handle, hooks?.layoutManagerInfo) }
        }
    }

    var needsLayout: Bool { flags.contains(.needsLayout) }

    /// Apple's layoutIfNeeded: climbs to the highest ancestor that needs
    /// layout, then lays out every layer beneath it that needs it, top down.
    func layoutIfNeeded() {
        var top = self
        while let parent = top.superlayer, parent.needsLayout { top = parent }
        top.layoutSubtree()
    }

    private func layoutSubtree() {
        if needsLayout {
            flags.remove(.needsLayout)
            layoutSublayers()
        }
        // Layout may add or remove sublayers: iterate over a snapshot.
        for sub in sublayers { sub.layoutSubtree() }
    }

    /// Apple's layoutSublayers: the class override, else the delegate, else the
    /// layout manager.
    func layoutSublayers() {
        if let (fn, info, _) = layerClass.nearest({ $0.layoutSublayers }) {
            hostCall { fn(handle, info) }
        } else if let d = hooks?.delegate, let fn = d.layoutSublayersOfLayer {
            hostCall { fn(handle, hooks?.delegateInfo) }
        } else if let m = hooks?.layoutManager, let fn = m.layoutSublayersOfLayer {
            hostCall { fn(handle, hooks?.layoutManagerInfo) }
        }
    }

    /// Apple's preferredFrameSize: the class override, else the layout
    /// manager, else the bounds size mapped into the superlayer's space.
    var preferredFrameSize: CGSize {
        if let (fn, info, _) = layerClass.nearest({ $0.preferredFrameSize }) {
            return hostCall { fn(handle, info) }
        }
        if let m = hooks?.layoutManager, let fn = m.preferredSizeOfLayer {
            return hostCall { fn(handle, hooks?.layoutManagerInfo) }
        }
        return defaultPreferredFrameSize
    }

    // MARK: - Display

    func setNeedsDisplay() {
        setNeedsDisplay(in: bounds)
    }

    /// Marks `r` (layer coordinates) for redrawing; rectangles accumulate.
    func setNeedsDisplay(in r: CGRect) {
        flags.insert(.needsDisplay)
        let v = ensureVisuals
        v.dirtyRect = v.dirtyRect.union(r)
    }

    var needsDisplay: Bool { flags.contains(.needsDisplay) }

    /// The area marked since the last display (CGRectNull when none).
    var dirtyRect: CGRect { visuals?.dirtyRect ?? .null }

    func displayIfNeeded() {
        if needsDisplay { display() }
    }

    /// Apple's display: the class override; else the delegate's displayLayer;
    /// else, when someone draws (the class's drawInContext or the delegate's
    /// drawLayerInContext), a context the size of the bounds is drawn into.
    func display() {
        // An unmarked layer redraws whole, as Apple's -display does.
        let clip = dirtyRect.isNull ? bounds : dirtyRect
        flags.remove(.needsDisplay)
        visuals?.dirtyRect = .null
        if let (fn, info, _) = layerClass.nearest({ $0.display }) {
            hostCall { fn(handle, info) }
        } else if let d = hooks?.delegate, let fn = d.displayLayer {
            hostCall { fn(handle, hooks?.delegateInfo) }
        } else {
            drawContents(clip: clip)
        }
    }

    private func drawContents(clip: CGRect) {
        let classDraw = layerClass.nearest({ $0.drawInContext })
        let delegateDraw = hooks?.delegate?.drawLayerInContext
        guard classDraw != nil || delegateDraw != nil else { return }
        let context = DrawingContext(size: bounds.size, scale: visuals?.contentsScale ?? 1, clip: clip, origin: bounds.origin)
        let ctx = borrowedHandle(context)
        if let (fn, info, _) = classDraw {
            hostCall { fn(handle, ctx, info) }
        } else if let fn = delegateDraw {
            hostCall { fn(handle, ctx, hooks?.delegateInfo) }
        }
    }
}

/// The context handed to drawInContext callbacks. Drawing operations arrive
/// with the renderer; until then it carries the size, scale and clip.
public final class DrawingContext: QZObject, Handle {
    public let size: CGSize
    public let scale: Double
    public let clip: CGRect
    public let origin: CGPoint
    /// A bitmap context's pixels (CGBitmapContextCreate,
    /// QZBitmapContextCreateWithPixelBuffer); nil for display contexts.
    var bitmap: PixelBuffer?
    /// Graphics state of a bitmap context (Render/BitmapContext.swift).
    var gstate = GraphicsState()
    var savedStates: [GraphicsState] = []

    init(size: CGSize, scale: Double, clip: CGRect, origin: CGPoint) {
        self.size = size
        self.scale = scale
        self.clip = clip
        self.origin = origin
        super.init(kind: .context)
    }

    static var handleTypeName: String { "CGContext" }
    static func accepts(_ tag: UInt32) -> Bool { tag == tagMagic | UInt32(ObjectKind.context.rawValue) }
}
