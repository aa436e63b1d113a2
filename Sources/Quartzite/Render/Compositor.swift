import CQuartzite
import Glibc

// The CPU compositor: replays a draw list into a canvas, limited to a region
// of the target. Shapes are evaluated per pixel by mapping the pixel centre
// back into layer coordinates through the inverse homography (which makes
// texture mapping perspective-correct) and measuring its distance to the
// shape's edges in pixels (anti-aliasing), through the same clips a GPU host
// would apply with a stencil.

/// A quad shape in layer coordinates and the maps to and from target pixels.
struct ShapeMap {
    let h: Homography
    let inv: Homography
    let rect: CGRect
    let radius: Double
    let edges: UInt32

    init?(_ op: DrawOp) {
        guard let inv = op.transform.inverse, inv.isFinite else { return nil }
        h = op.transform
        self.inv = inv
        rect = op.rect.standardized
        radius = op.cornerRadius
        edges = op.edgeMask
    }

    /// The layer point under the target point (px, py), its pixel scales along
    /// the layer's x and y axes, or nil when that point is behind the eye.
    @inline(__always) func local(_ px: Double, _ py: Double) -> (x: Double, y: Double, sx: Double, sy: Double)? {
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
    @inline(__always) static func coverage(_ r: CGRect, _ radius: Double, _ edges: UInt32,
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

/// Where the compositor draws: a stack of canvases, the clip stack, the cache.
struct Compositor {
    private var canvases: [Canvas]
    private var clips: [ShapeMap] = []
    /// Saved clip stacks (a shadow's silhouette is drawn unclipped).
    private var savedClips: [[ShapeMap]] = []
    /// Per open group: whether a mask part started, and the group canvas.
    private var groups: [(op: DrawOp, canvas: Canvas, mask: Canvas?)] = []
    private var shadows: [(op: DrawOp, canvas: Canvas, margin: Int)] = []
    let textures: TextureCache

    init(root: Canvas, textures: TextureCache) {
        canvases = [root]
        self.textures = textures
    }

    private var top: Canvas { canvases[canvases.count - 1] }

    mutating func run(_ ops: [DrawOp]) {
        for op in ops { execute(op) }
    }

    mutating func execute(_ op: DrawOp) {
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
            let c = Canvas(PixelBox(covering: op.bounds).intersection(top.rect))
            groups.append((op, c, nil))
            canvases.append(c)
        case .beginMask:
            guard var g = groups.popLast() else { return }
            let m = Canvas(g.canvas.rect)
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
            compositeGroup(g.canvas, mask: g.mask, opacity: g.op.opacity)
        case .beginShadow:
            let margin = blurExtent(sigma: op.shadowRadius) + 1
            let dx = Int(op.shadowOffset.width.rounded()), dy = Int(op.shadowOffset.height.rounded())
            let region = PixelBox(covering: op.bounds).intersection(top.rect)
            let c = Canvas(region.isEmpty ? .empty : PixelBox(x0: region.x0 - dx - margin, y0: region.y0 - dy - margin,
                                                               x1: region.x1 - dx + margin, y1: region.y1 - dy + margin))
            shadows.append((op, c, margin))
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
        let region = PixelBox(covering: op.bounds).intersection(canvas.rect)
        guard !region.isEmpty, let shape = ShapeMap(op), op.opacity > 0 else { return }
        var image: SampledImage?
        var clampRect = (0.0, 0.0, 0.0, 0.0)
        var texScaleX = 0.0, texScaleY = 0.0
        if op.kind == .image {
            guard let pb = op.texture, let img = textures.image(pb, seed: op.textureSeed) else { return }
            if op.minFilter == 2 { img.buildMips() }
            image = img
            let tr = op.textureRect.standardized
            let tw = Double(img.width), th = Double(img.height)
            clampRect = (max(tr.minX * tw, 0), max(tr.minY * th, 0), min(tr.maxX * tw, tw), min(tr.maxY * th, th))
            if clampRect.2 <= clampRect.0 || clampRect.3 <= clampRect.1 { return }
            texScaleX = tr.width * tw / shape.rect.width
            texScaleY = tr.height * th / shape.rect.height
            guard texScaleX.isFinite, texScaleY.isFinite else { return }
        }
        let r = shape.rect
        let inner = op.kind == .border ? r.insetBy(dx: op.borderWidth, dy: op.borderWidth) : .null
        let innerRadius = max(shape.radius - op.borderWidth, 0)
        let tr = op.textureRect.standardized
        let bias = Double(op.filterBias)
        @inline(__always) func general(_ pix: UnsafeMutableBufferPointer<SIMD4<Float>>, _ px: Int, _ cy: Double, _ i: Int) {
            let cx = Double(px) + 0.5
            guard let q = shape.local(cx, cy) else { return }
            var cov = ShapeMap.coverage(r, shape.radius, shape.edges, q.x, q.y, q.sx, q.sy)
            if op.kind == .border, !inner.isNull, !inner.isEmpty {
                cov = max(cov - ShapeMap.coverage(inner, innerRadius, 0xF, q.x, q.y, q.sx, q.sy), 0)
            }
            if cov <= 0 { return }
            cov *= clipCoverage(cx, cy)
            if cov <= 0 { return }
            if let img = image {
                let u = (tr.minX * Double(img.width)) + (q.x - r.minX) * texScaleX
                let v = (tr.minY * Double(img.height)) + (q.y - r.minY) * texScaleY
                let perPixel = max(texScaleX / max(q.sx, 1e-12), texScaleY / max(q.sy, 1e-12))
                let lod = log2(max(perPixel, 1e-12))
                let c = img.sample(u, v, lod: lod, minFilter: op.minFilter, magFilter: op.magFilter, bias: bias, clamp: clampRect)
                    * (Float(cov) * op.opacity)
                pix[i] = c + pix[i] * (1 - c.w)
            } else {
                let c = op.color * (Float(cov) * op.opacity)
                pix[i] = c + pix[i] * (1 - c.w)
            }
        }
        // Fast path: an affine map without clips. Pixels whose centres lie
        // at least half a pixel inside the shape (and inside the inscribed
        // part of rounded corners) have full coverage and a constant texel
        // footprint, so a row's interior is a span drawn without per-pixel
        // coverage or perspective work.
        let f = shape.h.m, iv = shape.inv.m
        let affine = f.2 == 0 && f.5 == 0 && f.8 > 0 && iv.2 == 0 && iv.5 == 0 && iv.8 != 0
            && clips.isEmpty && op.kind != .border
        var inside = CGRect.null
        var sxA = 0.0, syA = 0.0
        if affine {
            sxA = (f.0 * f.0 + f.1 * f.1).squareRoot() / f.8
            syA = (f.3 * f.3 + f.4 * f.4).squareRoot() / f.8
            if sxA > 1e-12, syA > 1e-12 {
                let k = 0.2929 * shape.radius
                // A centre half a pixel inside every edge has full coverage.
                inside = r.insetBy(dx: 0.5 / sxA + k, dy: 0.5 / syA + k)
            }
        }
        let fastLod: Double = {
            guard image != nil, sxA > 0, syA > 0 else { return 0 }
            return log2(max(max(texScaleX / sxA, texScaleY / syA), 1e-12))
        }()
        let fastFilter: UInt8 = fastLod > 0 ? op.minFilter : op.magFilter
        let fastSrc = op.color * op.opacity
        let W = iv.8
        let ax = iv.0 / W, ay = iv.1 / W
        canvas.pixels.withUnsafeMutableBufferPointer { pix in
            for py in region.y0..<region.y1 {
                let cy = Double(py) + 0.5
                let rowBase = canvas.index(region.x0, py) - region.x0
                var ia = region.x1, ib = region.x1
                if !inside.isNull, !inside.isEmpty {
                    let bx = (cy * iv.3 + iv.6) / W, by = (cy * iv.4 + iv.7) / W
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
                let firstEnd = min(ia, region.x1)
                for px in region.x0..<firstEnd { general(pix, px, cy, rowBase + px) }
                if ia < ib {
                    if let img = image, fastFilter != 2 {
                        // Nearest or bilinear straight from level 0.
                        let tw = Double(img.width), th = Double(img.height)
                        let bx = (cy * iv.3 + iv.6) / W, by = (cy * iv.4 + iv.7) / W
                        let k = op.opacity
                        img.levels[0].texels.withUnsafeBufferPointer { tex in
                            let w = img.width
                            let lox = clampRect.0 + 0.5, hix = max(clampRect.2 - 0.5, lox)
                            let loy = clampRect.1 + 0.5, hiy = max(clampRect.3 - 0.5, loy)
                            let du = ax * texScaleX, dv = ay * texScaleY
                            var u = tr.minX * tw + (ax * (Double(ia) + 0.5) + bx - r.minX) * texScaleX
                            var v = tr.minY * th + (ay * (Double(ia) + 0.5) + by - r.minY) * texScaleY
                            var j = rowBase + ia
                            if fastFilter == 0 {
                                let nx0 = clampRect.0, nx1 = clampRect.2 - 1e-9, ny0 = clampRect.1, ny1 = clampRect.3 - 1e-9
                                for px in ia..<ib {
                                    // The same arithmetic as the general path (ties at texel edges agree).
                                    let cx = Double(px) + 0.5
                                    let qx = (cx * iv.0 + cy * iv.3 + iv.6) / W, qy = (cx * iv.1 + cy * iv.4 + iv.7) / W
                                    let uu = tr.minX * tw + (qx - r.minX) * texScaleX
                                    let vv = tr.minY * th + (qy - r.minY) * texScaleY
                                    let tx = Int(min(max(uu, nx0), nx1)), ty = Int(min(max(vv, ny0), ny1))
                                    let c = tex[ty * w + tx] * k
                                    pix[j] = c + pix[j] * (1 - c.w)
                                    j += 1
                                }
                            } else {
                                for _ in ia..<ib {
                                    let fx = min(max(u, lox), hix) - 0.5, fy = min(max(v, loy), hiy) - 0.5
                                    let x0 = Int(fx), y0 = Int(fy)
                                    let tx = Float(fx - Double(x0)), ty = Float(fy - Double(y0))
                                    let x1 = tx > 0 ? x0 + 1 : x0, y1 = ty > 0 ? y0 + 1 : y0
                                    let a = tex[y0 * w + x0], b = tex[y0 * w + x1]
                                    let c0 = tex[y1 * w + x0], d = tex[y1 * w + x1]
                                    let top = a + (b - a) * tx, bottom = c0 + (d - c0) * tx
                                    let c = (top + (bottom - top) * ty) * k
                                    pix[j] = c + pix[j] * (1 - c.w)
                                    u += du; v += dv; j += 1
                                }
                            }
                        }
                    } else if let img = image {
                        let tw = Double(img.width), th = Double(img.height)
                        let bx = (cy * iv.3 + iv.6) / W, by = (cy * iv.4 + iv.7) / W
                        for px in ia..<ib {
                            let cx = Double(px) + 0.5
                            let qx = ax * cx + bx, qy = ay * cx + by
                            let u = tr.minX * tw + (qx - r.minX) * texScaleX
                            let v = tr.minY * th + (qy - r.minY) * texScaleY
                            let c = img.sample(u, v, lod: fastLod, minFilter: op.minFilter, magFilter: op.magFilter,
                                               bias: bias, clamp: clampRect) * op.opacity
                            let j = rowBase + px
                            pix[j] = c + pix[j] * (1 - c.w)
                        }
                    } else if fastSrc.w >= 1 {
                        for px in ia..<ib { pix[rowBase + px] = fastSrc }
                    } else {
                        let keep = 1 - fastSrc.w
                        for px in ia..<ib { let j = rowBase + px; pix[j] = fastSrc + pix[j] * keep }
                    }
                }
                if ib < region.x1 { for px in max(ib, region.x0)..<region.x1 { general(pix, px, cy, rowBase + px) } }
            }
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

    /// Fills device-space polygons (nonzero rule) with 4 sub-scanlines per row
    /// and exact horizontal span coverage.
    private func drawPath(_ op: DrawOp) {
        let canvas = top
        let region = PixelBox(covering: op.bounds).intersection(canvas.rect)
        guard !region.isEmpty else { return }
        var edges: [(x0: Double, y0: Double, x1: Double, y1: Double, dir: Int)] = []
        for poly in op.polygons {
            for k in 0..<poly.count {
                let a = poly[k], b = poly[(k + 1) % poly.count]
                if a.y == b.y { continue }
                edges.append(a.y < b.y ? (a.x, a.y, b.x, b.y, 1) : (b.x, b.y, a.x, a.y, -1))
            }
        }
        let w = region.width
        var acc = [Double](repeating: 0, count: w + 2)
        var xs: [(Double, Int)] = []
        let sub = 4
        for py in region.y0..<region.y1 {
            for k in 0..<w + 2 { acc[k] = 0 }
            for s in 0..<sub {
                let sy = Double(py) + (Double(s) + 0.5) / Double(sub)
                xs.removeAll(keepingCapacity: true)
                for e in edges where sy >= e.y0 && sy < e.y1 {
                    xs.append((e.x0 + (sy - e.y0) / (e.y1 - e.y0) * (e.x1 - e.x0), e.dir))
                }
                xs.sort { $0.0 < $1.0 }
                var wind = 0
                for j in 0..<xs.count {
                    let before = wind
                    wind += xs[j].1
                    if before == 0 && wind != 0, j + 1 < xs.count {
                        // Find where winding returns to zero.
                        var w2 = wind, k = j + 1
                        while k < xs.count { w2 += xs[k].1; if w2 == 0 { break }; k += 1 }
                        let a = max(xs[j].0 - Double(region.x0), 0), b = min((k < xs.count ? xs[k].0 : xs[xs.count - 1].0) - Double(region.x0), Double(w))
                        if b > a { addSpan(&acc, a, b, 1.0 / Double(sub)) }
                    }
                }
            }
            var i = canvas.index(region.x0, py)
            for x in 0..<w {
                let cov = min(acc[x], 1) * clipCoverage(Double(region.x0 + x) + 0.5, Double(py) + 0.5)
                if cov > 0 { canvas.blend(i, op.color, Float(cov) * op.opacity) }
                i += 1
            }
        }
    }

    private func addSpan(_ acc: inout [Double], _ a: Double, _ b: Double, _ weight: Double) {
        let ia = Int(a), ib = Int(b)
        if ia == ib { acc[ia] += (b - a) * weight; return }
        acc[ia] += (Double(ia + 1) - a) * weight
        if ia + 1 < ib { for k in (ia + 1)..<ib { acc[k] += weight } }
        if ib < acc.count { acc[ib] += (b - Double(ib)) * weight }
    }

    // MARK: - Groups and shadows

    private func compositeGroup(_ g: Canvas, mask: Canvas?, opacity: Float) {
        let dst = top
        let r = g.rect.intersection(dst.rect)
        guard !r.isEmpty else { return }
        for y in r.y0..<r.y1 {
            var si = g.index(r.x0, y), di = dst.index(r.x0, y)
            for _ in r.x0..<r.x1 {
                let m = mask.map { $0.pixels[si].w } ?? 1
                let k = opacity * m
                if k > 0 && g.pixels[si].w > 0 { dst.blend(di, g.pixels[si], k) }
                si += 1; di += 1
            }
        }
    }

    private func compositeShadow(_ op: DrawOp, _ c: Canvas) {
        guard !c.rect.isEmpty else { return }
        // The silhouette's alpha, blurred by the kernels' Gaussian (shadowRadius
        // in the operation is already the standard deviation in pixels).
        guard let mask = MaskBitmap(width: c.rect.width, height: c.rect.height) else { return }
        for y in 0..<c.rect.height {
            let row = mask.mask.row(y)
            for x in 0..<c.rect.width { row[x] = UInt8(min(max(c.pixels[y * c.rect.width + x].w, 0), 1) * 255 + 0.5) }
        }
        gaussianBlur(mask: mask.mask, sigma: op.shadowRadius)
        let dx = Int(op.shadowOffset.width.rounded()), dy = Int(op.shadowOffset.height.rounded())
        let dst = top
        let r = c.rect.offset(dx, dy).intersection(dst.rect).intersection(PixelBox(covering: op.bounds))
        guard !r.isEmpty else { return }
        for y in r.y0..<r.y1 {
            var di = dst.index(r.x0, y)
            let row = mask.mask.row(y - dy - c.rect.y0)
            var si = r.x0 - dx - c.rect.x0
            for x in r.x0..<r.x1 {
                let a = Float(row[si]) * (1 / 255)
                if a > 0 {
                    let clip = clips.isEmpty ? 1 : Float(clipCoverage(Double(x) + 0.5, Double(y) + 0.5))
                    dst.blend(di, op.color, a * op.opacity * clip)
                }
                di += 1; si += 1
            }
        }
    }
}
