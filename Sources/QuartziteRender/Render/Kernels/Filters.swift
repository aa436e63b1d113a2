import QuartziteGeometry
import QuartziteGraphics
import QuartziteModel

// Kernels for layer filters: the compositing modes of compositingFilter
// (blend modes and Porter-Duff operators on premultiplied BGRA8), the colour
// filters of filters/backgroundFilters (CIColorMatrix, CIColorControls) and
// a Gaussian blur of the four channels.
//
// Blend modes follow W3C Compositing and Blending Level 1 on premultiplied
// values (s = source, d = destination, cs/cd colour, as/ad alpha, Cs = cs/as
// and Cd = cd/ad the unpremultiplied colours):
//   co = cs (1 - ad) + cd (1 - as) + as ad B(Cd, Cs),  ao = as + ad - as ad
// Porter-Duff operators: co = cs Fa + cd Fb, ao = as Fa + ad Fb.
// The arithmetic is in Float on 0...1 values, rounded once to 8 bits, so
// that (for opaque pixels) multiply gives round(cs * cd / 255) exactly.

/// Pixel (B | G<<8 | R<<16 | A<<24) as (B, G, R, A) in 0...1.
@inline(__always) private func unpack(_ p: UInt32) -> SIMD4<Float> {
    SIMD4(Float(p & 0xFF), Float((p >> 8) & 0xFF), Float((p >> 16) & 0xFF), Float(p >> 24)) * (1 / 255)
}

/// (B, G, R, A) in 0...1 (clamped, colours at most alpha) to a pixel, rounded.
@inline(__always) private func pack(_ v: SIMD4<Float>) -> UInt32 {
    var c = v.replacing(with: 0, where: .!(v .> 0))   // (NaN: 0)
    c = c.replacing(with: 1, where: c .> 1)
    let a = c.w
    c = c.replacing(with: a, where: c .> a)
    c.w = a
    let q = SIMD4<UInt32>((c * 255 + 0.5).rounded(.down))
    return q.x | q.y << 8 | q.z << 16 | q.w << 24
}

// MARK: - Blend modes

@inline(__always) private func separable(_ mode: CompositingMode, _ cd: Float, _ cs: Float) -> Float {
    switch mode {
    case .multiply: return cd * cs
    case .screen: return cd + cs - cd * cs
    case .overlay: return hardLight(cs: cd, cd: cs)
    case .darken: return min(cd, cs)
    case .lighten: return max(cd, cs)
    case .colorDodge: return cd <= 0 ? 0 : (cs >= 1 ? 1 : min(1, cd / (1 - cs)))
    case .colorBurn: return cd >= 1 ? 1 : (cs <= 0 ? 0 : 1 - min(1, (1 - cd) / cs))
    case .hardLight: return hardLight(cs: cs, cd: cd)
    case .softLight:
        if cs <= 0.5 { return cd - (1 - 2 * cs) * cd * (1 - cd) }
        let d = cd <= 0.25 ? ((16 * cd - 12) * cd + 4) * cd : cd.squareRoot()
        return cd + (2 * cs - 1) * (d - cd)
    case .difference: return abs(cd - cs)
    case .exclusion: return cd + cs - 2 * cd * cs
    default: return cs
    }
}

@inline(__always) private func hardLight(cs: Float, cd: Float) -> Float {
    cs <= 0.5 ? cd * 2 * cs : { let s = 2 * cs - 1; return cd + s - cd * s }()
}

// Non-separable helpers on (B, G, R) colours (the w lane is ignored).
@inline(__always) private func lum(_ c: SIMD4<Float>) -> Float { 0.11 * c.x + 0.59 * c.y + 0.3 * c.z }

@inline(__always) private func clipColor(_ c: SIMD4<Float>) -> SIMD4<Float> {
    let l = lum(c)
    let n = min(c.x, min(c.y, c.z)), x = max(c.x, max(c.y, c.z))
    var r = c
    if n < 0 { r = SIMD4(repeating: l) + (r - SIMD4(repeating: l)) * (l / (l - n)) }
    if x > 1 { r = SIMD4(repeating: l) + (r - SIMD4(repeating: l)) * ((1 - l) / (x - l)) }
    return r
}

@inline(__always) private func setLum(_ c: SIMD4<Float>, _ l: Float) -> SIMD4<Float> {
    clipColor(c + SIMD4(repeating: l - lum(c)))
}

@inline(__always) private func sat(_ c: SIMD4<Float>) -> Float { max(c.x, max(c.y, c.z)) - min(c.x, min(c.y, c.z)) }

@inline(__always) private func setSat(_ c: SIMD4<Float>, _ s: Float) -> SIMD4<Float> {
    let n = min(c.x, min(c.y, c.z)), x = max(c.x, max(c.y, c.z))
    guard x > n else { return .zero }
    // (The middle channel scales; the largest becomes s, the smallest 0.)
    return (c - SIMD4(repeating: n)) * (s / (x - n))
}

/// One premultiplied source pixel composited onto a destination pixel by `mode`.
@inline(__always) package func blendPixel(_ s: UInt32, _ d: UInt32, _ mode: CompositingMode) -> UInt32 {
    let S = unpack(s), D = unpack(d)
    let sa = S.w, da = D.w
    func porterDuff(_ fa: Float, _ fb: Float) -> UInt32 { pack(S * fa + D * fb) }
    switch mode {
    case .sourceOver: return overPixel(s, d)
    case .clear: return 0
    case .copy: return s
    case .sourceIn: return porterDuff(da, 0)
    case .sourceOut: return porterDuff(1 - da, 0)
    case .sourceAtop: return porterDuff(da, 1 - sa)
    case .destinationOver: return porterDuff(1 - da, 1)
    case .destinationIn: return porterDuff(0, sa)
    case .destinationOut: return porterDuff(0, 1 - sa)
    case .destinationAtop: return porterDuff(1 - da, sa)
    case .xor: return porterDuff(1 - da, 1 - sa)
    case .plusLighter: return pack(S + D)
    case .plusDarker:
        let a = min(1, sa + da)
        var c = SIMD4(repeating: a) - ((SIMD4(repeating: sa) - S) + (SIMD4(repeating: da) - D))
        c.w = a
        return pack(c)
    default:
        if sa <= 0 { return d }
        if da <= 0 { return s }
        let Cs = S / sa, Cd = D / da
        var B: SIMD4<Float>
        if mode.isSeparableBlend {
            B = SIMD4(separable(mode, Cd.x, Cs.x), separable(mode, Cd.y, Cs.y), separable(mode, Cd.z, Cs.z), 0)
        } else {
            switch mode {
            case .hue: B = setLum(setSat(Cs, sat(Cd)), lum(Cd))
            case .saturation: B = setLum(setSat(Cd, sat(Cs)), lum(Cd))
            case .color: B = setLum(Cs, lum(Cd))
            default: B = setLum(Cd, lum(Cs))   // luminosity
            }
        }
        var o = S * (1 - da) + D * (1 - sa) + B * (sa * da)
        o.w = sa + da - sa * da
        return pack(o)
    }
}

/// Composites `count` source pixels onto `dst` by `mode`, each source pixel
/// first scaled by coverage[i] (when given) times `opacity` / 255. Source-over
/// goes to the SIMD span kernels.
package func blendSpan(dst: UnsafeMutablePointer<UInt32>, src: UnsafePointer<UInt32>, coverage: UnsafePointer<UInt8>?,
                       count: Int, opacity: UInt8, mode: CompositingMode) {
    if count <= 0 { return }
    if mode == .sourceOver {
        if let coverage {
            blendSpanOverMasked(dst: dst, src: src, coverage: coverage, count: count, opacity: opacity)
        } else {
            blendSpanOver(dst: dst, src: src, count: count, opacity: opacity)
        }
        return
    }
    let op = UInt32(opacity)
    for i in 0..<count {
        var f = op
        if let coverage { f = div255(UInt32(coverage[i]) &* op) }
        let s = f == 255 ? src[i] : scalePixel(src[i], f)
        dst[i] = blendPixel(s, dst[i], mode)
    }
}

// MARK: - Colour filters

/// Applies a colour filter (CIColorMatrix or CIColorControls) to every pixel
/// of `s` in place: unpremultiplied, filtered, clamped, premultiplied again.
package func applyColorFilter(_ filter: LayerFilter, to s: Surface) {
    // Rows of (B, G, R, A): the matrix as four dot products per pixel on
    // (R, G, B, A), plus the bias.
    let transform: (SIMD4<Float>) -> SIMD4<Float>
    switch filter {
    case .gaussianBlur: return
    case let .colorMatrix(r, g, b, a, bias):
        transform = { c in
            let v = SIMD4(c.z, c.y, c.x, c.w)   // RGBA
            let o = SIMD4((r * v).sum(), (g * v).sum(), (b * v).sum(), (a * v).sum()) + bias
            return SIMD4(o.z, o.y, o.x, o.w)
        }
    case let .colorControls(saturation, brightness, contrast):
        transform = { c in
            // Core Image's order: saturation about the luminance (Rec. 709
            // weights), then brightness added, then contrast about 0.5.
            let l = 0.0722 * c.x + 0.7152 * c.y + 0.2126 * c.z
            var o = SIMD4(repeating: l) + (c - SIMD4(repeating: l)) * saturation
            o += SIMD4(repeating: brightness)
            o = (o - SIMD4(repeating: 0.5)) * contrast + SIMD4(repeating: 0.5)
            o.w = c.w
            return o
        }
    }
    for y in 0..<s.height {
        let row = s.row(y)
        for x in 0..<s.width {
            let p = row[x]
            var c = unpack(p)
            let a = c.w
            if a > 0 { c = SIMD4(c.x / a, c.y / a, c.z / a, a) } else { c = SIMD4(0, 0, 0, 0) }
            var o = transform(c)
            o = o.replacing(with: 0, where: .!(o .> 0))
            o = o.replacing(with: 1, where: o .> 1)
            row[x] = pack(SIMD4(o.x * o.w, o.y * o.w, o.z * o.w, o.w))
        }
    }
}

// MARK: - Blur

/// Blurs the four channels of `s` in place by a Gaussian of `sigma` pixels
/// (the shadows' kernel, one channel at a time). Pixels beyond the edges
/// count as transparent; callers pad what they blur (or clamp it) first.
package func gaussianBlur(surface s: Surface, sigma: Double) {
    guard sigma.isFinite, sigma > 0, s.width > 0, s.height > 0,
          let plane = MaskBitmap(width: s.width, height: s.height) else { return }
    let m = plane.mask
    for shift in stride(from: UInt32(0), through: 24, by: 8) {
        for y in 0..<s.height {
            let src = s.row(y), d = m.row(y)
            for x in 0..<s.width { d[x] = UInt8(truncatingIfNeeded: src[x] >> shift) }
        }
        gaussianBlur(mask: m, sigma: sigma)
        let keep = ~(UInt32(0xFF) << shift)
        for y in 0..<s.height {
            let dst = s.row(y), v = m.row(y)
            for x in 0..<s.width { dst[x] = (dst[x] & keep) | UInt32(v[x]) << shift }
        }
    }
    // Each channel was rounded on its own: keep colours within alpha.
    for y in 0..<s.height {
        let row = s.row(y)
        for x in 0..<s.width {
            let p = row[x], a = p >> 24
            let b = min(p & 0xFF, a), g = min((p >> 8) & 0xFF, a), r = min((p >> 16) & 0xFF, a)
            row[x] = b | g << 8 | r << 16 | a << 24
        }
    }
}

/// Applies `filters` in order to `s` in place.
package func applyFilters(_ filters: [LayerFilter], to s: Surface) {
    for f in filters {
        if case .gaussianBlur(let sigma) = f { gaussianBlur(surface: s, sigma: sigma) } else { applyColorFilter(f, to: s) }
    }
}

// MARK: - Downsampled blur (backdrops)

/// Blurs `s` in place like `gaussianBlur(surface:sigma:)`, at a reduced
/// resolution when sigma is large: for sigma >= 8 the surface is averaged
/// down by 2 (by 4 from sigma 16) in each direction, blurred there, and
/// scaled back up bilinearly; the small blur's sigma is reduced by what the
/// averaging (box of f: variance (f² - 1) / 12) and the bilinear scaling
/// (tent of f: f² / 6) already spread, so the whole has sigma's variance.
/// A wide blur has no detail left that the reduction could lose, and it
/// costs a quarter (a sixteenth) of the full-resolution blur.
package func gaussianBlurReduced(surface s: Surface, sigma: Double) {
    guard sigma.isFinite, sigma > 0, s.width > 0, s.height > 0 else { return }
    let f = sigma >= 16 ? 4 : (sigma >= 8 ? 2 : 1)
    guard f > 1 else { gaussianBlur(surface: s, sigma: sigma); return }
    let F = Double(f)
    let small = ((sigma * sigma - (F * F - 1) / 12 - F * F / 6) / (F * F)).squareRoot()
    let sw = (s.width + f - 1) / f, sh = (s.height + f - 1) / f
    guard let b = Bitmap(width: sw, height: sh) else { gaussianBlur(surface: s, sigma: sigma); return }
    let d = b.surface
    // Down: the mean of each f x f block (fewer pixels at the right and bottom edges).
    let sums = UnsafeMutablePointer<SIMD4<UInt32>>.allocate(capacity: sw)
    defer { sums.deallocate() }
    for y in 0..<sh {
        sums.update(repeating: .zero, count: sw)
        let y0 = y * f, y1 = min(y0 + f, s.height)
        for yy in y0..<y1 {
            let row = s.row(yy)
            var x = 0, bx = 0
            while x < s.width {
                let end = min(x + f, s.width)
                var acc = sums[bx]
                while x < end {
                    let p = row[x]
                    acc &+= SIMD4(p & 0xFF, (p >> 8) & 0xFF, (p >> 16) & 0xFF, p >> 24)
                    x += 1
                }
                sums[bx] = acc
                bx += 1
            }
        }
        let out = d.row(y)
        for x in 0..<sw {
            let n = UInt32((min(x * f + f, s.width) - x * f) * (y1 - y0))
            let m = (sums[x] &+ SIMD4(repeating: n / 2)) / SIMD4(repeating: n)
            out[x] = m.x | m.y << 8 | m.z << 16 | m.w << 24
        }
    }
    if small > 0 { gaussianBlur(surface: d, sigma: small) }
    // Up: bilinear, sample centres at ((x + 0.5) / f - 0.5), clamped to the edges.
    let xs = UnsafeMutablePointer<(Int, Int, UInt32)>.allocate(capacity: s.width)
    defer { xs.deallocate() }
    for x in 0..<s.width {
        let u = min(max((Double(x) + 0.5) / F - 0.5, 0), Double(sw - 1))
        let i = Int(u)
        xs[x] = (i, min(i + 1, sw - 1), UInt32(((u - Double(i)) * 256).rounded()))
    }
    for y in 0..<s.height {
        let v = min(max((Double(y) + 0.5) / F - 0.5, 0), Double(sh - 1))
        let j = Int(v)
        let fy = UInt32(((v - Double(j)) * 256).rounded())
        let r0 = d.row(j), r1 = d.row(min(j + 1, sh - 1)), out = s.row(y)
        @inline(__always) func lerp(_ a: UInt32, _ b: UInt32, _ t: UInt32) -> UInt32 {
            // Two channels per lane (as scalePixel): (a * (256 - t) + b * t) / 256.
            let rb = ((a & 0x00FF_00FF) &* (256 - t) &+ (b & 0x00FF_00FF) &* t &+ 0x0080_0080) >> 8 & 0x00FF_00FF
            let ag = (((a >> 8) & 0x00FF_00FF) &* (256 - t) &+ ((b >> 8) & 0x00FF_00FF) &* t &+ 0x0080_0080) & 0xFF00_FF00
            return rb | ag
        }
        for x in 0..<s.width {
            let (i0, i1, fx) = xs[x]
            out[x] = lerp(lerp(r0[i0], r0[i1], fx), lerp(r1[i0], r1[i1], fx), fy)
        }
    }
}

/// Applies `filters` in order, blurs through `gaussianBlurReduced`.
package func applyFiltersReduced(_ filters: [LayerFilter], to s: Surface) {
    for f in filters {
        if case .gaussianBlur(let sigma) = f { gaussianBlurReduced(surface: s, sigma: sigma) } else { applyColorFilter(f, to: s) }
    }
}
