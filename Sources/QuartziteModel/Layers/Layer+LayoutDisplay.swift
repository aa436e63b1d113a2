import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics

// Layout and display, calling class overrides, the delegate and the layout
// manager in the spec's order. Callers hold the model lock; callbacks run on
// the calling thread and may call back into the library (the lock is recursive).

extension Layer {
    package var handle: OpaquePointer { borrowedHandle(self) }

    // MARK: - Layout

    /// Marks the layer for layout. The layout manager is told
    /// (invalidateLayoutOfLayer) when the layer starts needing layout, not
    /// again while that layout is pending, as observed on Apple's QuartzCore.
    /// A model layer that lays out its sublayers (its class, delegate or
    /// layout manager does: the laysOutAtCommit flag) joins the calling
    /// thread's transaction, whose commit lays it out before the display
    /// pass; other layers wait for an explicit layoutIfNeeded.
    package func setNeedsLayout() {
        if flags.contains(.needsLayout) { return }
        flags.insert(.needsLayout)
        if flags.contains(.laysOutAtCommit), modelLayer == nil, !flags.contains(.copy) { Transactions.enlistForLayout(self) }
        if let manager = hooks?.layoutManager, let invalidate = manager.invalidateLayoutOfLayer {
            hostCall { invalidate(handle, hooks?.layoutManagerInfo) }
        }
    }

    /// Installs the delegate (CALayerSetDelegate).
    package func setDelegate(_ table: CALayerDelegateCallbacks?, _ info: UnsafeMutableRawPointer?) {
        // (Tiles drawing with the old delegate finish first: its info may be freed.)
        if let cache = tiled?.cache { TileStore.shared.retire(cache) }
        ensureHooks.setDelegate(table, info)
        if table?.layoutSublayersOfLayer != nil { flags.insert(.laysOutAtCommit) }
    }

    /// Installs the layout manager (CALayerSetLayoutManager).
    package func setLayoutManager(_ table: CALayoutManagerCallbacks?, _ info: UnsafeMutableRawPointer?) {
        ensureHooks.setLayoutManager(table, info)
        if table?.layoutSublayersOfLayer != nil { flags.insert(.laysOutAtCommit) }
    }

    package var needsLayout: Bool { flags.contains(.needsLayout) }

    /// Apple's layoutIfNeeded: climbs to the highest ancestor that needs
    /// layout, then lays out every layer beneath it that needs it, top down.
    package func layoutIfNeeded() {
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
    package func layoutSublayers() {
        if let (fn, info, _) = layerClass.nearest({ $0.layoutSublayers }) {
            hostCall { fn(handle, info) }
        } else if let d = hooks?.delegate, let fn = d.layoutSublayersOfLayer {
            hostCall { fn(handle, hooks?.delegateInfo) }
        } else if let m = hooks?.layoutManager, let fn = m.layoutSublayersOfLayer {
            hostCall { fn(handle, hooks?.layoutManagerInfo) }
        }
    }

    /// Apple's preferredFrameSize: the class override, else the layout
    /// manager, else (CATextLayer) the laid-out text's size, else the bounds
    /// size mapped into the superlayer's space.
    package var preferredFrameSize: CGSize {
        if let (fn, info, _) = layerClass.nearest({ $0.preferredFrameSize }) {
            return hostCall { fn(handle, info) }
        }
        if let m = hooks?.layoutManager, let fn = m.preferredSizeOfLayer {
            return hostCall { fn(handle, hooks?.layoutManagerInfo) }
        }
        if layerClass.builtin == .text { return textPreferredFrameSize }
        return defaultPreferredFrameSize
    }

    // MARK: - Display

    package func setNeedsDisplay() {
        flags.insert([.needsDisplay, .displayWhole])
        enlistForDisplay()
    }

    /// Marks `r` (layer coordinates) for redrawing; rectangles accumulate.
    /// A model layer joins the calling thread's transaction, whose commit
    /// displays it (the display cycle: Transactions.displayMarkedLayers).
    package func setNeedsDisplay(in r: CGRect) {
        flags.insert(.needsDisplay)
        let v = ensureVisuals
        v.dirtyRect = v.dirtyRect.union(r)
        enlistForDisplay()
    }

    /// A marked model layer joins the calling thread's transaction. (A copy,
    /// whose animated values may mark it while they are written, never
    /// joins a transaction: it would outlive its slot there.)
    private func enlistForDisplay() {
        if modelLayer == nil && !flags.contains(.copy) { Transactions.enlistForDisplay(self) }
    }

    package var needsDisplay: Bool { flags.contains(.needsDisplay) }

    /// The area marked since the last display (CGRectNull when none); a
    /// whole-layer mark reads as the current bounds.
    package var dirtyRect: CGRect {
        let marked = visuals?.dirtyRect ?? .null
        return flags.contains(.displayWhole) ? marked.union(bounds) : marked
    }

    package func displayIfNeeded() {
        if needsDisplay { display() }
    }

    /// True when the layer's contents are drawn flipped: an odd number of
    /// geometryFlipped layers from it up to its root (a presentation copy
    /// answers for its model layer).
    package var contentsAreFlipped: Bool {
        // Walked by address, as isAncestor(of:) is: strong locals would
        // retain and release each ancestor (every display asks).
        var flipped = false
        var cur: UnsafeMutableRawPointer? = Unmanaged.passUnretained(modelLayer ?? self).toOpaque()
        while let p = cur {
            cur = Unmanaged<Layer>.fromOpaque(p)._withUnsafeGuaranteedRef { c in
                if c.flags.contains(.geometryFlipped) { flipped.toggle() }
                return c.superlayerAddress
            }
        }
        return flipped
    }

    /// Apple's display: the class override; else the delegate's displayLayer;
    /// else, when someone draws (the class's drawInContext or the delegate's
    /// drawLayerInContext), the backing store is redrawn where it is marked
    /// and becomes the contents.
    package func display() {
        // An unmarked layer redraws whole, as Apple's -display does.
        let marked = flags.contains(.displayWhole) ? CGRect.null : (visuals?.dirtyRect ?? .null)
        let dirty = marked.isNull ? bounds : marked
        flags.remove([.needsDisplay, .displayWhole])
        if let v = visuals, v.rare != nil { v.dirtyRect = .null }
        // (A presentation copy has no delegate of its own: its model's answers.)
        let hooks = (modelLayer ?? self).hooks
        if let (fn, info, _) = layerClass.nearest({ $0.display }) {
            hostCall { fn(handle, info) }
        } else if let d = hooks?.delegate, let fn = d.displayLayer {
            hostCall { fn(handle, hooks?.delegateInfo) }
        } else if let t = (modelLayer ?? self).tiled {
            // A tiled layer has no backing store: the marked tiles are drawn
            // again when next visible (TiledLayer.swift).
            t.invalidateTiles(in: dirty)
        } else {
            drawContents(dirty: dirty, hooks: hooks)
        }
    }

    /// A presentation copy draws itself with its animated values
    /// (animating-arbitrary-keypaths); kept out of line, off the
    /// presentation walk's hot path.
    @inline(never)
    package func displayPresentationIfMarked() {
        guard flags.contains(.presentationRedraw) else { return }
        flags.remove(.presentationRedraw)
        display()
    }

    /// The largest backing store side, in pixels.
    package static let maximumBackingStoreDimension = 16384

    /// Redraws the backing store: ceil(bounds x contentsScale) pixels of
    /// premultiplied BGRA (opaque black beneath when `opaque`), reused when
    /// its size has not changed, in which case only the marked area is
    /// cleared and redrawn and every other pixel keeps its value. The
    /// context maps layer coordinates (y down, or up when the contents are
    /// flipped) to the pixels and clips to the marked area rounded out to
    /// whole pixels. A layer with no drawing method gets no backing store.
    private func drawContents(dirty: CGRect, hooks: LayerHooks?) {
        let classDraw = layerClass.nearest({ $0.drawInContext })
        let delegateDraw = hooks?.delegate?.drawLayerInContext
        // CATextLayer's own drawInContext (a subclass's override replaces it).
        let drawsText = classDraw == nil && layerClass.builtin == .text
        guard classDraw != nil || delegateDraw != nil || drawsText else { return }
        let b = bounds.standardized
        var scale = visuals?.contentsScale ?? 1
        if !(scale.isFinite && scale > 0) { scale = 1 }
        let fw = (b.width * scale).rounded(.up), fh = (b.height * scale).rounded(.up)
        let limit = Double(Layer.maximumBackingStoreDimension)
        guard b.origin.isFinite, fw >= 1, fh >= 1, fw <= limit, fh <= limit else { return }
        let pw = Int(fw), ph = Int(fh)
        let v = ensureVisuals
        var store = extras?.backingStore
        var whole = false
        if store == nil || store!.width != pw || store!.height != ph || v.contents !== store {
            guard let made = try? PixelBuffer.create(width: pw, height: ph, pixelFormat: UInt32(kCVPixelFormatType_32BGRA),
                                                     attributes: nil) else { return }
            store = made
            whole = true
        }
        guard let store else { return }
        var base = CGAffineTransform(a: scale, b: 0, c: 0, d: scale, tx: -b.minX * scale, ty: -b.minY * scale)
        let flipped = contentsAreFlipped
        if flipped { base = CGAffineTransform(a: scale, b: 0, c: 0, d: -scale, tx: -b.minX * scale, ty: b.maxY * scale) }
        guard let context = try? DrawingContext(target: store, baseCTM: base) else { return }
        // The marked area in pixels, rounded out.
        let area: CGRect
        if whole {
            area = CGRect(x: 0, y: 0, width: fw, height: fh)
        } else {
            let d = dirty.standardized.applying(base)
            let r = CGRect(x: d.minX.rounded(.down), y: d.minY.rounded(.down),
                           width: d.maxX.rounded(.up) - d.minX.rounded(.down), height: d.maxY.rounded(.up) - d.minY.rounded(.down))
            area = r.intersection(CGRect(x: 0, y: 0, width: fw, height: fh))
            if area.isNull || area.isEmpty { return }
        }
        // (A new store is calloc'ed, transparent black already, and drawn whole.)
        if !whole || flags.contains(.opaque) {
            context.clipToDeviceRect(area)
            context.clearClip(to: flags.contains(.opaque) ? SIMD4(0, 0, 0, 1) : nil)
        }
        let ctx = borrowedHandle(context)
        if let (fn, info, _) = classDraw {
            hostCall { fn(handle, ctx, info) }
        } else if drawsText {
            drawText(in: context, flipped: flipped)
        } else if let fn = delegateDraw {
            hostCall { fn(handle, ctx, hooks?.delegateInfo) }
        }
        store.pixelsChanged()
        if v.contents !== store { setContentsFromDisplay(store) }
        if extras?.backingStore !== store { ensureExtras.backingStore = store }
    }

    /// The backing store becomes the contents (no action runs: the display
    /// cycle is not a change the host made). A layer whose changes are being
    /// logged logs the contents too, so presentation keeps the committed
    /// ones until the commit.
    private func setContentsFromDisplay(_ store: PixelBuffer) {
        if let s = transactionState, s.record != nil, s.logging { s.log(.contents, of: self) }
        ensureVisuals.contents = store
    }
}
