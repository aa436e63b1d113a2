import QuartziteGeometry
import QuartziteGraphics
// Premultiplied source-over blending of BGRA8 spans (Porter-Duff OVER):
//   dst = src + dst * (255 - srcAlpha) / 255
// with every division by 255 rounded exactly, `div255(x) = (x + 128 + ((x + 128) >> 8)) >> 8`
// (equal to round(x / 255) for 0 <= x <= 255 * 255). An opacity or a coverage
// scales the source first: src' = src * f / 255 (all four channels).

/// round(x / 255) for 0 <= x <= 65025.
@inline(__always) package func div255(_ x: UInt32) -> UInt32 {
    let t = x &+ 128
    return (t &+ (t >> 8)) >> 8
}

/// The four channels of `p` times f / 255, each rounded exactly (f <= 255).
/// Two channels per 32-bit lane: (x * f + 128) stays below 2^16 per lane.
@inline(__always) package func scalePixel(_ p: UInt32, _ f: UInt32) -> UInt32 {
    var rb = (p & 0x00FF_00FF) &* f &+ 0x0080_0080
    rb = ((rb &+ ((rb >> 8) & 0x00FF_00FF)) >> 8) & 0x00FF_00FF
    var ag = ((p >> 8) & 0x00FF_00FF) &* f &+ 0x0080_0080
    ag = (ag &+ ((ag >> 8) & 0x00FF_00FF)) & 0xFF00_FF00
    return rb | ag
}

/// One premultiplied pixel over another.
@inline(__always) package func overPixel(_ s: UInt32, _ d: UInt32) -> UInt32 {
    s &+ scalePixel(d, 255 &- (s >> 24))
}

/// Blends `count` premultiplied source pixels over `dst`, the source first
/// scaled by `opacity` / 255. Opaque pixels at full opacity are copied;
/// transparent ones are skipped. Eight pixels at a time.
package func blendSpanOver(dst: UnsafeMutablePointer<UInt32>, src: UnsafePointer<UInt32>, count: Int, opacity: UInt8 = 255) {
    if count <= 0 || opacity == 0 { return }
    var i = 0
    if opacity == 255 {
        while i + 8 <= count {
            let s = loadPixels8(src + i)
            if allOpaque(s) {
                storePixels8(s, dst + i)
            } else if !allLanes(s, equal: 0) {
                storePixels8(overPixels8(s, loadPixels8(dst + i)), dst + i)
            }
            i += 8
        }
        while i < count {
            let s = src[i]
            if s >> 24 == 255 { dst[i] = s } else if s != 0 { dst[i] = overPixel(s, dst[i]) }
            i += 1
        }
        return
    }
    let f = UInt32(opacity)
    let f8 = Pixels8(repeating: f)
    while i + 8 <= count {
        let s = loadPixels8(src + i)
        if !allLanes(s, equal: 0) {
            storePixels8(overPixels8(scalePixels8(s, f8), loadPixels8(dst + i)), dst + i)
        }
        i += 8
    }
    while i < count {
        let s = src[i]
        if s != 0 { dst[i] = overPixel(scalePixel(s, f), dst[i]) }
        i += 1
    }
}

/// Blends `count` source pixels over `dst`, each scaled by coverage[i] * opacity / 255².
package func blendSpanOverMasked(dst: UnsafeMutablePointer<UInt32>, src: UnsafePointer<UInt32>, coverage: UnsafePointer<UInt8>,
                         count: Int, opacity: UInt8 = 255) {
    if count <= 0 || opacity == 0 { return }
    let op = UInt32(opacity)
    let op8 = Pixels8(repeating: op)
    var i = 0
    while i + 8 <= count {
        let c = loadBytes8(coverage + i)
        if !allLanes(c, equal: 0) {
            let s = loadPixels8(src + i)
            if op == 255 && allLanes(c, equal: 255) {
                if allOpaque(s) {
                    storePixels8(s, dst + i)
                } else {
                    storePixels8(overPixels8(s, loadPixels8(dst + i)), dst + i)
                }
            } else {
                let f = op == 255 ? c : scalePixels8(c, op8)   // round(c * op / 255): c's upper bytes are 0
                storePixels8(overPixels8(scalePixels8(s, f), loadPixels8(dst + i)), dst + i)
            }
        }
        i += 8
    }
    while i < count {
        let c = UInt32(coverage[i])
        let s = src[i]
        if c != 0 && s != 0 {
            let f = op == 255 ? c : div255(c &* op)
            if f == 255 {
                dst[i] = s >> 24 == 255 ? s : overPixel(s, dst[i])
            } else if f != 0 {
                dst[i] = overPixel(scalePixel(s, f), dst[i])
            }
        }
        i += 1
    }
}

/// Blends one premultiplied colour over `count` pixels (a solid fill).
package func fillSpanOver(dst: UnsafeMutablePointer<UInt32>, color: UInt32, count: Int) {
    if count <= 0 || color == 0 { return }
    if color >> 24 == 255 {
        dst.update(repeating: color, count: count)
        return
    }
    let inv = 255 &- (color >> 24)
    let c8 = Pixels8(repeating: color), inv8 = Pixels8(repeating: inv)
    var i = 0
    while i + 8 <= count {
        storePixels8(c8 &+ scalePixels8(loadPixels8(dst + i), inv8), dst + i)
        i += 8
    }
    while i < count { dst[i] = color &+ scalePixel(dst[i], inv); i += 1 }
}

/// Blends one premultiplied colour, scaled by coverage[i] / 255, over `count` pixels.
package func fillSpanOverMasked(dst: UnsafeMutablePointer<UInt32>, color: UInt32, coverage: UnsafePointer<UInt8>, count: Int) {
    if count <= 0 || color == 0 { return }
    let opaque = color >> 24 == 255
    let c8 = Pixels8(repeating: color)
    var i = 0
    while i + 8 <= count {
        let c = loadBytes8(coverage + i)
        if allLanes(c, equal: 255) {
            storePixels8(opaque ? c8 : overPixels8(c8, loadPixels8(dst + i)), dst + i)
        } else if !allLanes(c, equal: 0) {
            storePixels8(overPixels8(scalePixels8(c8, c), loadPixels8(dst + i)), dst + i)
        }
        i += 8
    }
    while i < count {
        let c = UInt32(coverage[i])
        if c == 255 {
            dst[i] = opaque ? color : overPixel(color, dst[i])
        } else if c != 0 {
            dst[i] = overPixel(scalePixel(color, c), dst[i])
        }
        i += 1
    }
}

/// Blends the whole of `src` over `dst` with src's top-left at (x, y) in dst
/// (an unscaled, integer-translated blit), scaled by `opacity` / 255, limited
/// to `clip` (in dst pixels) when given, and always to dst's bounds.
package func compositeOver(dst: Surface, x: Int, y: Int, src: Surface, opacity: UInt8 = 255, clip: PixelBox? = nil) {
    var r = PixelBox(x: x, y: y, width: src.width, height: src.height).intersection(dst.bounds)
    if let clip { r = r.intersection(clip) }
    if r.isEmpty || opacity == 0 { return }
    for j in 0..<r.height {
        let d = dst.row(r.y + j) + r.x
        let s = src.row(r.y + j - y) + (r.x - x)
        blendSpanOver(dst: d, src: UnsafePointer(s), count: r.width, opacity: opacity)
    }
}

/// Like compositeOver, with each source pixel also scaled by `mask` (same
/// size and placement as `src`).
package func compositeOverMasked(dst: Surface, x: Int, y: Int, src: Surface, mask: AlphaMask, opacity: UInt8 = 255,
                         clip: PixelBox? = nil) {
    var r = PixelBox(x: x, y: y, width: Swift.min(src.width, mask.width), height: Swift.min(src.height, mask.height))
        .intersection(dst.bounds)
    if let clip { r = r.intersection(clip) }
    if r.isEmpty || opacity == 0 { return }
    for j in 0..<r.height {
        let d = dst.row(r.y + j) + r.x
        let s = src.row(r.y + j - y) + (r.x - x)
        let m = mask.row(r.y + j - y) + (r.x - x)
        blendSpanOverMasked(dst: d, src: UnsafePointer(s), coverage: UnsafePointer(m), count: r.width, opacity: opacity)
    }
}

/// Blends a premultiplied colour through `mask` (placed with its top-left at
/// (x, y) in dst): a shadow or a rounded background.
package func fillMaskOver(dst: Surface, x: Int, y: Int, mask: AlphaMask, color: UInt32, clip: PixelBox? = nil) {
    var r = PixelBox(x: x, y: y, width: mask.width, height: mask.height).intersection(dst.bounds)
    if let clip { r = r.intersection(clip) }
    if r.isEmpty || color == 0 { return }
    for j in 0..<r.height {
        let d = dst.row(r.y + j) + r.x
        let m = mask.row(r.y + j - y) + (r.x - x)
        fillSpanOverMasked(dst: d, color: color, coverage: UnsafePointer(m), count: r.width)
    }
}

/// A premultiplied pixel from straight (unpremultiplied) components in 0...1
/// (clamped; NaN counts as 0).
package func premultipliedPixel(red: Double, green: Double, blue: Double, alpha: Double) -> UInt32 {
    @inline(__always) func c(_ v: Double) -> Double { v.isNaN ? 0 : Swift.min(Swift.max(v, 0), 1) }
    let a = c(alpha)
    let A = UInt32((a * 255).rounded())
    let R = UInt32((c(red) * a * 255).rounded()), G = UInt32((c(green) * a * 255).rounded())
    let B = UInt32((c(blue) * a * 255).rounded())
    return B | G << 8 | R << 16 | A << 24
}
