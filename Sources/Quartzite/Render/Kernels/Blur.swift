// Gaussian blur of coverage masks (layer shadows) as three successive box
// blurs per axis, whose sizes follow the usual formula for matching a
// Gaussian's variance with n = 3 boxes:
//   w_ideal = sqrt(12 σ² / n + 1), wl = the largest odd integer <= w_ideal, wu = wl + 2,
//   m = round((12 σ² - n wl² - 4 n wl - 3 n) / (-4 wl - 4)),
//   the first m boxes are wl wide and the others wu.
// Pixels beyond the mask's edges count as 0 (callers pad the mask by about
// 3σ so that nothing is lost).
//
// shadowRadius -> sigma: Core Animation's shadowRadius is the blur radius; the
// renderer uses sigma = shadowRadius / 2 (in pixels: shadowRadius *
// contentsScale / 2), the usual equivalence, which also matches CSS and
// Skia's convention for a blur radius. `shadowSigma(radius:scale:)` does it.

/// The Gaussian sigma (pixels) for a shadowRadius (points) at a scale;
/// negative, NaN or infinite radii give 0 (a sharp shadow). Capped at 512 px.
func shadowSigma(radius: Double, scale: Double = 1) -> Double {
    let s = radius * (scale.isFinite && scale > 0 ? scale : 1) / 2
    guard s.isFinite, s > 0 else { return 0 }
    return Swift.min(s, 512)
}

/// How far (pixels) a blur of `sigma` spreads coverage: the sum of the three
/// box radii on one side (a mask needs this much padding on each side).
func blurExtent(sigma: Double) -> Int {
    boxSizes(sigma: sigma).reduce(0) { $0 + $1 / 2 }
}

/// The three odd box widths for `sigma` (all 1, i.e. no blur, for sigma <= 0 or NaN).
func boxSizes(sigma: Double, passes n: Int = 3) -> [Int] {
    guard sigma.isFinite, sigma > 0 else { return [Int](repeating: 1, count: n) }
    let s2 = 12 * sigma * sigma
    let ideal = (s2 / Double(n) + 1).squareRoot()
    var wl = Int(ideal.rounded(.down))
    if wl % 2 == 0 { wl -= 1 }
    wl = Swift.max(wl, 1)
    let wu = wl + 2
    let dn = Double(n), dwl = Double(wl)
    let m = Int(((s2 - dn * dwl * dwl - 4 * dn * dwl - 3 * dn) / (-4 * dwl - 4)).rounded())
    return (0..<n).map { $0 < m ? wl : wu }
}

/// Blurs `mask` in place by a Gaussian of `sigma` pixels (three box passes per axis).
func gaussianBlur(mask: AlphaMask, sigma: Double) {
    let sizes = boxSizes(sigma: sigma)
    if sizes.allSatisfy({ $0 == 1 }) || mask.width == 0 || mask.height == 0 { return }
    let w = mask.width, h = mask.height
    // Work in Float: one plane, blurred horizontally row by row, then
    // vertically with whole-row running sums (cache friendly).
    let plane = UnsafeMutablePointer<Float>.allocate(capacity: w * h)
    defer { plane.deallocate() }
    let longest = Swift.max(w, h)
    let a = UnsafeMutablePointer<Float>.allocate(capacity: longest)
    let b = UnsafeMutablePointer<Float>.allocate(capacity: longest)
    defer { a.deallocate(); b.deallocate() }
    for y in 0..<h {
        let src = mask.row(y)
        for x in 0..<w { a[x] = Float(src[x]) }
        boxLine(a, b, w, sizes[0]); boxLine(b, a, w, sizes[1]); boxLine(a, b, w, sizes[2])
        (plane + y * w).update(from: b, count: w)
    }
    // Vertical: three passes, each between `plane` and a scratch plane.
    let scratch = UnsafeMutablePointer<Float>.allocate(capacity: w * h)
    defer { scratch.deallocate() }
    let sums = UnsafeMutablePointer<Float>.allocate(capacity: w)
    defer { sums.deallocate() }
    boxColumns(plane, scratch, w, h, sizes[0], sums)
    boxColumns(scratch, plane, w, h, sizes[1], sums)
    boxColumns(plane, scratch, w, h, sizes[2], sums)
    for y in 0..<h {
        let d = mask.row(y), s = scratch + y * w
        for x in 0..<w {
            let v = s[x] + 0.5
            d[x] = v >= 255 ? 255 : (v <= 0 ? 0 : UInt8(v))
        }
    }
}

/// Blurs an owned mask in place (see `gaussianBlur(mask: AlphaMask, ...)`).
func gaussianBlur(mask: MaskBitmap, sigma: Double) { gaussianBlur(mask: mask.mask, sigma: sigma) }

/// One centred box of odd width `size` along a line of n values, zero outside.
private func boxLine(_ src: UnsafeMutablePointer<Float>, _ dst: UnsafeMutablePointer<Float>, _ n: Int, _ size: Int) {
    let r = size / 2
    let inv = 1 / Float(size)
    // Running sum over src[x - r ... x + r]; Float sums of integers below 2^24 are exact
    // for the first pass and accurate to far below 1/255 afterwards.
    var sum: Float = 0
    for i in 0..<Swift.min(r, n) { sum += src[i] }
    for x in 0..<n {
        let add = x + r, sub = x - r - 1
        if add < n { sum += src[add] }
        if sub >= 0 { sum -= src[sub] }
        dst[x] = sum * inv
    }
}

/// One vertical box pass over a w x h plane, all columns at once.
private func boxColumns(_ src: UnsafeMutablePointer<Float>, _ dst: UnsafeMutablePointer<Float>, _ w: Int, _ h: Int,
                        _ size: Int, _ sums: UnsafeMutablePointer<Float>) {
    let r = size / 2
    let inv = 1 / Float(size)
    sums.update(repeating: 0, count: w)
    for i in 0..<Swift.min(r, h) {
        let s = src + i * w
        for x in 0..<w { sums[x] += s[x] }
    }
    for y in 0..<h {
        let add = y + r, sub = y - r - 1
        if add < h {
            let s = src + add * w
            for x in 0..<w { sums[x] += s[x] }
        }
        if sub >= 0 {
            let s = src + sub * w
            for x in 0..<w { sums[x] -= s[x] }
        }
        let d = dst + y * w
        for x in 0..<w { d[x] = sums[x] * inv }
    }
}
