import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel
import Glibc

// CARenderer: renders a layer tree at a given media time into a pixel buffer,
// frame by frame, redrawing only what changed since the last frame.

/// Replays `ops` into `region` of `target` (cleared first when `clear`),
/// split into bands of rows drawn on up to `threads` threads (the pixels are
/// the same bytes whatever the count; Renderer+Bands.swift).
/// Returns false when the target's format cannot be read or written.
package func composite(_ ops: [DrawOp], into target: PixelBuffer, region: PixelBox, clear: Bool, textures: TextureCache,
                       threads: Int = 1) -> Bool {
    let r = region.intersection(PixelBox(x0: 0, y0: 0, x1: target.width, y1: target.height))
    guard !r.isEmpty else { return true }
    target.lock(readOnly: false)
    defer { try? target.unlock(readOnly: false) }
    guard let canvas = target.canvas(r, read: !clear) else { return false }
    let clearFirst = clear && !coversOpaquely(ops.first, r)
    // (A frame showing its own target reads it while drawing it: one band,
    // so that it reads what one thread would.)
    let bands = !ops.contains(where: { $0.texture === target }) ? frameBands(ops, r, threads: threads) : [r]
    if bands.count <= 1 {
        if clearFirst { canvas.clear() }
        var comp = Compositor(root: canvas, textures: textures)
        comp.run(ops)
    } else {
        // Shadows' silhouettes blurred once, then each band clears and draws
        // its own rows (`canvas` outlives the views).
        let prepared = Compositor.prepareShadows(ops, root: canvas, textures: textures, threads: threads)
        TileStore.shared.parallel(bands.count, threads: threads) { i in
            let band = canvas.band(bands[i])
            if clearFirst { band.clear() }
            var comp = Compositor(root: band, textures: textures)
            comp.prepared = prepared
            comp.run(ops)
        }
    }
    return target.finish(canvas)
}

/// Whether `op` paints every pixel of `r` opaquely (an opaque, unclipped,
/// axis-aligned fill containing it), so clearing first would be wasted.
package func coversOpaquely(_ op: DrawOp?, _ r: PixelBox) -> Bool {
    guard let op, op.kind == .fill, op.depth == 0, op.opacity >= 1, op.color.w >= 1, op.cornerRadius == 0 else { return false }
    let m = op.transform.m
    guard m.1 == 0, m.2 == 0, m.3 == 0, m.5 == 0, m.8 == 1, m.0 > 0, m.4 > 0 else { return false }
    let x0 = op.rect.minX * m.0 + m.6, x1 = op.rect.maxX * m.0 + m.6
    let y0 = op.rect.minY * m.4 + m.7, y1 = op.rect.maxY * m.4 + m.7
    return x0 <= Double(r.x0) && x1 >= Double(r.x1) && y0 <= Double(r.y0) && y1 >= Double(r.y1)
}

extension PixelBuffer {
    /// Whether the compositor can read and write this buffer's format.
    package var isRenderable: Bool { decoder() != nil && encoder() != nil }
}

public final class Renderer: QZObject, Handle {
    /// The pixel buffer frames are drawn into (nil for a GL renderer).
    package let target: PixelBuffer?
    /// The GL renderer drawing frames into the framebuffer bound in a GL
    /// context instead (CARendererCreateWithEGLContext, GL/GLRenderer.swift).
    package let gpu: GLRenderer?
    package var layer: Layer?
    package var bounds: CGRect
    /// The frame in progress (between BeginFrame and EndFrame).
    package var frameTime: Double?
    package var frameOps: [DrawOp] = []
    package var updateRect = PixelBox.empty
    package var rendered = false
    /// The last frame's operations (damage tracking compares against them).
    package var lastOps: [DrawOp]? {
        didSet { if lastOps == nil { lastFingerprint = nil; frameFingerprint = nil } }
    }
    /// Fingerprints of the tree (Renderer+Fingerprint.swift): the last completed
    /// frame's and the current frame's (nil: not known, or animating).
    package var lastFingerprint: UInt64?
    package var frameFingerprint: UInt64?
    package let textures = TextureCache()
    package let rasterCache = RasterCache()
    /// The tiles the last build asked the workers for.
    package var pendingTiles: [(Tile, UInt64)] = []
    /// Statistics: pixels redrawn by the last Render, frames drawn.
    package var lastPixelsDrawn = 0
    /// QZRendererSetWaitsForTiles: a frame waits until the tiles it shows are drawn.
    package var waitsForTiles = false
    /// QZRendererSetThreadCount: threads drawing a frame's bands (1: the
    /// calling thread alone).
    package var threadCount = 1
    /// The most threads a frame is drawn on.
    package static let maximumThreadCount = 64
    /// The machine's online processors (1 ... maximumThreadCount).
    package static var coreCount: Int {
        min(max(sysconf(Int32(_SC_NPROCESSORS_ONLN)), 1), maximumThreadCount)
    }
    /// How long a frame waits for its tiles at most (a drawing that never returns must not hang the host).
    package static let tileWaitLimit = 30.0
    /// The frame being built, and the last one, showed a tiled layer waiting for
    /// tiles or fading one in: the next frame is built again, not reused.
    package var frameTilesBusy = false
    package var lastTilesBusy = false

    package init(target: PixelBuffer) {
        self.target = target
        gpu = nil
        bounds = CGRect(x: 0, y: 0, width: Double(target.width), height: Double(target.height))
        super.init(kind: .renderer)
    }

    /// A renderer drawing with `gpu`; its target is `bounds`'s size in pixels.
    package init(gpu: GLRenderer, bounds: CGRect) {
        target = nil
        self.gpu = gpu
        self.bounds = bounds
        super.init(kind: .renderer)
    }

    @inlinable package static var handleKind: ObjectKind { .renderer }
    @inlinable package static func accepts(_ tag: UInt32) -> Bool { tag == tagMagic | UInt32(ObjectKind.renderer.rawValue) }

    /// The target's pixels: the pixel buffer's, or for a GL renderer the
    /// bounds' size (up to GLRenderer.maxTargetSide a side).
    package var targetRect: PixelBox {
        if let target { return PixelBox(x0: 0, y0: 0, x1: target.width, y1: target.height) }
        func side(_ x: Double) -> Int { x.isFinite ? Int(min(max(x, 0), Double(GLRenderer.maxTargetSide)).rounded()) : 0 }
        return PixelBox(x0: 0, y0: 0, x1: side(bounds.width), y1: side(bounds.height))
    }

    /// The operations of the tree at time `t` (presentation values).
    /// `modelIsPresentation`: nothing in the tree animates or has uncommitted
    /// changes (the fingerprint's walk found out), so the model tree is drawn
    /// directly instead of a presentation copy.
    package func buildOps(at t: Double, modelIsPresentation: Bool) -> [DrawOp] {
        guard let layer else { return [] }
        let p = modelIsPresentation ? layer : layer.presentationCopy(now: t)
        let root = Homography(p.placement).pretranslatedAfter(-bounds.minX, -bounds.minY)
        var b = DrawListBuilder(targetBounds: targetRect.cgRect, now: t, scale: 1, capacity: lastOps?.count ?? 0)
        b.rasterCache = rasterCache
        b.emit(p, root)
        rasterCache.sweep()
        frameTilesBusy = b.tilesBusy
        pendingTiles = b.pendingTiles
        return b.ops
    }

    /// A new root layer (or none): the next frame redraws everything.
    package func setRootLayer(_ l: Layer?) {
        layer = l
        lastOps = nil
    }

    /// A new rectangle of the renderer's space (finite, checked by the
    /// caller): the next frame redraws everything.
    package func setBounds(_ b: CGRect) {
        bounds = b.standardized
        lastOps = nil
    }

    /// Adds target pixels to the open frame's update rectangle; false when
    /// no frame is open.
    package func addUpdateRect(_ rect: CGRect) -> Bool {
        guard frameTime != nil else { return false }
        updateRect = updateRect.union(PixelBox(covering: rect.standardized)).intersection(targetRect)
        return true
    }

    /// What a frame does before it looks at the tree (called without the
    /// renderer's or the model's lock): a frame shows committed state, so
    /// the calling thread's implicit transaction commits first, as a run
    /// loop turn would (hosts that drive CARenderer from their own frame
    /// loop have no run loop).
    package static func prepareFrame() {
        Transactions.flush()
    }

    package func beginFrame(at t: Double) {
        frameTime = t
        rendered = false
        let (print, modelIsPresentation) = layer.map { fingerprint($0) } ?? (nil, true)
        if let print, print == lastFingerprint, let last = lastOps, !lastTilesBusy {
            // Nothing changed and nothing animates: the last frame again.
            frameOps = last
            updateRect = .empty
            return
        }
        frameOps = buildOps(at: t, modelIsPresentation: modelIsPresentation)
        if waitsForTiles {
            // Wait for the tiles asked for (the model lock is let go meanwhile),
            // then build again with them; a tree changed meanwhile may ask for more.
            var rounds = 0
            while !pendingTiles.isEmpty && rounds < 8 {
                rounds += 1
                if !TileStore.shared.waitFor(pendingTiles, timeout: Renderer.tileWaitLimit) {
                    recordError(QZErrorInvalidState, "CARendererBeginFrameAtTime", "tiles were not drawn within \(Renderer.tileWaitLimit) s; the frame shows what is drawn")
                    break
                }
                let again = layer.map { fingerprint($0).modelIsPresentation } ?? true
                frameOps = buildOps(at: t, modelIsPresentation: again)
            }
        }
        pendingTiles = []
        frameFingerprint = print
        updateRect = damage(old: lastOps, new: frameOps).intersection(targetRect)
    }

    /// Draws the update rectangle; false (an error recorded naming
    /// `function`) when the target cannot be drawn into.
    package func render(_ function: StaticString) -> Bool {
        rendered = true
        if let gpu {
            // (A GL frame checks its context even when nothing changed.)
            lastPixelsDrawn = updateRect.width * updateRect.height
            return gpu.draw(frameOps, region: updateRect, size: targetRect, function: function)
        }
        guard !updateRect.isEmpty, let target else { lastPixelsDrawn = 0; return true }
        lastPixelsDrawn = updateRect.width * updateRect.height
        let ok = composite(frameOps, into: target, region: updateRect, clear: true, textures: textures, threads: threadCount)
        textures.sweep()
        if !ok { recordError(QZErrorInvalidState, function, "the target's pixels could not be written") }
        return ok
    }

    package func endFrame() {
        lastTilesBusy = frameTilesBusy
        lastOps = frameOps
        lastFingerprint = frameFingerprint
        frameTime = nil
        updateRect = .empty
    }

    /// The next media time a frame is needed: `t` while something animates,
    /// the begin time of an animation that has not started, else infinity.
    package func nextFrameTime(after t: Double) -> Double {
        guard let layer else { return .infinity }
        // Tiles being drawn or fading in: the next frame shows more.
        if lastTilesBusy || (frameTime != nil && frameTilesBusy) { return t }
        var next = Double.infinity
        // Each layer with its superlayer's local time (the root's from media time).
        var stack = [(layer, layer.superlayer.map { $0.localTime(fromMedia: t) } ?? t)]
        var guardCount = 0
        while let (l, parentTime) = stack.popLast(), guardCount < 1_000_000 {
            guardCount += 1
            if let timing = l.timing, !timing.isLinear, l.subtreeHasAnimations {
                // A cycle (finite duration or repeatDuration): the subtree's
                // animations replay while it is active, and stand still
                // before it begins and after it ends.
                let m = timing.mediaTiming
                let active = (parentTime - m.beginTime) * Double(m.speed)
                let d = m.duration > 0 && m.duration.isFinite ? m.duration : Double.infinity
                let total = d.isFinite ? m.activeDuration(d) : (m.repeatDuration > 0 ? m.repeatDuration : .infinity)
                if m.speed == 0 || parentTime.isNaN { continue }
                if active < 0 {
                    if m.speed > 0 { next = min(next, l.superlayer?.mediaTime(fromLocal: m.beginTime) ?? m.beginTime) }
                    continue
                }
                if active < total { return t }
                continue
            }
            let localNow = l.localTime(fromParent: parentTime)
            if let list = l.animationList {
                for e in list {
                    let a = e.animation
                    let begin = a.resolvedBeginTime ?? a.timing.beginTime
                    let speed = Double(a.timing.speed)
                    let total = a.timing.activeDuration(a.timing.simpleDuration(0.25))
                    if localNow < begin {
                        next = min(next, l.mediaTime(fromLocal: begin))
                    } else if speed == 0 || (localNow - begin) * abs(speed) < total || total.isInfinite {
                        return t
                    }
                }
            }
            if let records = l.implicitList {
                for r in records {
                    if localNow < r.begin {
                        next = min(next, l.mediaTime(fromLocal: r.begin))
                    } else if localNow - r.begin < r.duration {
                        return t
                    }
                }
            }
            for s in l.sublayers { stack.append((s, localNow)) }
            if let m = l.visuals?.mask { stack.append((m, localNow)) }
        }
        return next
    }
}

extension Layer {
    /// Whether the layer or a layer below it (masks included) has animations.
    package var subtreeHasAnimations: Bool {
        var stack: [Layer] = [self]
        var steps = 0
        while let l = stack.popLast(), steps < 10_000_000 {
            steps += 1
            if l.animationList != nil || l.implicitList != nil { return true }
            stack.append(contentsOf: l.sublayers)
            if let m = l.visuals?.mask { stack.append(m) }
        }
        return false
    }
}

extension Homography {
    /// self, then a translation (in the destination space).
    package func pretranslatedAfter(_ dx: Double, _ dy: Double) -> Homography {
        then(Homography(m: (1, 0, 0, 0, 1, 0, dx, dy, 1)))
    }
}

/// The pixels that differ between two frames' operations: the bounds of
/// operations that appeared, disappeared, changed, or changed neighbours
/// (paint order), keyed by layer and occurrence. Everything when there was
/// no previous frame.
package func damage(old: [DrawOp]?, new: [DrawOp]) -> PixelBox {
    guard let old else { return PixelBox(x0: -(1 << 24), y0: -(1 << 24), x1: 1 << 24, y1: 1 << 24) }
    if old.count == new.count {
        var same = true
        for i in 0..<old.count where !old[i].sameContent(as: new[i]) { same = false; break }
        if same { return .empty }
    }
    struct Key: Hashable { let layer: UInt; let kind: UInt32; let n: Int }
    func keyed(_ ops: [DrawOp]) -> ([Key], [Key: Int]) {
        var counts: [Key: Int] = [:]
        var keys: [Key] = []
        var index: [Key: Int] = [:]
        keys.reserveCapacity(ops.count)
        for (i, op) in ops.enumerated() {
            let base = Key(layer: op.layerID, kind: op.kind.rawValue, n: 0)
            let n = counts[base, default: 0]
            counts[base] = n + 1
            let k = Key(layer: op.layerID, kind: op.kind.rawValue, n: n)
            keys.append(k)
            index[k] = i
        }
        return (keys, index)
    }
    let (oldKeys, oldIndex) = keyed(old)
    let (newKeys, newIndex) = keyed(new)
    var r = PixelBox.empty
    // Groups, clips and shadows change how everything inside them draws: a
    // changed structural operation damages its whole extent.
    for (i, k) in newKeys.enumerated() {
        let op = new[i]
        if let j = oldIndex[k] {
            let prevSame = (i == 0 && j == 0) || (i > 0 && j > 0 && oldKeys[j - 1] == newKeys[i - 1])
            if !op.sameContent(as: old[j]) || !prevSame {
                r = r.union(PixelBox(covering: op.bounds)).union(PixelBox(covering: old[j].bounds))
            }
        } else {
            r = r.union(PixelBox(covering: op.bounds))
        }
    }
    for (j, k) in oldKeys.enumerated() where newIndex[k] == nil {
        r = r.union(PixelBox(covering: old[j].bounds))
    }
    return widenedForFilters(r, new)
}

/// Backdrops and blurred groups read pixels around the ones they change: when
/// the damage touches one, the whole of it and what it reads are redrawn (the
/// compositor then has every pixel it reads in the redrawn region).
package func widenedForFilters(_ damage: PixelBox, _ ops: [DrawOp]) -> PixelBox {
    guard !damage.isEmpty else { return damage }
    var spans: [PixelBox] = []
    for op in ops where !op.filters.isEmpty && (op.kind == .backdrop || op.kind == .beginGroup) {
        let reach = op.kind == .backdrop
            ? op.filters.reduce(0) { $0 + ($1.blurRadius > 0 ? blurExtent(sigma: $1.blurRadius) + 1 : 0) } : 0
        let b = PixelBox(covering: op.bounds)
        spans.append(PixelBox(x0: b.x0 - reach, y0: b.y0 - reach, x1: b.x1 + reach, y1: b.y1 + reach))
    }
    guard !spans.isEmpty else { return damage }
    var r = damage
    // (A fixed point: a widened region can reach further filtered operations.)
    for _ in 0..<spans.count {
        var grew = false
        for s in spans where !s.intersection(r).isEmpty && s.union(r) != r { r = r.union(s); grew = true }
        if !grew { break }
    }
    return r
}
