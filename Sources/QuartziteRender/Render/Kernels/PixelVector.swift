// Eight premultiplied BGRA8 pixels at a time in SSE2-friendly form: a
// SIMD8<UInt32> of pixels whose even bytes (B, R) and odd bytes (G, A) are
// handled as two SIMD16<UInt16> of 16-bit lanes, so that every multiply is a
// 16-bit lane multiply (pmullw) and nothing needs a byte shuffle.

package typealias Pixels8 = SIMD8<UInt32>

@inline(__always) package func loadPixels8(_ p: UnsafePointer<UInt32>) -> Pixels8 {
    UnsafeRawPointer(p).loadUnaligned(as: Pixels8.self)
}

@inline(__always) package func storePixels8(_ v: Pixels8, _ p: UnsafeMutablePointer<UInt32>) {
    UnsafeMutableRawPointer(p).storeBytes(of: v, as: Pixels8.self)
}

@inline(__always) package func loadBytes8(_ p: UnsafePointer<UInt8>) -> Pixels8 {
    Pixels8(truncatingIfNeeded: UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt8>.self))
}

/// Each 16-bit lane x (<= 65025 + 128 after adding) divided by 255, rounded exactly.
@inline(__always) package func div255Lanes(_ x: SIMD16<UInt16>) -> SIMD16<UInt16> {
    let t = x &+ 128
    return (t &+ (t &>> 8)) &>> 8
}

/// Every channel of each pixel times its factor (0...255, one per pixel) / 255, rounded exactly.
@inline(__always) package func scalePixels8(_ p: Pixels8, _ f: Pixels8) -> Pixels8 {
    let f2 = unsafeBitCast(f | (f &<< 16), to: SIMD16<UInt16>.self)
    let rb = unsafeBitCast(p & 0x00FF_00FF, to: SIMD16<UInt16>.self)
    let ag = unsafeBitCast((p &>> 8) & 0x00FF_00FF, to: SIMD16<UInt16>.self)
    let rbs = unsafeBitCast(div255Lanes(rb &* f2), to: Pixels8.self)
    let ags = unsafeBitCast(div255Lanes(ag &* f2), to: Pixels8.self)
    return rbs | (ags &<< 8)
}

/// Source over destination for eight pixels.
@inline(__always) package func overPixels8(_ s: Pixels8, _ d: Pixels8) -> Pixels8 {
    s &+ scalePixels8(d, 255 &- (s &>> 24))
}

/// a (1 - w/256) + b w/256 per channel, w in 0...256 one per pixel, rounded (8-bit weights).
@inline(__always) package func lerpPixels8(_ a: Pixels8, _ b: Pixels8, _ w: Pixels8) -> Pixels8 {
    let wb = unsafeBitCast(w | (w &<< 16), to: SIMD16<UInt16>.self)
    let iw = 256 &- w
    let wa = unsafeBitCast(iw | (iw &<< 16), to: SIMD16<UInt16>.self)
    let arb = unsafeBitCast(a & 0x00FF_00FF, to: SIMD16<UInt16>.self)
    let aag = unsafeBitCast((a &>> 8) & 0x00FF_00FF, to: SIMD16<UInt16>.self)
    let brb = unsafeBitCast(b & 0x00FF_00FF, to: SIMD16<UInt16>.self)
    let bag = unsafeBitCast((b &>> 8) & 0x00FF_00FF, to: SIMD16<UInt16>.self)
    // 255 * 256 + 128 fits in 16 bits.
    let rb = unsafeBitCast((arb &* wa &+ brb &* wb &+ 128) &>> 8, to: Pixels8.self)
    let ag = unsafeBitCast((aag &* wa &+ bag &* wb &+ 128) &>> 8, to: Pixels8.self)
    return rb | (ag &<< 8)
}
