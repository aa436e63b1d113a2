// Eight premultiplied BGRA8 pixels at a time in SSE2-friendly form: a
// SIMD8<UInt32> of pixels whose even bytes (B, R) and odd bytes (G, A) are
// handled as two SIMD16<UInt16> of 16-bit lanes, so that every multiply is a
// 16-bit lane multiply (pmullw) and nothing needs a byte shuffle.

#if arch(x86_64)
import _Builtin_intrinsics.intel
#endif

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

/// Each 16-bit lane x (<= 65025) divided by 255, rounded exactly.
@inline(__always) package func div255Lanes(_ x: SIMD16<UInt16>) -> SIMD16<UInt16> {
    let t = x &+ 128
#if arch(x86_64)
    // (t * 257) >> 16 is (t + (t >> 8)) >> 8 for every such t (the tests check
    // all of them), and pmulhuw computes it in one instruction per 8 lanes
    // instead of four.
    return SIMD16(lowHalf: mulHigh257(t.lowHalf), highHalf: mulHigh257(t.highHalf))
#else
    return (t &+ (t &>> 8)) &>> 8
#endif
}

#if arch(x86_64)
/// (x * 257) >> 16 per unsigned 16-bit lane (pmulhuw).
@inline(__always) private func mulHigh257(_ x: SIMD8<UInt16>) -> SIMD8<UInt16> {
    let k = unsafeBitCast(SIMD8<UInt16>(repeating: 257), to: __m128i.self)
    return unsafeBitCast(_mm_mulhi_epu16(unsafeBitCast(x, to: __m128i.self), k), to: SIMD8<UInt16>.self)
}

/// The byte mask (pmovmskb) of the lanes of a and b that are both equal to k.
@inline(__always) private func equalMask(_ v: Pixels8, _ k: UInt32) -> Int32 {
    let kk = unsafeBitCast(SIMD4<UInt32>(repeating: k), to: __m128i.self)
    let lo = _mm_cmpeq_epi32(unsafeBitCast(v.lowHalf, to: __m128i.self), kk)
    let hi = _mm_cmpeq_epi32(unsafeBitCast(v.highHalf, to: __m128i.self), kk)
    return _mm_movemask_epi8(_mm_and_si128(lo, hi))
}
#endif

/// Every lane of v equals k. (The generic `==` of SIMD8 compiles to a chain
/// of compares and branches; this is two compares and one test.)
@inline(__always) package func allLanes(_ v: Pixels8, equal k: UInt32) -> Bool {
#if arch(x86_64)
    return equalMask(v, k) == 0xFFFF
#else
    return v == Pixels8(repeating: k)
#endif
}

/// Every one of the eight pixels has alpha 255.
@inline(__always) package func allOpaque(_ s: Pixels8) -> Bool {
#if arch(x86_64)
    let both = _mm_and_si128(unsafeBitCast(s.lowHalf, to: __m128i.self), unsafeBitCast(s.highHalf, to: __m128i.self))
    let ones = _mm_cmpeq_epi8(both, both)
    return _mm_movemask_epi8(_mm_cmpeq_epi8(both, ones)) & 0x8888 == 0x8888
#else
    return s &>> 24 == Pixels8(repeating: 255)
#endif
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
