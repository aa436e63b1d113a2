import CQuartzite
import QuartziteCore
import QuartziteGeometry

// Y'CbCr → premultiplied BGRA (alpha 255), 16 pixels per step in 16-bit
// SIMD lanes. Written so that LLVM emits plain SSE2 / NEON: the pixels are
// split into even and odd lanes (which share their chroma sample, so no
// lane ever needs a shuffle to duplicate chroma), every product fits in 16
// bits, clamps are written as shifts and masks (pmaxsw, psubw), and the
// bytes are interleaved at the end by widening ORs that lower to unpacks.
//
// Precision: with 5 fractional bits, each coefficient c is applied as
// v * floor(32c) + (v * frac) >> 8, so its error is below 1/8192 per unit
// of v; the result is within ±1 of the exact formula rounded (the tests
// compare every channel with a Double reference).

/// A Y'CbCr → R'G'B' matrix (kCVImageBufferYCbCrMatrixKey): luma weights Kr and Kb.
public enum YCbCrMatrix: Sendable {
    case itu601, itu709, smpte240M

    public var kr: Double {
        switch self { case .itu601: return 0.299; case .itu709: return 0.2126; case .smpte240M: return 0.212 }
    }
    public var kb: Double {
        switch self { case .itu601: return 0.114; case .itu709: return 0.0722; case .smpte240M: return 0.087 }
    }

    /// The matrix an attachment value names; nil for anything else.
    public init?(attachment: String) {
        switch attachment {
        case kCVImageBufferYCbCrMatrix_ITU_R_601_4: self = .itu601
        case kCVImageBufferYCbCrMatrix_ITU_R_709_2: self = .itu709
        case kCVImageBufferYCbCrMatrix_SMPTE_240M_1995: self = .smpte240M
        default: return nil
        }
    }

    /// The exact conversion in Double, rounded and clamped: the reference the
    /// vector code is tested against. Video range: Y' 16...235, C 16...240;
    /// full range: Y' 0...255, C centred on 128 with unit scale (JPEG's).
    public func rgb(y: Int, cb: Int, cr: Int, fullRange: Bool) -> (r: UInt8, g: UInt8, b: UInt8) {
        let kg = 1 - kr - kb
        let yy = fullRange ? Double(y) : (Double(y) - 16) * 255 / 219
        let cs = fullRange ? 1.0 : 255.0 / 224.0
        let u = Double(cb - 128) * cs, v = Double(cr - 128) * cs
        func c(_ x: Double) -> UInt8 { UInt8(Swift.max(0, Swift.min(255, x)).rounded()) }
        return (c(yy + 2 * (1 - kr) * v),
                c(yy - 2 * (1 - kb) * kb / kg * u - 2 * (1 - kr) * kr / kg * v),
                c(yy + 2 * (1 - kb) * u))
    }
}

/// The matrix and range of one conversion, as 16-bit fixed-point vectors.
package struct YCbCrKernel {
    package typealias V = SIMD8<Int16>
    package let yOffset: V, yWhole: V, yFraction: V
    package let rWhole: V, rFraction: V, bWhole: V, bFraction: V
    package let gbWhole: V, gbFraction: V, grWhole: V, grFraction: V
    package static let rounding = V(repeating: 16)

    package init(matrix: YCbCrMatrix, fullRange: Bool) {
        let kr = matrix.kr, kb = matrix.kb, kg = 1 - kr - kb
        let ys = fullRange ? 1.0 : 255.0 / 219.0, cs = fullRange ? 1.0 : 255.0 / 224.0
        func split(_ c: Double) -> (V, V) {
            let scaled = c * 32
            let whole = scaled.rounded(.down)
            return (V(repeating: Int16(whole)), V(repeating: Int16(((scaled - whole) * 256).rounded())))
        }
        yOffset = V(repeating: fullRange ? 0 : 16)
        (yWhole, yFraction) = split(ys)
        (rWhole, rFraction) = split(cs * 2 * (1 - kr))
        (bWhole, bFraction) = split(cs * 2 * (1 - kb))
        (gbWhole, gbFraction) = split(cs * 2 * (1 - kb) * kb / kg)
        (grWhole, grFraction) = split(cs * 2 * (1 - kr) * kr / kg)
    }

    @inline(__always)
    package static func scale(_ v: V, _ whole: V, _ fraction: V) -> V {
        v &* whole &+ ((v &* fraction) &>> 8)
    }

    /// (x + rounding) >> 5 clamped to 0...255. The upper clamp comes first
    /// (x - max(x - 255, 0)) so that LLVM keeps both as signed min/max.
    @inline(__always)
    package static func channel(_ yTerm: V, _ cTerm: V) -> SIMD8<UInt16> {
        var x = (yTerm &+ cTerm) &>> 5
        let over = x &- 255
        x = x &- (over & ~(over &>> 15))
        return SIMD8<UInt16>(truncatingIfNeeded: x & ~(x &>> 15))
    }

    /// Interleaves two vectors' lanes: a0 b0 a1 b1 ...
    @inline(__always)
    package static func zip(_ a: SIMD8<UInt16>, _ b: SIMD8<UInt16>) -> SIMD16<UInt16> {
        unsafeBitCast(SIMD8<UInt32>(truncatingIfNeeded: a) | (SIMD8<UInt32>(truncatingIfNeeded: b) &<< 16),
                      to: SIMD16<UInt16>.self)
    }

    /// Converts 16 pixels: luma of the even and odd pixels, and the chroma
    /// each pair shares (already 0...255, not yet centred), to 64 bytes of
    /// BGRA at `out`.
    @inline(__always)
    package func block(yEven: V, yOdd: V, cb: V, cr: V, out: UnsafeMutableRawPointer) {
        let c128 = V(repeating: 128)
        let u = cb &- c128, v = cr &- c128
        let rTerm = Self.scale(v, rWhole, rFraction)
        let bTerm = Self.scale(u, bWhole, bFraction)
        let gTerm = V(repeating: 0) &- Self.scale(u, gbWhole, gbFraction) &- Self.scale(v, grWhole, grFraction)
        let ye = Self.scale(yEven &- yOffset, yWhole, yFraction) &+ Self.rounding
        let yo = Self.scale(yOdd &- yOffset, yWhole, yFraction) &+ Self.rounding
        let be = Self.channel(ye, bTerm), ge = Self.channel(ye, gTerm), re = Self.channel(ye, rTerm)
        let bo = Self.channel(yo, bTerm), go = Self.channel(yo, gTerm), ro = Self.channel(yo, rTerm)
        let alpha = SIMD8<UInt16>(repeating: 0xFF00)
        // B|G<<8 and R|A<<8 per pixel, in pixel order, then the pixels.
        let bg = Self.zip(be | (ge &<< 8), bo | (go &<< 8))
        let ra = Self.zip(re | alpha, ro | alpha)
        out.storeBytes(of: Self.zip(bg.lowHalf, ra.lowHalf), as: SIMD16<UInt16>.self)
        (out + 32).storeBytes(of: Self.zip(bg.highHalf, ra.highHalf), as: SIMD16<UInt16>.self)
    }

    package static let lowBytes = SIMD8<UInt16>(repeating: 0xFF)

    @inline(__always)
    package static func low(_ v: SIMD8<UInt16>) -> V { V(truncatingIfNeeded: v & lowBytes) }
    @inline(__always)
    package static func high(_ v: SIMD8<UInt16>) -> V { V(truncatingIfNeeded: v &>> 8) }

    // MARK: - Rows

    /// One row of '420v' / '420f': `luma` holds `width` bytes, `chroma`
    /// (width + 1) / 2 Cb, Cr pairs.
    package func biPlanarRow(luma: UnsafeRawPointer, chroma: UnsafeRawPointer, out: UnsafeMutableRawPointer, width: Int) {
        var x = 0
        while x + 16 <= width {
            let y = luma.loadUnaligned(fromByteOffset: x, as: SIMD8<UInt16>.self)
            let c = chroma.loadUnaligned(fromByteOffset: x, as: SIMD8<UInt16>.self)
            block(yEven: Self.low(y), yOdd: Self.high(y), cb: Self.low(c), cr: Self.high(c), out: out + 4 * x)
            x += 16
        }
        let n = width - x
        if n == 0 { return }
        // The last pixels go through the same block on zero-padded copies.
        withUnsafeTemporaryAllocation(byteCount: 96, alignment: 16) { tmp in
            let t = tmp.baseAddress!
            t.initializeMemory(as: UInt8.self, repeating: 0, count: 32)
            t.copyMemory(from: luma + x, byteCount: n)
            (t + 16).copyMemory(from: chroma + x, byteCount: 2 * ((n + 1) / 2))
            let y = t.load(as: SIMD8<UInt16>.self), c = (t + 16).load(as: SIMD8<UInt16>.self)
            block(yEven: Self.low(y), yOdd: Self.high(y), cb: Self.low(c), cr: Self.high(c), out: t + 32)
            (out + 4 * x).copyMemory(from: t + 32, byteCount: 4 * n)
        }
    }

    /// One row of 'y420' / 'f420': separate Cb and Cr rows of (width + 1) / 2 bytes.
    package func planarRow(luma: UnsafeRawPointer, cb: UnsafeRawPointer, cr: UnsafeRawPointer, out: UnsafeMutableRawPointer,
                   width: Int) {
        var x = 0
        while x + 16 <= width {
            let y = luma.loadUnaligned(fromByteOffset: x, as: SIMD8<UInt16>.self)
            let u = V(truncatingIfNeeded: cb.loadUnaligned(fromByteOffset: x / 2, as: SIMD8<UInt8>.self))
            let v = V(truncatingIfNeeded: cr.loadUnaligned(fromByteOffset: x / 2, as: SIMD8<UInt8>.self))
            block(yEven: Self.low(y), yOdd: Self.high(y), cb: u, cr: v, out: out + 4 * x)
            x += 16
        }
        let n = width - x
        if n == 0 { return }
        withUnsafeTemporaryAllocation(byteCount: 96, alignment: 16) { tmp in
            let t = tmp.baseAddress!
            t.initializeMemory(as: UInt8.self, repeating: 0, count: 32)
            t.copyMemory(from: luma + x, byteCount: n)
            (t + 16).copyMemory(from: cb + x / 2, byteCount: (n + 1) / 2)
            (t + 24).copyMemory(from: cr + x / 2, byteCount: (n + 1) / 2)
            let y = t.load(as: SIMD8<UInt16>.self)
            let u = V(truncatingIfNeeded: (t + 16).load(as: SIMD8<UInt8>.self))
            let v = V(truncatingIfNeeded: (t + 24).load(as: SIMD8<UInt8>.self))
            block(yEven: Self.low(y), yOdd: Self.high(y), cb: u, cr: v, out: t + 32)
            (out + 4 * x).copyMemory(from: t + 32, byteCount: 4 * n)
        }
    }

    /// One row of '2vuy' (Cb Y'0 Cr Y'1) or 'yuvs' / 'yuvf' (Y'0 Cb Y'1 Cr):
    /// 4 bytes per pair of pixels.
    package func packedRow(_ row: UnsafeRawPointer, out: UnsafeMutableRawPointer, width: Int, yFirst: Bool) {
        @inline(__always)
        func step(_ pairs: SIMD8<UInt32>, _ out: UnsafeMutableRawPointer) {
            // Each word is one pair of pixels, bytes 0...3 from the low end.
            // Masked to 8 bits before narrowing, so LLVM narrows with one
            // pack instruction (evenHalf / oddHalf are scalarised on SSE2).
            @inline(__always) func byte(_ shift: UInt32) -> V {
                V(truncatingIfNeeded: (pairs &>> shift) & 0xFF)
            }
            if yFirst {
                block(yEven: byte(0), yOdd: byte(16), cb: byte(8), cr: byte(24), out: out)
            } else {
                block(yEven: byte(8), yOdd: byte(24), cb: byte(0), cr: byte(16), out: out)
            }
        }
        var x = 0
        while x + 16 <= width {
            step(row.loadUnaligned(fromByteOffset: 2 * x, as: SIMD8<UInt32>.self), out + 4 * x)
            x += 16
        }
        let n = width - x
        if n == 0 { return }
        withUnsafeTemporaryAllocation(byteCount: 96, alignment: 16) { tmp in
            let t = tmp.baseAddress!
            t.initializeMemory(as: UInt8.self, repeating: 0, count: 32)
            t.copyMemory(from: row + 2 * x, byteCount: 4 * ((n + 1) / 2))
            step(t.load(as: SIMD8<UInt32>.self), t + 32)
            (out + 4 * x).copyMemory(from: t + 32, byteCount: 4 * n)
        }
    }
}
