import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import Glibc

// Gaussian blur of coverage masks (layer shadows in the renderer, context
// shadows in Core Graphics: it sits here, below both), separable, as successive
// box passes per axis (O(1) per pixel whatever the radius). Each pass is an
// "extended" box: 2r + 1 full taps and a tap of weight alpha (0 <= alpha < 1)
// at each end, with r the largest radius whose plain box variance
// r(r + 1)/3 does not exceed sigma²/n, and alpha chosen so that the n passes'
// variances add up to sigma² exactly.
//
// Why n = 4 rather than the classic three plain boxes: measured against the
// pixel-integrated Gaussian over rectangles of every width, three plain
// boxes sized by the usual formula (w = sqrt(12 sigma²/3 + 1) rounded to odd
// widths) are off by up to 5.8% of full scale for sigma in 1...4 (the
// variance misses by up to 0.7 px²), and even three variance-exact boxes
// reach 2.2% for squares about 2.5 sigma wide; four variance-exact passes stay
// within 1.9% for every sigma >= 2, meeting the 2% the renderer promises.
// Below sigma = 2 boxes are too coarse, so the Gaussian kernel is applied
// directly (at most 17 taps there).
//
// Pixels beyond the mask's edges count as 0: the passes run on lines padded
// by the blur's reach, so what one pass spreads past an edge comes back in
// the next, as in an infinite plane of zeros. Callers pad shadow masks by
// `blurExtent(sigma:)` on each side so that nothing is cut off.
//
// shadowRadius -> sigma: Core Animation's shadowRadius is the blur radius; the
// renderer uses sigma = shadowRadius / 2 (in pixels: shadowRadius *
// contentsScale / 2), the usual equivalence, which also matches CSS and
// Skia's convention for a blur radius. `shadowSigma(radius:scale:)` does it.

/// An 8-bit coverage (alpha) plane that this value does not own: 0 = none,
/// 255 = full; row 0 at the top, `rowBytes` bytes from one row to the next.
package struct AlphaMask {
    package var base: UnsafeMutablePointer<UInt8>
    package var width: Int
    package var height: Int
    package var rowBytes: Int

    package init(base: UnsafeMutablePointer<UInt8>, width: Int, height: Int, rowBytes: Int) {
        self.base = base
        self.width = Swift.max(0, width)
        self.height = Swift.max(0, height)
        self.rowBytes = rowBytes
    }

    @inline(__always) package func row(_ y: Int) -> UnsafeMutablePointer<UInt8> { base + y * rowBytes }

    @inline(__always) package subscript(x: Int, y: Int) -> UInt8 {
        get { base[y * rowBytes + x] }
        nonmutating set { base[y * rowBytes + x] = newValue }
    }

    package func fill(_ value: UInt8) {
        for y in 0..<height { row(y).update(repeating: value, count: width) }
    }
}

/// The blur's working planes are refused beyond this size (1 GiB each).
package let blurMaxAllocationBytes = 1 << 30

/// The Gaussian sigma (pixels) for a shadowRadius (points) at a scale;
/// negative, NaN or infinite radii give 0 (a sharp shadow). Capped at 512 px.
package func shadowSigma(radius: Double, scale: Double = 1) -> Double {
    let s = radius * (scale.isFinite && scale > 0 ? scale : 1) / 2
    guard s.isFinite, s > 0 else { return 0 }
    return Swift.min(s, 512)
}

/// Below this sigma the Gaussian kernel is applied directly.
package let directBlurSigmaLimit = 2.0

/// Blurs are computed with at most this sigma (pixels): beyond it a shadow
/// is spread over thousands of pixels, and a larger one would cost memory
/// and time out of proportion (and overflow the extent's arithmetic).
package let maximumBlurSigma = 1024.0
/// Box passes per axis.
package let blurBoxPasses = 4

/// How far (pixels) a blur of `sigma` spreads coverage on each side (a mask
/// needs this much padding on each side to lose nothing).
package func blurExtent(sigma: Double) -> Int {
    guard sigma.isFinite, sigma > 0 else { return 0 }
    let sigma = Swift.min(sigma, maximumBlurSigma)
    if sigma < directBlurSigmaLimit { return Int((4 * sigma).rounded(.up)) }
    return blurBoxPasses * (extendedBox(sigma: sigma).radius + 1)
}

/// The extended box of one of `blurBoxPasses` passes for `sigma` (>= 0): its
/// full-tap radius r and end weight alpha, with variance
/// (r(r + 1)(2r + 1)/3 + 2 alpha (r + 1)²) / (2r + 1 + 2 alpha) = sigma² / passes.
package func extendedBox(sigma: Double) -> (radius: Int, alpha: Double) {
    let v = sigma * sigma / Double(blurBoxPasses)
    guard v.isFinite, v > 0 else { return (0, 0) }
    let r = Swift.max(0, Int((0.5 * (12 * v + 1).squareRoot() - 0.5).rounded(.down)))
    let dr = Double(r)
    var alpha = (2 * dr + 1) * (dr * (dr + 1) / 3 - v) / (2 * (v - (dr + 1) * (dr + 1)))
    alpha = Swift.min(Swift.max(alpha, 0), 1)
    return (r, alpha)
}

/// The pixel-integrated Gaussian weights Φ((k + ½)/σ) − Φ((k − ½)/σ) for k in
/// −⌈4σ⌉ ... ⌈4σ⌉, normalised to sum to 1.
package func gaussianKernel(sigma: Double) -> [Float] {
    let r = Int((4 * sigma).rounded(.up))
    let k = 1 / (sigma * 2.0.squareRoot())
    var w = (-r...r).map { i in 0.5 * (erf((Double(i) + 0.5) * k) - erf((Double(i) - 0.5) * k)) }
    let sum = w.reduce(0, +)
    w = w.map { $0 / sum }
    return w.map { Float($0) }
}

/// Blurs `mask` in place by a Gaussian of `sigma` pixels (see the top of
/// this file); sigma <= 0, NaN or infinite does nothing, sigma is capped at
/// 1024, and a mask whose padded working planes would exceed 1 GiB each is
/// left unblurred.
package func gaussianBlur(mask: AlphaMask, sigma: Double) {
    guard sigma.isFinite, sigma > 0, mask.width > 0, mask.height > 0 else { return }
    let sigma = Swift.min(sigma, maximumBlurSigma)
    let w = mask.width, h = mask.height
    let direct = sigma < directBlurSigmaLimit
    let kernel = direct ? gaussianKernel(sigma: sigma) : []
    let (r, alpha) = extendedBox(sigma: sigma)
    let box = ExtendedBox(radius: r, alpha: Float(alpha))
    // The passes work on lines padded by the blur's reach on both sides, so
    // that what the first pass spreads beyond the mask comes back in the next
    // ones (the mask sits in an infinite plane of zeros).
    let e = direct ? 0 : blurBoxPasses * (r + 1)
    let pw = w + 2 * e, ph = h + 2 * e
    // Two Float planes of w x ph: refuse sizes beyond 2 x 1 GiB (the mask is left as it is).
    let (cells, overflow) = w.multipliedReportingOverflow(by: ph)
    guard !overflow, cells <= blurMaxAllocationBytes / 4 else { return }
    let plane = UnsafeMutablePointer<Float>.allocate(capacity: w * ph)
    let scratch = UnsafeMutablePointer<Float>.allocate(capacity: w * ph)
    let sums = UnsafeMutablePointer<Float>.allocate(capacity: w)
    let zeros = UnsafeMutablePointer<Float>.allocate(capacity: w)
    defer { plane.deallocate(); scratch.deallocate(); sums.deallocate(); zeros.deallocate() }
    zeros.initialize(repeating: 0, count: w)
    plane.initialize(repeating: 0, count: w * ph)
    scratch.initialize(repeating: 0, count: w * ph)
    // Horizontal, into rows e ..< e + h of the plane. The direct kernel goes
    // row by row; the box passes run on eight rows at once (one SIMD lane
    // each: their running sums are independent), in line buffers with zero
    // margins of r + 2 on both sides so that a pass reads past a line's ends
    // without tests.
    if direct {
        let a = UnsafeMutablePointer<Float>.allocate(capacity: w)
        defer { a.deallocate() }
        for y in 0..<h {
            let src = mask.row(y)
            for x in 0..<w { a[x] = Float(src[x]) }
            convolveLine(a, plane + (y + e) * w, w, kernel)
        }
    } else {
        let margin = r + 2
        let length = pw + 2 * margin
        let aStore = UnsafeMutablePointer<SIMD8<Float>>.allocate(capacity: length)
        let bStore = UnsafeMutablePointer<SIMD8<Float>>.allocate(capacity: length)
        defer { aStore.deallocate(); bStore.deallocate() }
        aStore.initialize(repeating: .zero, count: length)
        bStore.initialize(repeating: .zero, count: length)
        let a = aStore + margin, b = bStore + margin
        var y0 = 0
        while y0 < h {
            let rows = Swift.min(8, h - y0)
            a.update(repeating: .zero, count: pw)
            for k in 0..<rows {
                let src = mask.row(y0 + k)
                for x in 0..<w { a[e + x][k] = Float(src[x]) }
            }
            for _ in 0..<blurBoxPasses / 2 { box.line(a, b, pw); box.line(b, a, pw) }
            for k in 0..<rows {
                let out = plane + (y0 + k + e) * w
                for x in 0..<w { out[x] = a[e + x][k] }
            }
            y0 += 8
        }
    }
    // Vertical, whole rows at a time (cache friendly).
    let result: UnsafeMutablePointer<Float>
    if direct {
        convolveColumns(plane, scratch, w, h, kernel)
        result = scratch
    } else {
        for _ in 0..<blurBoxPasses / 2 {
            box.columns(plane, scratch, w, ph, sums, zeros)
            box.columns(scratch, plane, w, ph, sums, zeros)
        }
        result = plane + e * w
    }
    for y in 0..<h {
        let d = mask.row(y), s = result + y * w
        for x in 0..<w {
            let v = s[x] + 0.5
            d[x] = v >= 255 ? 255 : (v <= 0 ? 0 : UInt8(v))
        }
    }
}


/// A box of 2r + 1 unit taps plus `alpha` at each end, normalised; zero outside the line.
private struct ExtendedBox {
    package let radius: Int
    package let alpha: Float
    package var norm: Float { 1 / (Float(2 * radius + 1) + 2 * alpha) }

    /// One pass along lines of n values (eight lines, one per lane); src
    /// must read as 0 for indices -(r + 2) ..< 0 and n ..< n + r + 2.
    package func line(_ src: UnsafeMutablePointer<SIMD8<Float>>, _ dst: UnsafeMutablePointer<SIMD8<Float>>, _ n: Int) {
        let r = radius, inv = SIMD8<Float>(repeating: norm), al = SIMD8<Float>(repeating: alpha)
        var sum = SIMD8<Float>.zero
        for i in 0..<r { sum += src[i] }
        for x in 0..<n {
            sum += src[x + r]
            dst[x] = (sum + al * (src[x - r - 1] + src[x + r + 1])) * inv
            sum -= src[x - r]
        }
    }

    /// One pass down the columns of a w x h plane, all columns at once
    /// (eight at a time); `sums` holds w floats, `zeros` w zeros (the rows
    /// outside the plane).
    package func columns(_ src: UnsafeMutablePointer<Float>, _ dst: UnsafeMutablePointer<Float>, _ w: Int, _ h: Int,
                 _ sums: UnsafeMutablePointer<Float>, _ zeros: UnsafeMutablePointer<Float>) {
        let r = radius, inv = norm, al = alpha
        @inline(__always) func row(_ y: Int) -> UnsafeMutablePointer<Float> { y >= 0 && y < h ? src + y * w : zeros }
        sums.update(repeating: 0, count: w)
        for i in 0..<Swift.min(r, h) {
            let s = src + i * w
            for x in 0..<w { sums[x] += s[x] }
        }
        let inv8 = SIMD8<Float>(repeating: inv), al8 = SIMD8<Float>(repeating: al)
        @inline(__always) func load(_ p: UnsafeMutablePointer<Float>, _ x: Int) -> SIMD8<Float> {
            UnsafeRawPointer(p + x).loadUnaligned(as: SIMD8<Float>.self)
        }
        @inline(__always) func store(_ v: SIMD8<Float>, _ p: UnsafeMutablePointer<Float>, _ x: Int) {
            UnsafeMutableRawPointer(p + x).storeBytes(of: v, as: SIMD8<Float>.self)
        }
        for y in 0..<h {
            // Window [y - r, y + r] plus alpha times rows y - r - 1 and y + r + 1.
            let add = row(y + r), lo = row(y - r - 1), hi = row(y + r + 1), sub = row(y - r)
            let d = dst + y * w
            var x = 0
            while x + 8 <= w {
                let sum = load(sums, x) + load(add, x)
                store((sum + al8 * (load(lo, x) + load(hi, x))) * inv8, d, x)
                store(sum - load(sub, x), sums, x)
                x += 8
            }
            while x < w {
                let sum = sums[x] + add[x]
                d[x] = (sum + al * (lo[x] + hi[x])) * inv
                sums[x] = sum - sub[x]
                x += 1
            }
        }
    }
}

/// dst = src convolved with a centred odd kernel, zero outside.
private func convolveLine(_ src: UnsafeMutablePointer<Float>, _ dst: UnsafeMutablePointer<Float>, _ n: Int, _ k: [Float]) {
    let r = k.count / 2
    for x in 0..<n {
        var s: Float = 0
        let lo = Swift.max(-r, -x), hi = Swift.min(r, n - 1 - x)
        if lo <= hi { for j in lo...hi { s += src[x + j] * k[j + r] } }
        dst[x] = s
    }
}

/// The same down the columns of a w x h plane, a row at a time.
private func convolveColumns(_ src: UnsafeMutablePointer<Float>, _ dst: UnsafeMutablePointer<Float>, _ w: Int, _ h: Int,
                             _ k: [Float]) {
    let r = k.count / 2
    for y in 0..<h {
        let d = dst + y * w
        d.update(repeating: 0, count: w)
        let lo = Swift.max(-r, -y), hi = Swift.min(r, h - 1 - y)
        if lo > hi { continue }
        for j in lo...hi {
            let s = src + (y + j) * w, kw = k[j + r]
            for x in 0..<w { d[x] += s[x] * kw }
        }
    }
}
