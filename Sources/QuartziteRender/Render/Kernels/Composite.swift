import CQuartzite
import QuartziteGeometry
import QuartziteGraphics

// Whole drawing operations on BGRA8 surfaces, built from the span kernels:
// what a compositor that draws straight into the target calls once per
// layer part (contents, background, border area, shadow). Each works row by
// row: the coverage of the row, the source pixels of the row, one blend.

/// A projective map from target pixel coordinates to texel coordinates:
/// (u', v', w') = (a x + b y + c, d x + e y + f, g x + h y + i), u = u'/w',
/// v = v'/w'. Affine when g = h = 0.
package struct TexelMap {
    package var a, b, c, d, e, f, g, h, i: Double

    package static let identity = TexelMap(a: 1, b: 0, c: 0, d: 0, e: 1, f: 0, g: 0, h: 0, i: 1)

    /// The affine map u = a x + b y + c, v = d x + e y + f.
    package init(a: Double, b: Double, c: Double, d: Double, e: Double, f: Double) {
        self.init(a: a, b: b, c: c, d: d, e: e, f: f, g: 0, h: 0, i: 1)
    }

    package init(a: Double, b: Double, c: Double, d: Double, e: Double, f: Double, g: Double, h: Double, i: Double) {
        self.a = a; self.b = b; self.c = c; self.d = d; self.e = e; self.f = f; self.g = g; self.h = h; self.i = i
    }

    package var isAffine: Bool { g == 0 && h == 0 && i != 0 }
    package var isFinite: Bool { [a, b, c, d, e, f, g, h, i].allSatisfy { $0.isFinite } }
}

/// Blends `texture`, mapped by `map` (pixel centres to texels), over `dst`
/// inside the convex quad `corners` (pixels; edges antialiased per
/// `edgeMask`, see `quadEdgeBits`), scaled by `opacity`, limited to `clip`.
/// Affine maps use the fixed-point row samplers; projective maps divide per
/// pixel (perspective-correct) and pixels behind the eye are skipped.
/// Trilinear levels come from the map's derivatives plus `lodBias`.
/// Returns the pixels it may have changed.
///
/// **Edge cases:** a non-finite map, a degenerate quad or an empty texture draw nothing.
@discardableResult
package func compositeImageQuad(dst: Surface, clip: PixelBox? = nil, texture: Texture, map: TexelMap, corners: [CGPoint],
                        edgeMask: UInt32 = 0xF, filter: TextureFilter = .linear, lodBias: Double = 0,
                        opacity: UInt8 = 255) -> PixelBox {
    guard opacity > 0, map.isFinite, texture.width > 0, texture.height > 0,
          let quad = QuadEdges(corners: corners, edgeMask: edgeMask) else { return .empty }
    var area = quad.bounds.intersection(dst.bounds)
    if let clip { area = area.intersection(clip) }
    if area.isEmpty { return .empty }
    var affineLod = -Double.infinity
    if map.isAffine && filter == .trilinear {
        let k = 1 / map.i
        affineLod = Texture.levelOfDetail(dudx: map.a * k, dvdx: map.d * k, dudy: map.b * k, dvdy: map.e * k) + lodBias
    }
    let width = area.width
    // Axis-aligned scaling with the linear filter: every row samples the same
    // u's, so source rows are resampled once and shared between rows.
    var scaled: ScaledRowSampler?
    if map.isAffine && map.b == 0 && map.d == 0 && filter == .linear {
        let k = 1 / map.i
        scaled = ScaledRowSampler(texture: texture, count: width, u0: (map.a * (Double(area.x) + 0.5) + map.c) * k, du: map.a * k)
    }
    let cover = UnsafeMutablePointer<UInt8>.allocate(capacity: width)
    let pixels = UnsafeMutablePointer<UInt32>.allocate(capacity: width)
    defer { cover.deallocate(); pixels.deallocate() }
    var touched = PixelBox.empty
    for y in area.y..<area.maxY {
        let (xs, xe) = quad.coverRow(y, cover - area.x, area.x, area.maxX)
        if xe <= xs { continue }
        let n = xe - xs
        let px = Double(xs) + 0.5, py = Double(y) + 0.5
        var out = UnsafePointer(pixels)
        if let scaled {
            out = scaled.row(v: (map.e * py + map.f) / map.i) + (xs - area.x)
        } else if map.isAffine {
            let k = 1 / map.i
            let u0 = (map.a * px + map.b * py + map.c) * k, v0 = (map.d * px + map.e * py + map.f) * k
            let du = map.a * k, dv = map.d * k
            switch filter {
            case .nearest: texture.sampleRowNearest(dst: pixels, count: n, u0: u0, v0: v0, du: du, dv: dv)
            case .linear: texture.sampleRowBilinear(dst: pixels, count: n, u0: u0, v0: v0, du: du, dv: dv)
            case .trilinear: texture.sampleRowTrilinear(dst: pixels, count: n, u0: u0, v0: v0, du: du, dv: dv, lod: affineLod)
            }
        } else {
            let start = SIMD3(map.a * px + map.b * py + map.c, map.d * px + map.e * py + map.f, map.g * px + map.h * py + map.i)
            texture.sampleRowProjective(dst: pixels, count: n, start: start, step: SIMD3(map.a, map.d, map.g), filter: filter,
                                        lodBias: lodBias, stepY: SIMD3(map.b, map.e, map.h))
        }
        blendSpanOverMasked(dst: dst.row(y) + xs, src: out, coverage: cover + (xs - area.x), count: n, opacity: opacity)
        touched = touched.union(PixelBox(x: xs, y: y, width: n, height: 1))
    }
    return touched
}

/// Blends a premultiplied colour over `dst` inside the convex quad `corners`
/// (edges antialiased per `edgeMask`), limited to `clip`. Returns the pixels
/// it may have changed.
@discardableResult
package func fillQuad(dst: Surface, clip: PixelBox? = nil, corners: [CGPoint], edgeMask: UInt32 = 0xF, color: UInt32) -> PixelBox {
    guard color != 0, let quad = QuadEdges(corners: corners, edgeMask: edgeMask) else { return .empty }
    var area = quad.bounds.intersection(dst.bounds)
    if let clip { area = area.intersection(clip) }
    if area.isEmpty { return .empty }
    let cover = UnsafeMutablePointer<UInt8>.allocate(capacity: area.width)
    defer { cover.deallocate() }
    var touched = PixelBox.empty
    for y in area.y..<area.maxY {
        let (xs, xe) = quad.coverRow(y, cover - area.x, area.x, area.maxX)
        if xe <= xs { continue }
        fillSpanOverMasked(dst: dst.row(y) + xs, color: color, coverage: cover + (xs - area.x), count: xe - xs)
        touched = touched.union(PixelBox(x: xs, y: y, width: xe - xs, height: 1))
    }
    return touched
}

/// Blends a premultiplied colour over `dst` inside an axis-aligned rounded
/// rectangle (pixels, fractional; radius clamped as in
/// `rasterizeRoundedRectCoverage`), limited to `clip`. Returns the pixels it
/// may have changed.
@discardableResult
package func fillRoundedRect(dst: Surface, clip: PixelBox? = nil, rect: CGRect, cornerRadius: Double, color: UInt32,
                     antialias: Bool = true) -> PixelBox {
    let r = rect.standardized
    guard color != 0, !r.hasNaN, r.origin.isFinite, r.size.width.isFinite, r.size.height.isFinite else { return .empty }
    let x0 = Texture.clampedIndex(r.origin.x), y0 = Texture.clampedIndex(r.origin.y)
    let x1 = Texture.clampedIndex((r.origin.x + r.size.width).rounded(.up))
    let y1 = Texture.clampedIndex((r.origin.y + r.size.height).rounded(.up))
    var area = PixelBox(x: x0, y: y0, width: x1 - x0, height: y1 - y0).intersection(dst.bounds)
    if let clip { area = area.intersection(clip) }
    if area.isEmpty { return .empty }
    guard let mask = MaskBitmap(width: area.width, height: area.height) else { return .empty }
    let local = CGRect(x: r.origin.x - Double(area.x), y: r.origin.y - Double(area.y), width: r.size.width, height: r.size.height)
    let touched = rasterizeRoundedRectCoverage(into: mask, rect: local, cornerRadius: cornerRadius, antialias: antialias)
    if touched.isEmpty { return .empty }
    fillMaskOver(dst: dst, x: area.x, y: area.y, mask: mask.mask, color: color)
    return PixelBox(x: touched.x + area.x, y: touched.y + area.y, width: touched.width, height: touched.height)
}

/// Blends the shadow of a rounded rectangle: `color` through the coverage of
/// `rect` (pixels, fractional; radius clamped as in
/// `rasterizeRoundedRectCoverage`) blurred by a Gaussian of `sigma` pixels,
/// limited to `clip`. Equal (within 1) to rasterizing the full rectangle,
/// `gaussianBlur` and `fillMaskOver`, but it blurs only a small template: a
/// copy of the rectangle shrunk by a whole number of pixels to just over
/// twice the corner and blur reach, whose middle row and column are then
/// stretched (the blur of a straight edge does not change along it), so a
/// large shadow costs little more than a fill. Returns the pixels it may have
/// changed. sigma <= 0 (or NaN) draws the sharp rectangle.
///
/// `opaqueAbove` (dst pixels) is a rounded rectangle that the caller paints
/// opaquely over the shadow right after, limited to `within`: the pixels it
/// covers whole (their squares inside it with 0.01 pixel to spare, so that the
/// painter's own coverage there is exactly 1) are left alone, since whatever
/// the shadow put there would be replaced.
@discardableResult
package func fillRoundedRectShadow(dst: Surface, clip: PixelBox? = nil, rect: CGRect, cornerRadius: Double, sigma: Double,
                           color: UInt32, templates: ShadowMaskCache? = nil,
                           opaqueAbove: (rect: CGRect, cornerRadius: Double, within: PixelBox)? = nil) -> PixelBox {
    let r = rect.standardized
    guard color != 0, !r.hasNaN, r.origin.isFinite, r.size.width.isFinite, r.size.height.isFinite,
          r.size.width > 0, r.size.height > 0 else { return .empty }
    guard sigma.isFinite, sigma > 0 else {
        return fillRoundedRect(dst: dst, clip: clip, rect: rect, cornerRadius: cornerRadius, color: color)
    }
    let radius = Swift.min(cornerRadius.isNaN ? 0 : Swift.max(0, cornerRadius), Swift.min(r.size.width, r.size.height) / 2)
    let e = blurExtent(sigma: sigma) + 1
    // The whole shadow's pixels: the rectangle's pixels grown by the blur's reach.
    let fx0 = r.origin.x.rounded(.down), fy0 = r.origin.y.rounded(.down)
    guard abs(fx0) < 1e9, abs(fy0) < 1e9, r.size.width < 1e9, r.size.height < 1e9 else { return .empty }
    let fracX = r.origin.x - fx0, fracY = r.origin.y - fy0
    let region = PixelBox(x: Int(fx0) - e, y: Int(fy0) - e, width: Int((fracX + r.size.width).rounded(.up)) + 2 * e,
                           height: Int((fracY + r.size.height).rounded(.up)) + 2 * e)
    var area = region.intersection(dst.bounds)
    if let clip { area = area.intersection(clip) }
    if area.isEmpty { return .empty }
    // The template: shrink each side by whole pixels down to about 2 (radius + reach) + 3.
    let core = 2 * (Int(radius.rounded(.up)) + e) + 3
    let shrinkX = Swift.max(0, Int((r.size.width - Double(core)).rounded(.down)))
    let shrinkY = Swift.max(0, Int((r.size.height - Double(core)).rounded(.down)))
    let tw = region.width - shrinkX, th = region.height - shrinkY
    let shape = CGRect(x: Double(e) + fracX, y: Double(e) + fracY,
                       width: r.size.width - Double(shrinkX), height: r.size.height - Double(shrinkY))
    func makeTemplate() -> MaskBitmap? {
        guard let t = MaskBitmap(width: tw, height: th) else { return nil }
        rasterizeRoundedRectCoverage(into: t, rect: shape, cornerRadius: radius)
        gaussianBlur(mask: t, sigma: Swift.min(sigma, 1024))
        return t
    }
    // (The template depends only on these numbers: a renderer keeps it between frames.)
    let made = templates.map { $0.template(width: tw, height: th, shape: shape, cornerRadius: radius, sigma: sigma, make: makeTemplate) }
    guard let template = made ?? makeTemplate() else { return .empty }
    // Region column i -> template column: the left half as it is, the right
    // half shifted by the shrink, the stretched middle from column tw / 2.
    let midX = tw / 2, midY = th / 2
    @inline(__always) func templateIndex(_ i: Int, _ mid: Int, _ shrink: Int) -> Int {
        i < mid ? i : (i >= mid + shrink ? i - shrink : mid)
    }
    let hidden = opaqueAbove.flatMap { HiddenColumns($0.rect, $0.cornerRadius, $0.within) }
    let line = UnsafeMutablePointer<UInt8>.allocate(capacity: area.width)
    defer { line.deallocate() }
    for y in area.y..<area.maxY {
        let trow = template.mask.row(templateIndex(y - region.y, midY, shrinkY))
        // The row's coverage for line[a..<b] (offsets from area.x): left part, middle run, right part.
        @inline(__always) func blend(_ a: Int, _ b: Int) {
            guard a < b else { return }
            var i = area.x - region.x + a
            var k = a
            let left = Swift.min(b - k, Swift.max(0, midX - i))
            if left > 0 { (line + k).update(from: UnsafePointer(trow + i), count: left); k += left; i += left }
            let middle = Swift.min(b - k, Swift.max(0, midX + shrinkX - i))
            if middle > 0 { (line + k).update(repeating: trow[midX], count: middle); k += middle; i += middle }
            if k < b { (line + k).update(from: UnsafePointer(trow + (i - shrinkX)), count: b - k) }
            fillSpanOverMasked(dst: dst.row(y) + area.x + a, color: color, coverage: line + a, count: b - a)
        }
        // (Columns the opaque rectangle above will cover are skipped. The two
        // parts reach into them up to whole groups of eight pixels, which the
        // kernel blends faster than a scalar tail: those get painted over.)
        if let h = hidden?.columns(y), case let a = Swift.max(h.0 - area.x, 0), case let b = Swift.min(h.1 - area.x, area.width), a < b {
            let a8 = Swift.min((a + 7) & ~7, b)
            let b8 = Swift.max(area.width - ((area.width - b + 7) & ~7), a8)
            blend(0, a8)
            blend(b8, area.width)
        } else {
            blend(0, area.width)
        }
    }
    return area
}

/// The columns of each row whose pixel squares lie whole inside a rounded
/// rectangle shrunk by 0.01 pixel (and inside `within`): pixels that the
/// rectangle's painter covers exactly.
private struct HiddenColumns {
    let left, right, top, bottom, radius: Double
    let within: PixelBox

    init?(_ rect: CGRect, _ cornerRadius: Double, _ within: PixelBox) {
        let r = rect.standardized, m = 0.01
        guard !r.hasNaN, r.origin.isFinite, r.size.width.isFinite, r.size.height.isFinite, cornerRadius.isFinite,
              cornerRadius >= 0, cornerRadius <= Swift.min(r.width, r.height) / 2, r.width > 2, r.height > 2,
              abs(r.minX) < 1e9, abs(r.minY) < 1e9, abs(r.maxX) < 1e9, abs(r.maxY) < 1e9, !within.isEmpty else { return nil }
        left = r.minX + m; right = r.maxX - m; top = r.minY + m; bottom = r.maxY - m
        radius = Swift.max(cornerRadius - m, 0)
        self.within = within
    }

    /// [h0, h1) for row y, or nil.
    func columns(_ y: Int) -> (Int, Int)? {
        let t0 = Double(y), t1 = Double(y + 1)
        guard y >= within.y, y < within.maxY, t0 >= top, t1 <= bottom else { return nil }
        // How far the corner arcs reach in at height t; the shape is convex,
        // so the narrowest point of the row's band is at one of its edges.
        @inline(__always) func inset(_ t: Double) -> Double {
            let d = Swift.max(top + radius - t, t - (bottom - radius), 0)
            return d > 0 ? radius - Swift.max(radius * radius - d * d, 0).squareRoot() : 0
        }
        let k = Swift.max(inset(t0), inset(t1))
        let h0 = Swift.max(Int((left + k).rounded(.up)), within.x)
        let h1 = Swift.min(Int((right - k).rounded(.down)), within.maxX)
        return h0 < h1 ? (h0, h1) : nil
    }
}
