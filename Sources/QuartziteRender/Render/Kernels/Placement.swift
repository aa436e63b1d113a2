import CQuartzite

// Where a layer's contents go: contentsGravity (the contents' rectangle
// within the bounds) and contentsCenter (nine-part stretching).
//
// Orientation: y grows downwards (iOS), so "top" is the bounds' minY unless
// the layer is geometryFlipped, when it is maxY. "left" is always minX.

/// The rectangle (in the layer's coordinates, points) that the contents fill
/// for a contentsGravity index into ConstantSet.gravity (center, top, bottom,
/// left, right, topLeft, topRight, bottomLeft, bottomRight, resize,
/// resizeAspect, resizeAspectFill); `contentSize` is in points (pixels /
/// contentsScale).
///
/// **Edge cases:** an unknown index acts as resize; for resizeAspect and
/// resizeAspectFill, contents without area (or NaN sizes) give an empty rect
/// at the bounds' centre. resizeAspectFill may extend past the bounds (only
/// masksToBounds clips it).
package func contentsGravityRect(gravity: UInt8, bounds: CGRect, contentSize: CGSize, geometryFlipped: Bool) -> CGRect {
    let b = bounds.standardized
    let bx = b.origin.x, by = b.origin.y, bw = b.size.width, bh = b.size.height
    let cw = contentSize.width, ch = contentSize.height
    let midX = bx + bw / 2, midY = by + bh / 2
    switch gravity {
    case 10, 11:
        guard cw > 0, ch > 0, cw.isFinite, ch.isFinite else { return CGRect(x: midX, y: midY, width: 0, height: 0) }
        let sx = bw / cw, sy = bh / ch
        let s = gravity == 10 ? Swift.min(sx, sy) : Swift.max(sx, sy)
        let w = cw * s, h = ch * s
        return CGRect(x: midX - w / 2, y: midY - h / 2, width: w, height: h)
    case 0...8:
        // Horizontal: 0 centred, -1 at minX, 1 at maxX; vertical: 0 centred, -1 top, 1 bottom.
        let h: [Int] = [0, 0, 0, -1, 1, -1, 1, -1, 1]
        let v: [Int] = [0, -1, 1, 0, 0, -1, -1, 1, 1]
        let x: Double
        switch h[Int(gravity)] {
        case -1: x = bx
        case 1: x = bx + bw - cw
        default: x = midX - cw / 2
        }
        var vertical = v[Int(gravity)]
        if geometryFlipped { vertical = -vertical }
        let y: Double
        switch vertical {
        case -1: y = by
        case 1: y = by + bh - ch
        default: y = midY - ch / 2
        }
        return CGRect(x: x, y: y, width: cw, height: ch)
    default:
        return b
    }
}

/// One piece of a nine-part (contentsCenter) drawing: `src` in image pixels,
/// `dst` in points.
package struct NinePartSlice {
    package var src: CGRect
    package var dst: CGRect
}

/// The pieces that draw the image part `contentsRect` (unit coordinates of
/// the image) into `destRect` (points) under `contentsCenter` (unit
/// coordinates of the contentsRect part): the four corners keep their size
/// (pixels / contentsScale), the edges stretch along one axis, the centre
/// along both. When the destination is narrower (or shorter) than the two
/// fixed edges together, those edges shrink in proportion and the centre
/// gets nothing, as Core Animation does. contentsCenter is clamped to the
/// unit square (the spec leaves it undefined beyond). Pieces with no
/// destination area are left out; the default contentsCenter (0, 0, 1, 1)
/// gives one piece, the whole part stretched.
package func ninePartSlices(contentsRect: CGRect, contentsCenter: CGRect, imagePixelSize: CGSize, destRect: CGRect,
                    contentsScale: Double) -> [NinePartSlice] {
    let cr = contentsRect.standardized, cc = contentsCenter.standardized, d = destRect.standardized
    guard !cr.hasNaN, !cc.hasNaN, !d.hasNaN, !imagePixelSize.hasNaN else { return [] }
    let scale = contentsScale.isFinite && contentsScale > 0 ? contentsScale : 1
    let iw = imagePixelSize.width, ih = imagePixelSize.height
    // The part of the image, in pixels.
    let sx = cr.origin.x * iw, sy = cr.origin.y * ih, sw = cr.size.width * iw, sh = cr.size.height * ih
    // The centre, unit coordinates clamped to [0, 1].
    func c01(_ v: Double) -> Double { Swift.min(Swift.max(v, 0), 1) }
    let u0 = c01(cc.origin.x), u1 = Swift.max(u0, c01(cc.origin.x + cc.size.width))
    let v0 = c01(cc.origin.y), v1 = Swift.max(v0, c01(cc.origin.y + cc.size.height))
    // Source columns and rows (pixels).
    let srcX = [sx, sx + u0 * sw, sx + u1 * sw, sx + sw]
    let srcY = [sy, sy + v0 * sh, sy + v1 * sh, sy + sh]
    // Destination columns and rows (points).
    func splits(_ start: Double, _ length: Double, _ lead: Double, _ trail: Double) -> [Double] {
        var a = lead, b = trail
        let fixed = a + b
        if fixed > length && fixed > 0 {
            let k = Swift.max(length, 0) / fixed
            a *= k
            // The centre gets nothing: it starts and ends where the first edge ends.
            return [start, start + a, start + a, start + Swift.max(length, 0)]
        }
        return [start, start + a, start + length - b, start + length]
    }
    let dstX = splits(d.origin.x, d.size.width, (srcX[1] - srcX[0]) / scale, (srcX[3] - srcX[2]) / scale)
    let dstY = splits(d.origin.y, d.size.height, (srcY[1] - srcY[0]) / scale, (srcY[3] - srcY[2]) / scale)
    var out: [NinePartSlice] = []
    for j in 0..<3 {
        for i in 0..<3 {
            let dw = dstX[i + 1] - dstX[i], dh = dstY[j + 1] - dstY[j]
            if !(dw > 0 && dh > 0) { continue }
            out.append(NinePartSlice(src: CGRect(x: srcX[i], y: srcY[j], width: srcX[i + 1] - srcX[i], height: srcY[j + 1] - srcY[j]),
                                     dst: CGRect(x: dstX[i], y: dstY[j], width: dw, height: dh)))
        }
    }
    return out
}
