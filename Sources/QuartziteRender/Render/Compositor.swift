import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel
import Glibc

// The CPU compositor: replays a draw list into a canvas, limited to a region
// of the target. Shapes are evaluated per pixel by mapping the pixel centre
// back into layer coordinates through the inverse homography (which makes
// texture mapping perspective-correct) and measuring its distance to the
// shape's edges in pixels (anti-aliasing), through the same clips a GPU host
// would apply with a stencil.

/// A quad shape in layer coordinates and the maps to and from target pixels.
package struct ShapeMap {
    package let h: Homography
    package let inv: Homography
    package let rect: CGRect
    package let radius: Double
    package let edges: UInt32

    package init?(_ op: borrowing DrawOp) {
        guard let inv = op.transform.inverse, inv.isFinite else { return nil }
        h = op.transform
        self.inv = inv
        rect = op.rect.standardized
        radius = op.cornerRadius
        edges = op.edgeMask
    }

    /// The layer point under the target point (px, py), its pixel scales along
    /// the layer's x and y axes, or nil when that point is behind the eye.
    @inline(__always) package func local(_ px: Double, _ py: Double) -> (x: Double, y: Double, sx: Double, sy: Double)? {
        let m = inv.m
        let X = px * m.0 + py * m.3 + m.6, Y = px * m.1 + py * m.4 + m.7, W = px * m.2 + py * m.5 + m.8
        guard W != 0 else { return nil }
        let qx = X / W, qy = Y / W
        let f = h.m
        let w = qx * f.2 + qy * f.5 + f.8
        guard w > 1e-9 else { return nil }
        let ax = (f.0 - px * f.2) / w, ay = (f.1 - py * f.2) / w
        let bx = (f.3 - px * f.5) / w, by = (f.4 - py * f.5) / w
        return (qx, qy, (ax * ax + ay * ay).squareRoot(), (bx * bx + by * by).squareRoot())
    }

    /// Coverage (0...1) of a pixel whose centre maps to (x, y) by a rounded
    /// rectangle; edges outside `edges` are hard (half-open at the centre).
    @inline(__always) package static func coverage(_ r: CGRect, _ radius: Double, _ edges: UInt32,
                                           _ x: Double, _ y: Double, _ sx: Double, _ sy: Double) -> Double {
        @inline(__always) func lo(_ d: Double, _ aa: Bool) -> Double { aa ? min(max(0.5 - d, 0), 1) : (d <= 0 ? 1 : 0) }
        @inline(__always) func hi(_ d: Double, _ aa: Bool) -> Double { aa ? min(max(0.5 - d, 0), 1) : (d < 0 ? 1 : 0) }
        let cl = lo((r.minX - x) * sx, edges & 1 != 0), cr = hi((x - r.maxX) * sx, edges & 2 != 0)
        let ct = lo((r.minY - y) * sy, edges & 8 != 0), cb = hi((y - r.maxY) * sy, edges & 4 != 0)
        let cx = max(cl + cr - 1, 0), cy = max(ct + cb - 1, 0)
        var c = cx * cy
        if radius > 0 && c > 0 {
            let ix = min(max(x, r.minX + radius), r.maxX - radius)
            let iy = min(max(y, r.minY + radius), r.maxY - radius)
            if ix != x && iy != y {
                let dx = (x - ix) * sx, dy = (y - iy) * sy
                let d = (dx * dx + dy * dy).squareRoot() - radius * (sx + sy) * 0.5
                c = min(c, min(max(0.5 - d, 0), 1))
            }
        }
        return c
    }
}

/// Sorts pixels of an axis-aligned rounded rectangle (all edges antialiased,
/// no rotation) by what ShapeMap.coverage gives them: certainly 0, certainly
/// 1, or on the rim (anything else, and anything within 0.001 pixel of a
/// boundary: the classification's own rounding is far below that).
package struct RimClassifier {
    package enum Class { case outside, inside, rim }
    /// What a row contributes: its signed distance to the top and bottom edges
    /// and how far into a corner's band it is (pixels and layer units).
    package struct Row { let edge: Double; let into: Double }
    let r: CGRect, radius: Double, sx: Double, sy: Double, ax: Double, bx: Double, tolX: Double, tolY: Double
    static let margin = 1e-3

    /// nil where the rounding could approach the margin (huge coordinates or
    /// scales) or the radius exceeds half a side (coverage clamps it oddly).
    package init?(rect: CGRect, radius: Double, sx: Double, sy: Double, ax: Double, bx: Double) {
        guard sx > 1e-6, sy > 1e-6, sx < 1e6, sy < 1e6, ax.isFinite, bx.isFinite, ax != 0, radius.isFinite, radius >= 0,
              radius <= Swift.min(rect.width, rect.height) / 2 else { return nil }
        let extent = Swift.max(abs(rect.minX), abs(rect.maxX), abs(rect.minY), abs(rect.maxY)) + radius
        guard extent.isFinite, extent * Swift.max(sx, sy) < 1e8, abs(bx) < 1e12 else { return nil }
        r = rect; self.radius = radius; self.sx = sx; self.sy = sy; self.ax = ax; self.bx = bx
        tolX = Self.margin / sx; tolY = Self.margin / sy
    }

    /// The row at layer y = qy.
    @inline(__always) package func row(_ qy: Double) -> Row {
        Row(edge: Swift.min(qy - r.minY, r.maxY - qy) * sy, into: Swift.max(r.minY + radius - qy, qy - (r.maxY - radius)))
    }

    /// The pixel whose centre is at target x = cx on `row`.
    @inline(__always) package func classify(_ cx: Double, _ row: Row) -> Class {
        let qx = cx * ax + bx
        let edge = Swift.min(Swift.min(qx - r.minX, r.maxX - qx) * sx, row.edge)
        if edge <= -0.5 - Self.margin { return .outside }
        if radius > 0 {
            let ux = Swift.max(r.minX + radius - qx, qx - (r.maxX - radius)), uy = row.into
            if ux > -tolX && uy > -tolY {
                // In a corner's quadrant, or too near one to tell.
                let dx = Swift.max(ux, 0) * sx, dy = Swift.max(uy, 0) * sy
                let inside = radius * (sx + sy) * 0.5 - (dx * dx + dy * dy).squareRoot()
                if ux > tolX && uy > tolY && inside <= -0.5 - Self.margin { return .outside }
                if inside < 0.5 + Self.margin { return .rim }
            }
        }
        return edge >= 0.5 + Self.margin ? .inside : .rim
    }
}

/// The last four textures a compositor used, in front of the shared cache:
/// a frame's images often alternate between a few buffers (the shared
/// cache remembers one), and the bands of a frame drawn on several threads
/// would otherwise take the shared cache's lock for every image.
final class RecentTextures {
    /// (The buffer is held so that its identifier stays its own.)
    private var entries: [(id: ObjectIdentifier, buffer: PixelBuffer, seed: UInt32, box: PixelBox, texture: Texture)] = []
    private var next = 0

    func texture(_ pb: PixelBuffer, seed: UInt32, box: PixelBox, from cache: TextureCache) -> Texture? {
        let id = ObjectIdentifier(pb)
        for i in entries.indices where entries[i].id == id && entries[i].seed == seed && entries[i].box == box {
            return entries[i].texture
        }
        guard let t = cache.texture(pb, seed: seed, box: box) else { return nil }
        if entries.count < 4 {
            entries.append((id, pb, seed, box, t))
        } else {
            entries[next] = (id, pb, seed, box, t)
            next = (next + 1) & 3
        }
        return t
    }
}

/// Where the compositor draws: a stack of canvases, the clip stack, the cache.
package struct Compositor {
    private var canvases: [Canvas]
    private var clips: [ShapeMap] = []
    /// Saved clip stacks (a shadow's silhouette and a mask are drawn unclipped).
    private var savedClips: [[ShapeMap]] = []
    /// Per open group: its operation, canvas and mask canvas (once begun).
    private var groups: [(op: DrawOp, canvas: Canvas, mask: Canvas?)] = []
    private var shadows: [(op: DrawOp, canvas: Canvas)] = []
    package let textures: TextureCache
    /// The last textures this compositor drew (its own: no lock).
    private let recent = RecentTextures()

    package init(root: Canvas, textures: TextureCache) {
        canvases = [root]
        self.textures = textures
    }

    private var top: Canvas { canvases[canvases.count - 1] }

    /// An offscreen canvas (an empty one when `r` cannot be allocated).
    private func offscreen(_ r: PixelBox, frame: PixelBox? = nil) -> Canvas {
        Canvas(r, frame: frame) ?? Canvas(.empty)!
    }

    /// Shadows blurred before a frame was split into bands (prepareShadows),
    /// by the index of their BEGIN_SHADOW.
    package var prepared: [Int: PreparedShadow] = [:]

    /// Replays `ops[start ..< end]` (all of them by default).
    package mutating func run(_ ops: [DrawOp], from start: Int = 0, to end: Int? = nil) {
        var i = start
        let end = min(end ?? ops.count, ops.count)
        while i < end {
            if !prepared.isEmpty, let p = prepared[i] {
                drawShadowMask(ops[i], p.rect, p.mask)
                i = p.end + 1
                continue
            }
            // The shadow of a lone opaque rounded rectangle (the most common
            // case) comes from the kernels' template blur, without an
            // offscreen silhouette.
            if ops[i].kind == .beginShadow, i + 2 < ops.count, ops[i + 2].kind == .endShadow,
               roundedRectShadow(ops[i], ops[i + 1], paintedOver: i + 3 < ops.count ? ops[i + 3] : nil) {
                i += 3
                continue
            }
            // A quad or path whose rows lie more than a pixel away from the
            // canvas draws nothing: skipped before the operation is copied out
            // of the list (for a band of a frame, that is most of it). The
            // exact test, with rounding, is drawQuad's and drawPath's own.
            switch ops[i].kind {
            case .fill, .border, .image, .path:
                let b = ops[i].bounds, c = top.rect
                if b.maxY < Double(c.y0) - 1 || b.minY > Double(c.y1) + 1 { i += 1; continue }
            default: break
            }
            execute(ops[i])
            i += 1
        }
    }

    /// Draws `shadow` whose only content is `fill` when that is an opaque,
    /// axis-aligned rounded rectangle at uniform scale and nothing clips it;
    /// false (nothing drawn) otherwise. When the next operation, `next`, draws
    /// that same fill (a layer's background over its own shadow), the shadow
    /// leaves out the pixels the fill will cover opaquely.
    private func roundedRectShadow(_ shadow: DrawOp, _ fill: DrawOp, paintedOver next: DrawOp?) -> Bool {
        guard clips.isEmpty, Self.isTemplateShadowFill(fill) else { return false }
        let m = fill.transform.m
        let canvas = top
        let region = PixelBox(covering: shadow.bounds).intersection(canvas.rect)
        guard !region.isEmpty else { return true }
        let r = fill.rect.standardized
        // (Placed from the canvas's frame origin: a band of a frame places the
        // template where one thread would, and draws its own rows of it.)
        let o = canvas.frame
        let device = CGRect(x: r.minX * m.0 + m.6 + shadow.shadowOffset.width - Double(o.x0),
                            y: r.minY * m.4 + m.7 + shadow.shadowOffset.height - Double(o.y0),
                            width: r.width * m.0, height: r.height * m.4)
        let surface = Surface(base: canvas.row(o.y0) + o.x0, width: o.width, height: o.height, rowPixels: canvas.rowPixels)
        let clip = PixelBox(x: region.x0 - o.x0, y: region.y0 - o.y0, width: region.width, height: region.height)
        let color = scalePixel(packBGRA(shadow.color), unit8(Double(shadow.opacity)))
        var above: (rect: CGRect, cornerRadius: Double, within: PixelBox)?
        if let next, Self.drawsSameOpaqueFill(next, fill) {
            let painted = PixelBox(covering: next.bounds).intersection(canvas.rect)
            above = (CGRect(x: r.minX * m.0 + m.6 - Double(o.x0), y: r.minY * m.4 + m.7 - Double(o.y0),
                            width: r.width * m.0, height: r.height * m.4),
                     fill.cornerRadius * m.0,
                     PixelBox(x: painted.x0 - o.x0, y: painted.y0 - o.y0, width: painted.width, height: painted.height))
        }
        _ = fillRoundedRectShadow(dst: surface, clip: clip, rect: device, cornerRadius: fill.cornerRadius * m.0,
                                  sigma: shadow.shadowRadius, color: color, templates: textures.shadows, opaqueAbove: above)
        return true
    }

    /// Whether a shadow whose only content is `fill` (and that nothing clips)
    /// comes from the template blur.
    private static func isTemplateShadowFill(_ fill: DrawOp) -> Bool {
        guard fill.kind == .fill, fill.color.w >= 1, fill.opacity >= 1, fill.edgeMask == 0xF else { return false }
        let m = fill.transform.m
        return m.1 == 0 && m.2 == 0 && m.3 == 0 && m.5 == 0 && m.8 == 1 && m.0 > 0 && m.0 == m.4
    }

    /// A shadow's blurred silhouette and where it lies (before its offset).
    package struct PreparedShadow {
        /// The index of its END_SHADOW.
        let end: Int
        let rect: PixelBox
        let mask: MaskBitmap?
    }

    /// Blurs the silhouettes of the shadows outside any group or shadow in
    /// `ops` (those not drawn from the template), each once, on up to
    /// `threads` threads, for a frame about to be split into bands: the bands
    /// then draw their rows of each (what they would otherwise all blur
    /// whole). `root` is the frame's whole canvas (it is not written).
    package static func prepareShadows(_ ops: [DrawOp], root: Canvas, textures: TextureCache,
                                       threads: Int) -> [Int: PreparedShadow] {
        var found: [(begin: Int, end: Int, key: ShadowMaskCache.SilhouetteKey)] = []
        var shadowsOfLayer: [UInt: Int] = [:]
        var nesting = 0, clipCount = 0, open = -1
        for (i, op) in ops.enumerated() {
            switch op.kind {
            case .pushClip: clipCount += 1
            case .popClip: clipCount = max(clipCount - 1, 0)
            case .beginGroup: nesting += 1
            case .endGroup: nesting = max(nesting - 1, 0)
            case .beginShadow:
                if nesting == 0 {
                    let template = clipCount == 0 && i + 2 < ops.count && ops[i + 2].kind == .endShadow
                        && isTemplateShadowFill(ops[i + 1])
                    let shown = !PixelBox(covering: op.bounds).intersection(root.rect).isEmpty
                    open = template || !shown ? -1 : i
                }
                nesting += 1
            case .endShadow:
                nesting = max(nesting - 1, 0)
                if nesting == 0, open >= 0 {
                    let layer = ops[open].layerID
                    let ordinal = shadowsOfLayer[layer, default: 0]
                    shadowsOfLayer[layer] = ordinal + 1
                    found.append((open, i, ShadowMaskCache.SilhouetteKey(layer: layer, ordinal: ordinal)))
                    open = -1
                }
            default: break
            }
        }
        guard !found.isEmpty else { return [:] }
        let results = PreparedResults(count: found.count)
        TileStore.shared.parallel(found.count, threads: threads) { k in
            let (begin, end, key) = found[k]
            // The same operations over the same region as the last frame's
            // draw the same silhouette: its blurred mask again, undrawn.
            if let (rect, mask) = textures.shadows.preparedSilhouette(key, ops: ops[begin...end], root: root) {
                results.set(k, PreparedShadow(end: end, rect: rect, mask: mask))
                return
            }
            var c = Compositor(root: root, textures: textures)
            // (Its own BEGIN_SHADOW directly: the template shortcut was ruled
            // out above with the frame's clips, which this compositor lacks.)
            c.execute(ops[begin])
            guard let s = c.shadows.popLast() else { return }
            // The silhouette's content, itself in bands when it is large.
            let silhouette = s.canvas
            let bands = frameBands(Array(ops[(begin + 1)..<end]), silhouette.rect, threads: threads)
            if bands.count <= 1 {
                c.run(ops, from: begin + 1, to: end)
            } else {
                TileStore.shared.parallel(bands.count, threads: threads) { b in
                    var part = Compositor(root: silhouette.band(bands[b]), textures: textures)
                    part.run(ops, from: begin + 1, to: end)
                }
            }
            let mask = c.blurredSilhouette(s.op, s.canvas)
            textures.shadows.keepPreparedSilhouette(key, ops: ops[begin...end], root: root, rect: s.canvas.rect, mask: mask)
            results.set(k, PreparedShadow(end: end, rect: s.canvas.rect, mask: mask))
        }
        var out: [Int: PreparedShadow] = [:]
        for (k, f) in found.enumerated() {
            if let p = results.get(k) { out[f.begin] = p }
        }
        return out
    }

    /// Slots filled by the threads of prepareShadows, one each.
    private final class PreparedResults: @unchecked Sendable {
        private var slots: [PreparedShadow?]
        private let lock = RecursiveLock()
        init(count: Int) { slots = Array(repeating: nil, count: count) }
        func set(_ k: Int, _ p: PreparedShadow) { lock.withLock { slots[k] = p } }
        func get(_ k: Int) -> PreparedShadow? { lock.withLock { slots[k] } }
    }

    /// Whether `op` is drawn by drawQuad as the opaque, unclipped fill
    /// `fill` (already checked opaque and axis-aligned): same shape, same
    /// transform, full opacity, no tint, not additive.
    private static func drawsSameOpaqueFill(_ op: DrawOp, _ fill: DrawOp) -> Bool {
        let a = op.transform.m, b = fill.transform.m
        return op.kind == .fill && op.rect.origin.x == fill.rect.origin.x && op.rect.origin.y == fill.rect.origin.y
            && op.rect.size.width == fill.rect.size.width && op.rect.size.height == fill.rect.size.height
            && op.cornerRadius == fill.cornerRadius && op.edgeMask == 0xF
            && op.color.w >= 1 && op.opacity >= 1 && op.tint == nil && !op.additive
            && a.0 == b.0 && a.1 == b.1 && a.2 == b.2 && a.3 == b.3 && a.4 == b.4 && a.5 == b.5 && a.6 == b.6 && a.7 == b.7 && a.8 == b.8
    }

    package mutating func execute(_ op: DrawOp) {
        switch op.kind {
        case .fill, .border, .image: drawQuad(op)
        case .path: drawPath(op)
        case .pushClip:
            if let s = ShapeMap(op) { clips.append(s) } else {
                // A degenerate clip hides everything inside it.
                var z = op; z.rect = .zero; z.transform = .identity
                clips.append(ShapeMap(z)!)
            }
        case .popClip: if !clips.isEmpty { clips.removeLast() }
        case .beginGroup:
            // A band of a frame draws its rows of the group, except that a
            // blurred group reads pixels around each one: it is drawn whole
            // (as one thread would) when the band shows any of it.
            let whole = PixelBox(covering: op.bounds).intersection(top.frame)
            let part = whole.intersection(top.rect)
            let blurred = op.blurs
            let c = offscreen(part.isEmpty ? .empty : (blurred ? whole : part), frame: whole)
            groups.append((op, c, nil))
            canvases.append(c)
        case .beginMask:
            guard var g = groups.popLast() else { return }
            let m = offscreen(g.canvas.rect, frame: g.canvas.frame)
            g.mask = m
            groups.append(g)
            canvases.append(m)
            savedClips.append(clips)
            clips = []
        case .endGroup:
            guard let g = groups.popLast() else { return }
            if g.mask != nil {
                canvases.removeLast()
                clips = savedClips.popLast() ?? []
            }
            canvases.removeLast()
            if !g.op.filters.isEmpty { applyFilters(g.op.filters, to: g.canvas.surface) }
            compositeGroup(g.canvas, mask: g.mask, opacity: g.op.opacity, tint: g.op.color,
                           mode: CompositingMode(rawValue: g.op.blendMode) ?? .sourceOver)
        case .backdrop: drawBackdrop(op)
        case .beginShadow:
            let margin = blurExtent(sigma: op.shadowRadius) + 1
            let dx = pixelCoordinate(op.shadowOffset.width.rounded()), dy = pixelCoordinate(op.shadowOffset.height.rounded())
            let whole = PixelBox(covering: op.rect.offsetBy(dx: Double(dx), dy: Double(dy)))
            // (The blur's running sums depend on where the silhouette starts:
            // a band of a frame blurs the silhouette one thread would, and
            // shows its own rows of it.)
            let shown = PixelBox(covering: op.bounds).intersection(top.rect)
            let region = shown.isEmpty ? .empty : PixelBox(covering: op.bounds).intersection(top.frame)
            // The silhouette pixels whose blur reaches the region: the region
            // moved back by the offset and widened by the blur's reach, within
            // the operation's extent (the silhouette plus that reach).
            let c = offscreen(region.isEmpty ? .empty
                : PixelBox(x0: region.x0 - dx - margin, y0: region.y0 - dy - margin,
                           x1: region.x1 - dx + margin, y1: region.y1 - dy + margin).intersection(whole.offset(-dx, -dy)))
            shadows.append((op, c))
            canvases.append(c)
            savedClips.append(clips)
            clips = []
        case .endShadow:
            guard let s = shadows.popLast() else { return }
            canvases.removeLast()
            clips = savedClips.popLast() ?? []
            compositeShadow(s.op, s.canvas)
        }
    }

    // MARK: - Quads

    private func drawQuad(_ op: DrawOp) {
        let canvas = top
        let covered = PixelBox(covering: op.bounds)
        let region = covered.intersection(canvas.rect)
        guard !region.isEmpty, let shape = ShapeMap(op), op.opacity > 0 else { return }
        let r = shape.rect
        // (Constants, not variables: the nested functions below capture them,
        // and a captured variable is a heap box allocated on every call.)
        let tex: Texture?
        let u0: Double, v0: Double, texScaleX: Double, texScaleY: Double
        if op.kind == .image {
            guard let pb = op.texture, pb.width > 0, pb.height > 0 else { return }
            let tr = op.textureRect.standardized
            let tw = Double(pb.width), th = Double(pb.height)
            let texels = CGRect(x: tr.minX * tw, y: tr.minY * th, width: tr.width * tw, height: tr.height * th)
            let box = PixelBox(covering: texels).intersection(PixelBox(x0: 0, y0: 0, x1: pb.width, y1: pb.height))
            guard !box.isEmpty, let t = recent.texture(pb, seed: op.textureSeed, box: box, from: textures) else { return }
            tex = t
            u0 = texels.minX - Double(box.x0)
            v0 = texels.minY - Double(box.y0)
            texScaleX = texels.width / r.width
            texScaleY = texels.height / r.height
            guard texScaleX.isFinite, texScaleY.isFinite, u0.isFinite, v0.isFinite else { return }
        } else {
            tex = nil
            u0 = 0; v0 = 0; texScaleX = 0; texScaleY = 0
        }
        let inner = op.kind == .border ? r.insetBy(dx: op.borderWidth, dy: op.borderWidth) : .null
        let innerRadius = max(shape.radius - op.borderWidth, 0)
        let bias = Double(op.filterBias)
        let color = packBGRA(op.color)
        let opacity = Double(op.opacity)
        // A tint multiplies each texel's channels by its own (premultiplied, 0...255).
        let tint: SIMD4<UInt32>? = op.tint.map { t in
            SIMD4(unit8(Double(t.x)), unit8(Double(t.y)), unit8(Double(t.z)), unit8(Double(t.w)))
        }

        // (The mip levels fetched once per quad, not per pixel.)
        // (Filters decoded once; an unknown value filters linearly.)
        let minFilter = TextureFilter(rawValue: op.minFilter) ?? .linear
        let magFilter = TextureFilter(rawValue: op.magFilter) ?? .linear
        let mipLevels = minFilter == .trilinear || magFilter == .trilinear ? tex?.levels(withMips: true) : nil
        @inline(__always) func sample(_ t: Texture, _ u: Double, _ v: Double, _ lod: Double) -> UInt32 {
            switch lod > 0 ? minFilter : magFilter {
            case .nearest: return t.sampleNearest(u: u, v: v)
            case .trilinear:
                // Texture.sampleTrilinear with the levels at hand.
                let l = lod + bias
                if l > 0, let lv = mipLevels { return Texture.trilinear(lv, t.width, t.height, u, v, l) }
                return t.sampleBilinear(u: u, v: v)
            case .linear: return t.sampleBilinear(u: u, v: v)
            }
        }
        @inline(__always) func general(_ row: UnsafeMutablePointer<UInt32>, _ px: Int, _ cy: Double) {
            let cx = Double(px) + 0.5
            guard let q = shape.local(cx, cy) else { return }
            var cov = ShapeMap.coverage(r, shape.radius, shape.edges, q.x, q.y, q.sx, q.sy)
            if op.kind == .border, !inner.isNull, !inner.isEmpty {
                cov = max(cov - ShapeMap.coverage(inner, innerRadius, 0xF, q.x, q.y, q.sx, q.sy), 0)
            }
            if cov <= 0 { return }
            if !clips.isEmpty { cov *= clipCoverage(cx, cy) }
            let k = unit8(cov * opacity)
            if k == 0 { return }
            var src = color
            if let t = tex {
                let u = u0 + (q.x - r.minX) * texScaleX
                let v = v0 + (q.y - r.minY) * texScaleY
                let perPixel = max(texScaleX / max(q.sx, 1e-12), texScaleY / max(q.sy, 1e-12))
                src = sample(t, u, v, log2(max(perPixel, 1e-12)))
            }
            if let t = tint { src = tintPixel(src, t) }
            if k < 255 { src = scalePixel(src, k) }
            if op.additive { row[px] = addPixel(src, row[px]); return }
            if src >> 24 == 255 { row[px] = src } else if src != 0 { row[px] = overPixel(src, row[px]) }
        }

        // Fast path: an affine map without clips. Pixels whose centres lie
        // at least half a pixel inside the shape (and inside the inscribed
        // part of rounded corners) have full coverage and a constant texel
        // footprint, so a row's interior is a span for the kernels.
        let f = shape.h.m, iv = shape.inv.m
        let affine = f.2 == 0 && f.5 == 0 && f.8 > 0 && iv.2 == 0 && iv.5 == 0 && iv.8 != 0
            && clips.isEmpty && op.kind != .border && op.tint == nil && !op.additive
        var inside = CGRect.null
        var sxA = 0.0, syA = 0.0
        if affine {
            sxA = (f.0 * f.0 + f.1 * f.1).squareRoot() / f.8
            syA = (f.3 * f.3 + f.4 * f.4).squareRoot() / f.8
            if sxA > 1e-12, syA > 1e-12 {
                // A centre half a pixel inside every edge has full coverage.
                let k = 0.2929 * shape.radius
                inside = r.insetBy(dx: 0.5 / sxA + k, dy: 0.5 / syA + k)
            }
        }
        let fastLod: Double = {
            guard tex != nil, sxA > 0, syA > 0 else { return 0 }
            return log2(max(max(texScaleX / sxA, texScaleY / syA), 1e-12))
        }()
        let fastFilter = fastLod > 0 ? minFilter : magFilter
        let op8 = unit8(opacity)
        let spanColor = op8 < 255 ? scalePixel(color, op8) : color
        let W = iv.8
        let ax = iv.0 / W, ay = iv.1 / W
        // Without rotation or shear the interior columns are the same on every
        // row of a band: rows between the corners' centres span the whole
        // width, rows beside the corners span between them.
        struct AxisSpans { var wide: (Int, Int); var narrow: (Int, Int); var yWide: (Double, Double); var yNarrow: (Double, Double) }
        var axis: AxisSpans?
        if affine, iv.1 == 0, iv.3 == 0, ax != 0, sxA > 1e-12, syA > 1e-12 {
            let mx = 0.5 / sxA, my = 0.5 / syA, rad = shape.radius
            let bx = iv.6 / W
            func columns(_ x0: Double, _ x1: Double) -> (Int, Int) {
                guard x0 <= x1 else { return (region.x1, region.x1) }
                let l = ((ax > 0 ? x0 : x1) - bx) / ax, h = ((ax > 0 ? x1 : x0) - bx) / ax
                let a0 = max(Double(region.x0), (l - 0.5).rounded(.up))
                let b0 = min(Double(region.x1 - 1), (h - 0.5).rounded(.down))
                return a0 <= b0 ? (Int(a0), Int(b0) + 1) : (region.x1, region.x1)
            }
            axis = AxisSpans(wide: columns(r.minX + mx, r.maxX - mx), narrow: columns(r.minX + mx + rad, r.maxX - mx - rad),
                             yWide: (r.minY + my + rad, r.maxY - my - rad), yNarrow: (r.minY + my, r.maxY - my))
        }
        // Scaled (not one-to-one), unrotated bilinear images: the kernels'
        // sampler resamples each source row once for all the rows it serves.
        // (Opaque texels at full opacity: the rows are written straight into
        // the canvas, which is what blending them would give.)
        var scaled: (sampler: ScaledRowSampler, start: Int, copies: Bool)?
        if let a = axis, let t = tex, fastFilter == .linear, a.wide.0 < a.wide.1, ax * texScaleX != 1 {
            let cx = Double(a.wide.0) + 0.5
            let qx = (cx * iv.0 + iv.6) / W
            scaled = (ScaledRowSampler(texture: t, count: a.wide.1 - a.wide.0, u0: u0 + (qx - r.minX) * texScaleX,
                                       du: ax * texScaleX), a.wide.0, op8 == 255 && t.isOpaque)
        }
        // One-to-one, unrotated images at whole-texel offsets: every interior
        // row is a straight run of a texture row (texel column and row from
        // the first row, stepping by one).
        var direct: (u: Int, ustart: Int, v: Int)?
        // (Its first row is the one a frame drawn in one piece would start at.)
        let rowOrigin = covered.intersection(canvas.frame).y0
        if let a = axis, let t = tex, fastFilter != .trilinear, a.wide.0 < a.wide.1, ax * texScaleX == 1, iv.4 / W * texScaleY == 1 {
            let cx = Double(a.wide.0) + 0.5, cy0 = Double(rowOrigin) + 0.5
            let ui = u0 + ((cx * iv.0 + iv.6) / W - r.minX) * texScaleX - 0.5
            let vi = v0 + ((cy0 * iv.4 + iv.7) / W - r.minY) * texScaleY - 0.5
            if ui.magnitude < 1e9, vi.magnitude < 1e9, ui == Double(Int(ui)), vi == Double(Int(vi)),
               Int(ui) >= 0, Int(ui) + (a.wide.1 - a.wide.0) <= t.width {
                // (Rows whose texel row falls outside the texture take the row path below.)
                direct = (Int(ui), a.wide.0, Int(vi))
            }
        }
        // Plain fills without rotation or shear: pixels beside the interior
        // spans whose coverage is certainly 0 or 1 (by a margin far above
        // rounding) skip the per-pixel evaluation; only the antialiased rim
        // takes it. What `general` would write for coverage 1 is spanColor.
        let rim: RimClassifier? = tex == nil && axis != nil && shape.edges == 0xF
            ? RimClassifier(rect: r, radius: shape.radius, sx: sxA, sy: syA, ax: ax, bx: iv.6 / W) : nil
        // `span`: 1 when the row's interior span follows a..<b, -1 when it
        // precedes it, 0 when the row has none. Beside a span the classes are
        // ordered (outside, rim, inside toward it: the shape is convex), so
        // two binary searches find the rim and the rest is a span or nothing.
        @inline(__always) func side(_ row: UnsafeMutablePointer<UInt32>, _ a: Int, _ b: Int, _ cy: Double, _ qy: Double, _ span: Int) {
            guard a < b else { return }
            guard let rim else {
                for px in a..<b { general(row, px, cy) }
                return
            }
            let rowClass = rim.row(qy)
            @inline(__always) func cls(_ px: Int) -> RimClassifier.Class { rim.classify(Double(px) + 0.5, rowClass) }
            // The first index of lo..<hi where `p` holds (p false, then true along it), or hi.
            @inline(__always) func first(_ lo: Int, _ hi: Int, _ p: (Int) -> Bool) -> Int {
                var lo = lo, hi = hi
                while lo < hi {
                    let mid = lo + (hi - lo) / 2
                    if p(mid) { hi = mid } else { lo = mid + 1 }
                }
                return lo
            }
            switch span {
            case 1:
                let s = first(a, b) { cls($0) != .outside }
                let i = first(s, b) { cls($0) == .inside }
                for px in s..<i { general(row, px, cy) }
                fillSpanOver(dst: row + i, color: spanColor, count: b - i)
            case -1:
                let i = first(a, b) { cls($0) != .inside }
                fillSpanOver(dst: row + a, color: spanColor, count: i - a)
                let e = first(i, b) { cls($0) == .outside }
                for px in i..<e { general(row, px, cy) }
            default:
                for px in a..<b {
                    switch cls(px) {
                    case .outside: continue
                    case .inside:
                        if spanColor >> 24 == 255 { row[px] = spanColor } else if spanColor != 0 { row[px] = overPixel(spanColor, row[px]) }
                    case .rim: general(row, px, cy)
                    }
                }
            }
        }
        // A one-to-one image whose interior is every pixel of every row of the
        // region (square corners, whole-pixel edges; the usual image layer):
        // each row is one blend from a texture row, with none of the per-row
        // tests below. The texel rows at both ends are checked; those between
        // follow (one texel row per row).
        // (The row's mapped y, divided by W once per row and not at all for
        // the usual W of exactly 1: x / 1 is x, so the result is the same,
        // and the division's latency was most of an image row's overhead.)
        let unitW = W == 1
        @inline(__always) func mappedY(_ cy: Double) -> Double { unitW ? cy * iv.4 + iv.7 : (cy * iv.4 + iv.7) / W }
        if let d = direct, let t = tex, let a = axis, shape.radius == 0, a.wide.0 == region.x0, a.wide.1 == region.x1 {
            let q0 = mappedY(Double(region.y0) + 0.5), q1 = mappedY(Double(region.y1 - 1) + 0.5)
            let ty0 = d.v + (region.y0 - rowOrigin), ty1 = d.v + (region.y1 - 1 - rowOrigin)
            if q0 >= a.yWide.0, q0 <= a.yWide.1, q1 >= a.yWide.0, q1 <= a.yWide.1,
               ty0 >= 0, ty1 < t.height {
                let source = t.base.surface
                let u = d.u + (region.x0 - d.ustart), n = region.width, o = UInt8(op8)
                // (Opaque texels at full opacity: blending them is copying them.)
                let copies = o == 255 && t.isOpaque
                for py in region.y0..<region.y1 {
                    let src = source.row(d.v + (py - rowOrigin)) + u
                    if copies { (canvas.row(py) + region.x0).update(from: src, count: n) } else {
                        blendSpanOver(dst: canvas.row(py) + region.x0, src: src, count: n, opacity: o)
                    }
                }
                return
            }
        }
        // Sampled rows (allocated on first use: many operations never need one).
        var scratchStorage: UnsafeMutablePointer<UInt32>?
        defer { scratchStorage?.deallocate() }
        func scratchRow() -> UnsafeMutablePointer<UInt32> {
            if let p = scratchStorage { return p }
            let p = UnsafeMutablePointer<UInt32>.allocate(capacity: max(region.width, 1))
            scratchStorage = p
            return p
        }
        for py in region.y0..<region.y1 {
            let cy = Double(py) + 0.5
            let row = canvas.row(py)
            var ia = region.x1, ib = region.x1
            let qyRow = mappedY(cy)
            if let a = axis {
                let by = qyRow
                if by >= a.yWide.0 && by <= a.yWide.1 { ia = a.wide.0; ib = a.wide.1 }
                else if by >= a.yNarrow.0 && by <= a.yNarrow.1 { ia = a.narrow.0; ib = a.narrow.1 }
            } else if !inside.isNull, !inside.isEmpty {
                let bx = (cy * iv.3 + iv.6) / W, by = qyRow
                var lo = -Double.infinity, hi = Double.infinity
                func limit(_ a: Double, _ b: Double, _ mn: Double, _ mx: Double) {
                    if a > 0 { lo = max(lo, (mn - b) / a); hi = min(hi, (mx - b) / a) }
                    else if a < 0 { lo = max(lo, (mx - b) / a); hi = min(hi, (mn - b) / a) }
                    else if b < mn || b > mx { lo = .infinity }
                }
                limit(ax, bx, inside.minX, inside.maxX)
                limit(ay, by, inside.minY, inside.maxY)
                if lo <= hi {
                    let a0 = max(Double(region.x0), (lo - 0.5).rounded(.up))
                    let b0 = min(Double(region.x1 - 1), (hi - 0.5).rounded(.down))
                    if a0 <= b0 { ia = Int(a0); ib = Int(b0) + 1 }
                }
            }
            // (side is not inlined: an empty side, the usual case for images, is not called.)
            if region.x0 < min(ia, region.x1) { side(row, region.x0, min(ia, region.x1), cy, qyRow, ia < ib ? 1 : 0) }
            if ia < ib {
                let n = ib - ia
                if let d = direct, let t = tex, case let ty = d.v + (py - rowOrigin), ty >= 0, ty < t.height {
                    blendSpanOver(dst: row + ia, src: t.base.surface.row(ty) + d.u + (ia - d.ustart), count: n, opacity: UInt8(op8))
                } else if let sc = scaled {
                    let qy = qyRow
                    if sc.copies, ia == sc.start, n == sc.sampler.count {
                        sc.sampler.row(v: v0 + (qy - r.minY) * texScaleY, into: row + ia)
                    } else {
                        let src = sc.sampler.row(v: v0 + (qy - r.minY) * texScaleY) + (ia - sc.start)
                        blendSpanOver(dst: row + ia, src: src, count: n, opacity: UInt8(op8))
                    }
                } else if let t = tex {
                    let cx = Double(ia) + 0.5
                    let qx = (cx * iv.0 + cy * iv.3 + iv.6) / W, qy = (cx * iv.1 + cy * iv.4 + iv.7) / W
                    let us = u0 + (qx - r.minX) * texScaleX, vs = v0 + (qy - r.minY) * texScaleY
                    let du = ax * texScaleX, dv = ay * texScaleY
                    let ui = us - 0.5, vi = vs - 0.5
                    if fastFilter != .trilinear, du == 1, dv == 0, ui >= 0, vi >= 0, ui < 1e9, vi < 1e9,
                       ui == Double(Int(ui)), vi == Double(Int(vi)), Int(ui) + n <= t.width, Int(vi) < t.height {
                        // Texels one to one: blend straight from the texture's row.
                        blendSpanOver(dst: row + ia, src: t.base.surface.row(Int(vi)) + Int(ui), count: n, opacity: UInt8(op8))
                    } else {
                        let scratch = scratchRow()
                        switch fastFilter {
                        case .nearest:
                            // Nearest in Double, as the general path computes it, so that
                            // samples exactly on texel edges agree (the kernels' 16.16 row
                            // stepper truncates and can land one texel early there).
                            let s = t.base.surface
                            for i in 0..<n {
                                let cx = Double(ia + i) + 0.5
                                let qx = (cx * iv.0 + cy * iv.3 + iv.6) / W, qy = (cx * iv.1 + cy * iv.4 + iv.7) / W
                                // (Clamped into the texture with NaN at 0: Int(NaN) would trap.)
                                let fx = (u0 + (qx - r.minX) * texScaleX).rounded(.down)
                                let fy = (v0 + (qy - r.minY) * texScaleY).rounded(.down)
                                let x = fx > 0 ? (fx < Double(s.width - 1) ? Int(fx) : s.width - 1) : 0
                                let y = fy > 0 ? (fy < Double(s.height - 1) ? Int(fy) : s.height - 1) : 0
                                scratch[i] = s[x, y]
                            }
                        case .trilinear: t.sampleRowTrilinear(dst: scratch, count: n, u0: us, v0: vs, du: du, dv: dv, lod: fastLod + bias)
                        case .linear: t.sampleRowBilinear(dst: scratch, count: n, u0: us, v0: vs, du: du, dv: dv)
                        }
                        blendSpanOver(dst: row + ia, src: scratch, count: n, opacity: UInt8(op8))
                    }
                } else {
                    fillSpanOver(dst: row + ia, color: spanColor, count: n)
                }
            }
            if ib < region.x1 { side(row, max(ib, region.x0), region.x1, cy, qyRow, ia < ib ? -1 : 0) }
        }
    }

    @inline(__always) private func clipCoverage(_ x: Double, _ y: Double) -> Double {
        var c = 1.0
        for s in clips {
            guard let q = s.local(x, y) else { return 0 }
            c *= ShapeMap.coverage(s.rect, s.radius, s.edges, q.x, q.y, q.sx, q.sy)
            if c <= 0 { return 0 }
        }
        return c
    }

    // MARK: - Paths

    /// Fills device-space polygons (nonzero rule) through the kernels' path
    /// rasterizer (16 sample rows per pixel row, exact horizontal coverage),
    /// blending each row's touched span as soon as it is rasterized.
    private func drawPath(_ op: DrawOp) {
        let canvas = top
        let covered = PixelBox(covering: op.bounds)
        let region = covered.intersection(canvas.rect)
        guard !region.isEmpty, op.opacity > 0 else { return }
        // Rasterized from where a frame drawn in one piece would start it
        // (`whole`; the same x range), rows of this canvas only: a band of a
        // frame gets the coverage one thread would.
        let whole = covered.intersection(canvas.frame)
        guard whole.x0 == region.x0, whole.x1 == region.x1 else { return }
        var edges = CoverageEdges(height: whole.height)
        let ox = Double(whole.x0), oy = Double(whole.y0)
        for poly in op.polygons {
            guard edges.add(polygon: poly.map { CGPoint(x: $0.x - ox, y: $0.y - oy) }) else { return }
        }
        if edges.isEmpty { return }
        // One row of coverage serves every row: the rasterizer hands each row
        // over (span) before it writes the next, so the mask's rows share it.
        let w = region.width
        let line = UnsafeMutablePointer<UInt8>.allocate(capacity: w)
        defer { line.deallocate() }
        let mask = AlphaMask(base: line, width: w, height: whole.height, rowBytes: 0)
        let color = scalePixel(packBGRA(op.color), unit8(Double(op.opacity)))
        edges.rasterize(into: mask, evenOdd: false, antialias: true,
                        rows: (region.y0 - whole.y0)..<(region.y1 - whole.y0)) { y, xs, xe in
            let py = whole.y0 + y
            if !clips.isEmpty {
                let cy = Double(py) + 0.5
                for x in xs..<xe where line[x] != 0 {
                    let k = clipCoverage(Double(region.x0 + x) + 0.5, cy)
                    line[x] = scaledByte(line[x], k)
                }
            }
            fillSpanOverMasked(dst: canvas.row(py) + region.x0 + xs, color: color, coverage: line + xs, count: xe - xs)
        }
    }

    // MARK: - Groups and shadows

    /// backgroundFilters: filters a copy of the pixels under the operation's
    /// rounded rect (with the blurs' reach around it, edges clamped) and puts
    /// it back through the shape's coverage (times the clips' and opacity).
    private func drawBackdrop(_ op: DrawOp) {
        let canvas = top
        let region = PixelBox(covering: op.bounds).intersection(canvas.rect)
        guard !region.isEmpty, let shape = ShapeMap(op), op.opacity > 0 else { return }
        let reach = op.filters.reduce(0) { $0 + ($1.blurRadius > 0 ? blurExtent(sigma: $1.blurRadius) + 1 : 0) }
        let work = PixelBox(x0: region.x0 - reach, y0: region.y0 - reach, x1: region.x1 + reach, y1: region.y1 + reach)
        guard let copy = Bitmap(width: work.width, height: work.height) else { return }
        // Clamp to the canvas's edge pixels (as Core Image's clamped backdrops:
        // no dark fringe at the screen's edges).
        let s = copy.surface, r = canvas.rect
        // (Columns inside the canvas are copied as one span; the rest repeat its edge pixels.)
        let inX0 = max(work.x0, r.x0), inX1 = min(work.x1, r.x1)
        for y in 0..<work.height {
            let sy = min(max(work.y0 + y, r.y0), r.y1 - 1)
            let src = canvas.row(sy), d = s.row(y) - work.x0
            if inX0 < inX1 {
                (d + inX0).update(from: src + inX0, count: inX1 - inX0)
                if work.x0 < inX0 { (d + work.x0).update(repeating: src[r.x0], count: inX0 - work.x0) }
                if inX1 < work.x1 { (d + inX1).update(repeating: src[r.x1 - 1], count: work.x1 - inX1) }
            } else {
                for x in work.x0..<work.x1 { d[x] = src[min(max(x, r.x0), r.x1 - 1)] }
            }
        }
        applyFiltersReduced(op.filters, to: s)
        let opacity = Double(op.opacity)
        // Pixels whose centres lie half a pixel inside the shape (and inside
        // the inscribed part of its corners) are fully covered: without clips
        // and at full opacity, an axis-aligned shape's interior rows are
        // copied as spans; only the rest is measured pixel by pixel.
        let m = op.transform.m
        var inside = PixelBox.empty
        if clips.isEmpty, op.opacity >= 1, m.1 == 0, m.2 == 0, m.3 == 0, m.5 == 0, m.8 == 1, m.0 > 0, m.4 > 0 {
            let r = shape.rect, k = 0.2929 * shape.radius
            let x0 = (r.minX + k) * m.0 + m.6 + 0.5, x1 = (r.maxX - k) * m.0 + m.6 - 0.5
            let y0 = (r.minY + k) * m.4 + m.7 + 0.5, y1 = (r.maxY - k) * m.4 + m.7 - 0.5
            // Columns px with x0 <= px + 0.5 <= x1.
            if x0.isFinite, x1.isFinite, y0.isFinite, y1.isFinite, x1 >= x0, y1 >= y0 {
                inside = PixelBox(x0: Int((x0 - 0.5).rounded(.up)), y0: Int((y0 - 0.5).rounded(.up)),
                                  x1: Int((x1 - 0.5).rounded(.down)) + 1, y1: Int((y1 - 0.5).rounded(.down)) + 1)
                    .intersection(region)
            }
        }
        for py in region.y0..<region.y1 {
            let row = canvas.row(py), filtered = s.row(py - work.y0) - work.x0
            let cy = Double(py) + 0.5
            let span = py >= inside.y0 && py < inside.y1 ? (inside.x0, inside.x1) : (region.x1, region.x1)
            if span.0 < span.1 { (row + span.0).update(from: filtered + span.0, count: span.1 - span.0) }
            @inline(__always) func edge(_ px: Int) {
                let cx = Double(px) + 0.5
                guard let q = shape.local(cx, cy) else { return }
                var cov = ShapeMap.coverage(shape.rect, shape.radius, shape.edges, q.x, q.y, q.sx, q.sy)
                if cov <= 0 { return }
                if !clips.isEmpty { cov *= clipCoverage(cx, cy) }
                let k = unit8(cov * opacity)
                if k == 0 { return }
                row[px] = k >= 255 ? filtered[px] : scalePixel(filtered[px], k) &+ scalePixel(row[px], 255 - k)
            }
            if span.0 < span.1 {
                for px in region.x0..<span.0 { edge(px) }
                for px in span.1..<region.x1 { edge(px) }
            } else {
                for px in region.x0..<region.x1 { edge(px) }
            }
        }
    }

    private func compositeGroup(_ g: Canvas, mask: Canvas?, opacity: Float, tint: SIMD4<Float>, mode: CompositingMode) {
        let dst = top
        let r = g.rect.intersection(dst.rect)
        guard !r.isEmpty else { return }
        if tint != SIMD4(1, 1, 1, 1) {
            // A replicator instance's colour multiplies each premultiplied channel.
            let t = packBGRA(tint)
            let tb = t & 0xFF, tg = (t >> 8) & 0xFF, tr = (t >> 16) & 0xFF, ta = t >> 24
            @inline(__always) func mul(_ c: UInt32, _ f: UInt32) -> UInt32 { let x = c * f + 128; return (x + (x >> 8)) >> 8 }
            for y in r.y0..<r.y1 {
                let row = g.row(y)
                for x in r.x0..<r.x1 {
                    let p = row[x]
                    if p == 0 { continue }
                    row[x] = mul(p & 0xFF, tb) | mul((p >> 8) & 0xFF, tg) << 8 | mul((p >> 16) & 0xFF, tr) << 16
                        | mul(p >> 24, ta) << 24
                }
            }
        }
        let op8 = UInt8(unit8(Double(opacity)))
        let coverage = UnsafeMutablePointer<UInt8>.allocate(capacity: r.width)
        defer { coverage.deallocate() }
        for y in r.y0..<r.y1 {
            if let m = mask {
                let mr = m.row(y)
                for x in r.x0..<r.x1 { coverage[x - r.x0] = UInt8(mr[x] >> 24) }
                blendSpan(dst: dst.row(y) + r.x0, src: g.row(y) + r.x0, coverage: coverage, count: r.width, opacity: op8, mode: mode)
            } else {
                blendSpan(dst: dst.row(y) + r.x0, src: g.row(y) + r.x0, coverage: nil, count: r.width, opacity: op8, mode: mode)
            }
        }
    }

    private func compositeShadow(_ op: DrawOp, _ c: Canvas) {
        drawShadowMask(op, c.rect, blurredSilhouette(op, c))
    }

    /// The silhouette's alpha, blurred by the kernels' Gaussian (shadowRadius
    /// in the operation is already the standard deviation in pixels); nil
    /// when there is none.
    private func blurredSilhouette(_ op: DrawOp, _ c: Canvas) -> MaskBitmap? {
        guard !c.rect.isEmpty, let mask = MaskBitmap(width: c.rect.width, height: c.rect.height) else { return nil }
        for y in 0..<c.rect.height {
            let m = mask.mask.row(y), src = c.row(c.rect.y0 + y) + c.rect.x0
            for x in 0..<c.rect.width { m[x] = UInt8(src[x] >> 24) }
        }
        return textures.shadows.blurred(mask, sigma: op.shadowRadius)
    }

    /// Draws a shadow's blurred silhouette `mask` (covering `rect` before the
    /// offset) in its colour, through the clips.
    private func drawShadowMask(_ op: DrawOp, _ rect: PixelBox, _ mask: MaskBitmap?) {
        guard let mask else { return }
        withExtendedLifetime(mask) { drawShadowMask(op, rect, mask.mask) }
    }

    private func drawShadowMask(_ op: DrawOp, _ rect: PixelBox, _ blurred: AlphaMask) {
        let dx = pixelCoordinate(op.shadowOffset.width.rounded()), dy = pixelCoordinate(op.shadowOffset.height.rounded())
        let dst = top
        let r = rect.offset(dx, dy).intersection(dst.rect).intersection(PixelBox(covering: op.bounds))
        guard !r.isEmpty else { return }
        let color = scalePixel(packBGRA(op.color), unit8(Double(op.opacity)))
        let coverage = UnsafeMutablePointer<UInt8>.allocate(capacity: r.width)
        defer { coverage.deallocate() }
        for y in r.y0..<r.y1 {
            let m = blurred.row(y - dy - rect.y0) + (r.x0 - dx - rect.x0)
            if clips.isEmpty {
                fillSpanOverMasked(dst: dst.row(y) + r.x0, color: color, coverage: m, count: r.width)
            } else {
                for i in 0..<r.width {
                    let k = clipCoverage(Double(r.x0 + i) + 0.5, Double(y) + 0.5)
                    coverage[i] = scaledByte(m[i], k)
                }
                fillSpanOverMasked(dst: dst.row(y) + r.x0, color: color, coverage: coverage, count: r.width)
            }
        }
    }
}

/// A coverage byte scaled by a clip's coverage `k` (0...1), rounded; NaN
/// (a degenerate clip) gives 0 instead of trapping in the conversion.
@inline(__always)
private func scaledByte(_ b: UInt8, _ k: Double) -> UInt8 {
    let c = Double(b) * k + 0.5
    return c >= 1 ? (c < 255 ? UInt8(c) : 255) : 0
}

/// A premultiplied BGRA pixel's channels times a premultiplied RGBA tint (0...255 each).
@inline(__always) func tintPixel(_ p: UInt32, _ t: SIMD4<UInt32>) -> UInt32 {
    let b = div255((p & 0xFF) &* t.z), g = div255(((p >> 8) & 0xFF) &* t.y)
    let r = div255(((p >> 16) & 0xFF) &* t.x), a = div255((p >> 24) &* t.w)
    return b | g << 8 | r << 16 | a << 24
}

/// Two premultiplied pixels added channel by channel, each saturating at 255.
@inline(__always) func addPixel(_ s: UInt32, _ d: UInt32) -> UInt32 {
    var out: UInt32 = 0
    for shift in stride(from: UInt32(0), to: 32, by: 8) {
        out |= Swift.min(((s >> shift) & 0xFF) &+ ((d >> shift) & 0xFF), 255) << shift
    }
    return out
}
