import CQuartzite
import Glibc
import Testing
@testable import QuartziteCore
@testable import QuartziteGeometry
@testable import QuartziteVideo
@testable import QuartziteGraphics
@testable import QuartziteModel
@testable import QuartziteRender
@testable import Quartzite

// The renderer's pixel kernels. Expected values are computed by hand (in the
// comments) or by independent floating-point references written here.

/// A BGRA pixel from its channels.
private func px(_ b: UInt32, _ g: UInt32, _ r: UInt32, _ a: UInt32) -> UInt32 { b | g << 8 | r << 16 | a << 24 }
private func channels(_ p: UInt32) -> [Int] { [Int(p & 255), Int(p >> 8 & 255), Int(p >> 16 & 255), Int(p >> 24)] }
private func maxChannelDiff(_ a: UInt32, _ b: UInt32) -> Int { zip(channels(a), channels(b)).map { abs($0 - $1) }.max()! }

/// A deterministic generator (xorshift), so failures reproduce.
private struct Rng {
    var s: UInt64
    mutating func next() -> UInt64 { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s }
    mutating func byte() -> UInt32 { UInt32(next() % 256) }
    /// A valid premultiplied pixel (every colour channel <= alpha), often opaque or clear.
    mutating func premultiplied() -> UInt32 {
        let k = next() % 8
        let a: UInt32 = k == 0 ? 0 : (k == 1 ? 255 : byte())
        func c() -> UInt32 { a == 0 ? 0 : UInt32(next() % UInt64(a + 1)) }
        return px(c(), c(), c(), a)
    }
    mutating func unit() -> Double { Double(next() % 1_000_000) / 1_000_000 }
}

/// The reference source-over in Double: s' = round(s f / 255); d' = s' + round(d (255 - s'a) / 255).
private func referenceOver(_ s: UInt32, _ d: UInt32, _ f: UInt32) -> UInt32 {
    let sc = channels(s).map { (Double($0 * Int(f)) / 255).rounded() }
    let inv = 255 - sc[3]
    let out = zip(sc, channels(d)).map { UInt32($0 + (Double($1) * inv / 255).rounded()) }
    return px(out[0], out[1], out[2], out[3])
}

@Suite struct RenderKernelBlendTests {
    @Test func div255IsRoundedDivisionOverItsWholeRange() {
        for x in UInt32(0)...65025 where div255(x) != UInt32((Double(x) / 255).rounded()) {
            Issue.record("div255(\(x)) = \(div255(x))")
            return
        }
    }

    @Test func laneDivisionIsRoundedDivisionOverItsWholeRange() {
        // div255Lanes (pmulhuw on x86-64) against round(x / 255), 16 lanes at a time.
        var x = 0
        while x <= 65025 {
            var v = SIMD16<UInt16>()
            for k in 0..<16 { v[k] = UInt16(min(x + k, 65025)) }
            let q = div255Lanes(v)
            for k in 0..<16 where q[k] != UInt16((Double(v[k]) / 255).rounded()) {
                Issue.record("div255Lanes(\(v[k])) = \(q[k])")
                return
            }
            x += 16
        }
    }

    @Test func blockPredicatesLookAtEveryPixel() {
        // allOpaque: alpha 255 in all eight, whatever the colour bytes.
        let opaque = Pixels8(repeating: px(1, 2, 3, 255))
        #expect(allOpaque(opaque) && allOpaque(Pixels8(repeating: 0xFFFF_FFFF)))
        for k in 0..<8 {
            var v = opaque
            v[k] = px(1, 2, 3, 254)
            #expect(!allOpaque(v), "pixel \(k) translucent")
            var z = Pixels8(repeating: 0)
            #expect(allLanes(z, equal: 0))
            z[k] = 1 << UInt32(k * 4)
            #expect(!allLanes(z, equal: 0), "pixel \(k) not zero")
            var c = Pixels8(repeating: 255)
            #expect(allLanes(c, equal: 255))
            c[k] = 254
            #expect(!allLanes(c, equal: 255), "coverage \(k) not full")
        }
    }

    @Test func overRoundsExactly() {
        // 50% blue over opaque white: src (b 128, g 0, r 0, a 128);
        // dst * (255 - 128) / 255 = 255 * 127 / 255 = 127 per channel -> (255, 127, 127, 255).
        var d: [UInt32] = [px(255, 255, 255, 255)]
        let s: [UInt32] = [px(128, 0, 0, 128)]
        blendSpanOver(dst: &d, src: s, count: 1)
        #expect(d[0] == px(255, 127, 127, 255))
    }

    @Test func opacityScalesTheSourceFirst() {
        // (200, 100, 50, 200) at opacity 128: 200*128/255 = 100.39 -> 100, 100*128/255 = 50.2 -> 50,
        // 50*128/255 = 25.1 -> 25; over transparent black it is simply the scaled source.
        var d: [UInt32] = [0]
        blendSpanOver(dst: &d, src: [px(200, 100, 50, 200)], count: 1, opacity: 128)
        #expect(d[0] == px(100, 50, 25, 100))
        // Opacity 0 leaves the destination alone.
        var e: [UInt32] = [px(1, 2, 3, 4)]
        blendSpanOver(dst: &e, src: [px(255, 255, 255, 255)], count: 1, opacity: 0)
        #expect(e[0] == px(1, 2, 3, 4))
    }

    @Test func spansMatchTheReferenceForRandomPixels() {
        var rng = Rng(s: 0x1234_5678_9ABC)
        let n = 4099   // not a multiple of any vector width
        for opacity: UInt32 in [255, 254, 128, 1] {
            let src = (0..<n).map { _ in rng.premultiplied() }
            let dst0 = (0..<n).map { _ in rng.premultiplied() }
            let cov = (0..<n).map { _ in UInt8(rng.byte()) }
            var dst = dst0
            blendSpanOver(dst: &dst, src: src, count: n, opacity: UInt8(opacity))
            for i in 0..<n where dst[i] != referenceOver(src[i], dst0[i], opacity) {
                Issue.record("over opacity \(opacity) at \(i): \(dst[i]) vs \(referenceOver(src[i], dst0[i], opacity))")
                break
            }
            // Masked: the factor is round(coverage * opacity / 255), then the same.
            dst = dst0
            blendSpanOverMasked(dst: &dst, src: src, coverage: cov, count: n, opacity: UInt8(opacity))
            for i in 0..<n {
                let f = UInt32((Double(UInt32(cov[i]) * opacity) / 255).rounded())
                if dst[i] != referenceOver(src[i], dst0[i], f) {
                    Issue.record("masked opacity \(opacity) at \(i)")
                    break
                }
            }
            // Solid colour, plain and through coverage.
            let color = src[7] | 0x0100_0000 == src[7] ? src[7] : px(10, 20, 30, 40)
            dst = dst0
            fillSpanOver(dst: &dst, color: color, count: n)
            for i in 0..<n where dst[i] != referenceOver(color, dst0[i], 255) {
                Issue.record("fill at \(i)")
                break
            }
            dst = dst0
            fillSpanOverMasked(dst: &dst, color: color, coverage: cov, count: n)
            for i in 0..<n where dst[i] != referenceOver(color, dst0[i], UInt32(cov[i])) {
                Issue.record("masked fill at \(i)")
                break
            }
        }
    }

    @Test func wholeBlocksOfOpaqueClearAndMixedPixels() {
        // 8-pixel blocks that are all opaque (copied), all clear (skipped) and mixed.
        let opaque = px(10, 20, 30, 255), half = px(50, 40, 30, 128), under = px(200, 100, 0, 255)
        let src: [UInt32] = Array(repeating: opaque, count: 8) + Array(repeating: 0, count: 8) + Array(repeating: half, count: 8) + [half]
        var dst = [UInt32](repeating: under, count: 25)
        blendSpanOver(dst: &dst, src: src, count: 25)
        let blended = referenceOver(half, under, 255)
        #expect(dst[0..<8].allSatisfy { $0 == opaque } && dst[8..<16].allSatisfy { $0 == under })
        #expect(dst[16..<25].allSatisfy { $0 == blended })
        // Masked with full coverage behaves the same; zero coverage changes nothing.
        var m = [UInt32](repeating: under, count: 25)
        blendSpanOverMasked(dst: &m, src: src, coverage: [UInt8](repeating: 255, count: 25), count: 25)
        #expect(m == dst)
        m = [UInt32](repeating: under, count: 25)
        blendSpanOverMasked(dst: &m, src: src, coverage: [UInt8](repeating: 0, count: 25), count: 25)
        #expect(m.allSatisfy { $0 == under })
    }

    @Test func opaqueSourceReplacesAndClearSourceKeeps() {
        var d: [UInt32] = [px(1, 2, 3, 4), px(5, 6, 7, 8)]
        blendSpanOver(dst: &d, src: [px(9, 9, 9, 255), 0], count: 2)
        #expect(d == [px(9, 9, 9, 255), px(5, 6, 7, 8)])
        fillSpanOver(dst: &d, color: px(0, 0, 200, 255), count: 2)
        #expect(d == [px(0, 0, 200, 255), px(0, 0, 200, 255)])
    }

    @Test func compositeOverClipsToBothSurfaces() {
        let dst = Bitmap(width: 4, height: 3)!, src = Bitmap(width: 3, height: 2)!
        for y in 0..<2 { for x in 0..<3 { src.surface[x, y] = px(UInt32(10 * x + y), 0, 0, 255) } }
        // src's top-left at (-1, 2): only src pixels (1...2, 0) land, at dst (0...1, 2).
        compositeOver(dst: dst.surface, x: -1, y: 2, src: src.surface)
        #expect(dst.surface[0, 2] == px(10, 0, 0, 255))
        #expect(dst.surface[1, 2] == px(20, 0, 0, 255))
        #expect(dst.surface[2, 2] == 0 && dst.surface[0, 1] == 0)
        // A clip rectangle limits it further.
        compositeOver(dst: dst.surface, x: 1, y: 0, src: src.surface, opacity: 255, clip: PixelBox(x: 2, y: 0, width: 1, height: 1))
        #expect(dst.surface[2, 0] == px(10, 0, 0, 255))
        #expect(dst.surface[1, 0] == 0 && dst.surface[3, 0] == 0 && dst.surface[2, 1] == 0)
    }

    @Test func maskedBlitsAndSurfaceHelpers() {
        // compositeOverMasked: the source scaled by mask * opacity, placed and clipped like compositeOver.
        let src = Bitmap(width: 3, height: 2)!, mask = MaskBitmap(width: 3, height: 2)!
        for y in 0..<2 { for x in 0..<3 { src.surface[x, y] = px(200, 100, 50, 200); mask.mask[x, y] = UInt8(x * 100 + y * 20) } }
        let dst = Bitmap(width: 4, height: 4)!
        dst.surface.fill(px(0, 0, 255, 255))
        compositeOverMasked(dst: dst.surface, x: 1, y: 2, src: src.surface, mask: mask.mask, opacity: 128)
        for y in 0..<2 { for x in 0..<3 {
            let f = UInt32((Double(UInt32(x * 100 + y * 20) * 128) / 255).rounded())
            #expect(dst.surface[x + 1, y + 2] == referenceOver(px(200, 100, 50, 200), px(0, 0, 255, 255), f))
        } }
        #expect(dst.surface[0, 2] == px(0, 0, 255, 255) && dst.surface[1, 1] == px(0, 0, 255, 255))
        // Sub-surfaces share pixels; copy replaces without blending and clips.
        let sub = dst.surface.subSurface(PixelBox(x: 2, y: 1, width: 5, height: 5))
        #expect(sub.width == 2 && sub.height == 3)
        sub.fill(px(1, 2, 3, 4))
        #expect(dst.surface[3, 3] == px(1, 2, 3, 4) && dst.surface[1, 1] == px(0, 0, 255, 255))
        dst.surface.copy(from: src.surface, x: 2, y: -1)
        #expect(dst.surface[2, 0] == px(200, 100, 50, 200) && dst.surface[3, 0] == px(200, 100, 50, 200))
        #expect(dst.surface[2, 1] == px(1, 2, 3, 4))
        // Rectangles: intersection and union.
        let a = PixelBox(x: 0, y: 0, width: 4, height: 4), b = PixelBox(x: 2, y: 3, width: 5, height: 5)
        #expect(a.intersection(b) == PixelBox(x: 2, y: 3, width: 2, height: 1))
        #expect(a.union(b) == PixelBox(x: 0, y: 0, width: 7, height: 8))
        #expect(a.intersection(PixelBox(x: 9, y: 9, width: 1, height: 1)).isEmpty && PixelBox.empty.union(b) == b)
    }

    @Test func bitmapsHaveAlignedRows() {
        let b = Bitmap(width: 5, height: 3)!
        #expect(b.surface.rowPixels == 16)
        #expect(Int(bitPattern: UnsafeRawPointer(b.surface.base)) % 64 == 0)
        let m = MaskBitmap(width: 65, height: 2)!
        #expect(m.mask.rowBytes == 128)
        #expect(Bitmap(width: -1, height: 3) == nil)
        #expect(Bitmap(width: 1 << 20, height: 1 << 20) == nil)
        #expect(Bitmap(width: 0, height: 0)?.surface.width == 0)
    }

    @Test func premultipliedPixelFromStraightComponents() {
        // red 1, green 0.5, blue 0, alpha 0.5: R = 127.5 -> 128, G = 63.75 -> 64, A = 127.5 -> 128.
        #expect(premultipliedPixel(red: 1, green: 0.5, blue: 0, alpha: 0.5) == px(0, 64, 128, 128))
        #expect(premultipliedPixel(red: .nan, green: 2, blue: -1, alpha: 1) == px(0, 255, 0, 255))
    }
}

// MARK: - Sampling

/// A texture of w x h with texel (x, y) = (b: x*10+y, g: 0, r: y*20, a: 255), or as given.
private func makeTexture(_ w: Int, _ h: Int, _ f: (Int, Int) -> UInt32) -> Texture {
    let b = Bitmap(width: w, height: h)!
    for y in 0..<h { for x in 0..<w { b.surface[x, y] = f(x, y) } }
    return Texture(bitmap: b)
}

/// Bilinear in Double from the texel function: the reference.
private func referenceBilinear(_ w: Int, _ h: Int, _ f: (Int, Int) -> UInt32, _ u: Double, _ v: Double) -> [Double] {
    let x = u - 0.5, y = v - 0.5
    let x0 = Int(x.rounded(.down)), y0 = Int(y.rounded(.down))
    let fx = x - Double(x0), fy = y - Double(y0)
    func t(_ i: Int, _ j: Int) -> [Double] { channels(f(min(max(i, 0), w - 1), min(max(j, 0), h - 1))).map(Double.init) }
    let a = t(x0, y0), b = t(x0 + 1, y0), c = t(x0, y0 + 1), d = t(x0 + 1, y0 + 1)
    return (0..<4).map { k in
        (a[k] * (1 - fx) + b[k] * fx) * (1 - fy) + (c[k] * (1 - fx) + d[k] * fx) * fy
    }
}

private func near(_ p: UInt32, _ ref: [Double], _ tol: Double) -> Bool {
    zip(channels(p), ref).allSatisfy { abs(Double($0) - $1) <= tol }
}

@Suite struct RenderKernelSamplingTests {
    let pattern: (Int, Int) -> UInt32 = { x, y in px(UInt32(x * 10 + y), UInt32((x * 37 + y * 11) % 256), UInt32(y * 20), 255) }

    @Test func nearestPicksTheTexelAndClamps() {
        let t = makeTexture(4, 3, pattern)
        #expect(t.sampleNearest(u: 0.5, v: 0.5) == pattern(0, 0))
        #expect(t.sampleNearest(u: 1.99, v: 2.2) == pattern(1, 2))
        #expect(t.sampleNearest(u: 2.0, v: 1.0) == pattern(2, 1))   // the left/top edge belongs to the texel
        #expect(t.sampleNearest(u: -5, v: -5) == pattern(0, 0))
        #expect(t.sampleNearest(u: 100, v: 1.5) == pattern(3, 1))
        #expect(t.sampleNearest(u: .nan, v: .infinity) == pattern(0, 2))
    }

    @Test func bilinearAtCentresHalfwayAndEdges() {
        // 2x1: A = (0, 0, 0, 0)... B = (200, 100, 40, 200).
        let a = px(0, 0, 0, 0), b = px(200, 100, 40, 200)
        let t = makeTexture(2, 1) { x, _ in x == 0 ? a : b }
        #expect(t.sampleBilinear(u: 0.5, v: 0.5) == a)
        #expect(t.sampleBilinear(u: 1.5, v: 0.5) == b)
        // u = 1.0 is halfway between the centres 0.5 and 1.5: (100, 50, 20, 100).
        #expect(t.sampleBilinear(u: 1.0, v: 0.5) == px(100, 50, 20, 100))
        // u = 0.75: a quarter of the way: (50, 25, 10, 50).
        #expect(t.sampleBilinear(u: 0.75, v: 0.3) == px(50, 25, 10, 50))
        // Clamp-to-edge: left of the first centre and right of the last, the edge texel.
        #expect(t.sampleBilinear(u: 0.1, v: 0.5) == a)
        #expect(t.sampleBilinear(u: 1.9, v: -3) == b)
        #expect(t.sampleBilinear(u: 1e300, v: .nan) == b)
    }

    @Test func bilinearMatchesAFloatingPointReference() {
        let t = makeTexture(7, 5, pattern)
        var rng = Rng(s: 99)
        for _ in 0..<500 {
            let u = rng.unit() * 9 - 1, v = rng.unit() * 7 - 1
            let ref = referenceBilinear(7, 5, pattern, u, v)
            // 8-bit weights: at most a channel step of 255 * (1/256) per axis away, plus rounding.
            #expect(near(t.sampleBilinear(u: u, v: v), ref, 2.5), "at \(u), \(v)")
        }
    }

    @Test func rowsMatchSingleSamples() {
        let t = makeTexture(9, 6, pattern)
        var rng = Rng(s: 7)
        for _ in 0..<20 {
            let u0 = rng.unit() * 12 - 2, v0 = rng.unit() * 8 - 1, du = rng.unit() * 2 - 1, dv = rng.unit() - 0.5
            var row = [UInt32](repeating: 0, count: 37)
            t.sampleRowBilinear(dst: &row, count: 37, u0: u0, v0: v0, du: du, dv: dv)
            for i in 0..<37 {
                let ref = referenceBilinear(9, 6, pattern, u0 + Double(i) * du, v0 + Double(i) * dv)
                #expect(near(row[i], ref, 3), "bilinear row \(i)")
            }
            t.sampleRowNearest(dst: &row, count: 37, u0: u0, v0: v0, du: du, dv: dv)
            for i in 0..<37 {
                // Fixed-point stepping may differ from exact at a texel boundary only.
                let u = u0 + Double(i) * du, v = v0 + Double(i) * dv
                let exact = t.sampleNearest(u: u, v: v)
                let nearBoundary = abs(u - u.rounded()) < 1e-3 || abs(v - v.rounded()) < 1e-3
                #expect(row[i] == exact || nearBoundary, "nearest row \(i)")
            }
        }
    }

    @Test func vectorRowsInsideLargeImagesMatchTheReference() {
        // 64x48: rows long enough that whole blocks of eight lie inside the image
        // (the vector paths), scaled (dv = 0) and rotated (dv != 0), and crossing the edges.
        let f: (Int, Int) -> UInt32 = { x, y in
            let a = UInt32((x * 5 + y * 3) % 200 + 55)
            return px(UInt32(x * 3) * a / 255, UInt32(y * 5) * a / 255, UInt32((x ^ y) & 255) * a / 255, a)
        }
        let t = makeTexture(64, 48, f)
        var row = [UInt32](repeating: 0, count: 150)
        for (u0, v0, du, dv) in [(3.3, 7.6, 0.37, 0.0), (-5.0, 20.2, 0.61, 0.0), (60.0, 47.9, -0.45, 0.0),
                                 (2.0, 3.0, 0.3, 0.2), (70.0, -3.0, -0.5, 0.35), (10.1, 40.7, 0.25, -0.2)] {
            t.sampleRowBilinear(dst: &row, count: 150, u0: u0, v0: v0, du: du, dv: dv)
            for i in 0..<150 {
                let ref = referenceBilinear(64, 48, f, u0 + Double(i) * du, v0 + Double(i) * dv)
                #expect(near(row[i], ref, 3), "row (\(u0), \(v0), \(du), \(dv)) pixel \(i): \(channels(row[i])) vs \(ref)")
                // Premultiplied stays valid: no colour channel above alpha.
                let c = channels(row[i])
                #expect(c[0] <= c[3] && c[1] <= c[3] && c[2] <= c[3])
            }
        }
    }

    @Test func scaledRowSamplerSharesSourceRows() {
        let f: (Int, Int) -> UInt32 = { x, y in
            let a = UInt32((x * 7 + y * 5) % 190 + 65)
            let b = UInt32(x * 5 % 256) * a / 255, g = UInt32(y * 9 % 256) * a / 255
            let r = UInt32((x + y) * 3 % 256) * a / 255
            return px(b, g, r, a)
        }
        let t = makeTexture(40, 30, f)
        // Magnified 1.7x with edges clamped on both sides; rows visited downwards, upwards and at random.
        let u0 = -0.8, du = 1 / 1.7, count = 77
        let sampler = ScaledRowSampler(texture: t, count: count, u0: u0, du: du)
        var rng = Rng(s: 5)
        var vs: [Double] = (0..<60).map { (k: Int) -> Double in -1 + Double(k) / 1.7 }
        vs += (0..<20).map { (k: Int) -> Double in 33 - Double(k) * 0.9 }
        for _ in 0..<20 { vs.append(rng.unit() * 34 - 2) }
        for v in vs {
            let row = sampler.row(v: v)
            for i in 0..<count {
                let ref = referenceBilinear(40, 30, f, u0 + Double(i) * du, v)
                #expect(near(row[i], ref, 3), "v \(v) pixel \(i)")
                let c = channels(row[i])
                #expect(c[0] <= c[3] && c[1] <= c[3] && c[2] <= c[3])
            }
        }
    }

    @Test func scaledRowsWrittenIntoADestinationEqualTheSampledRows() {
        // row(v:into:) writes what row(v:) returns, bilinear rows and whole rows
        // (v on a texel centre) alike, and leaves the pixels after `count` alone.
        let f: (Int, Int) -> UInt32 = { x, y in px(UInt32(x * 6 % 256), UInt32(y * 8 % 256), UInt32((x + y) * 3 % 256), 255) }
        let t = makeTexture(40, 30, f)
        let count = 77
        let sampler = ScaledRowSampler(texture: t, count: count, u0: -0.8, du: 1 / 1.7)
        var dst = [UInt32](repeating: 0xDEAD_BEEF, count: count + 3)
        for v in [-1.0, 0.5, 3.25, 7.5, 12.9, 29.5, 31.0] {
            let expected = Array(UnsafeBufferPointer(start: sampler.row(v: v), count: count))
            dst.withUnsafeMutableBufferPointer { sampler.row(v: v, into: $0.baseAddress!) }
            #expect(Array(dst[0..<count]) == expected, "v \(v)")
            #expect(dst[count...].allSatisfy { $0 == 0xDEAD_BEEF })
            // Opaque texels give opaque samples: blending them is a copy.
            #expect(expected.allSatisfy { $0 >> 24 == 255 })
        }
    }

    @Test func textureKnowsWhetherEveryTexelIsOpaque() {
        #expect(makeTexture(19, 5) { x, y in px(UInt32(x), UInt32(y), 0, 255) }.isOpaque)
        // One translucent texel, in the scalar tail of its row and in a vector block.
        #expect(!makeTexture(19, 5) { x, y in px(0, 0, 0, x == 18 && y == 4 ? 254 : 255) }.isOpaque)
        #expect(!makeTexture(19, 5) { x, y in px(0, 0, 0, x == 3 && y == 2 ? 0 : 255) }.isOpaque)
    }

    @Test func mipChainIsABoxFilter() {
        // 4x2 with alpha 255 and blue = 0, 40, 80, 120 on row 0 and 4, 44, 84, 124 on row 1.
        let t = makeTexture(4, 2) { x, y in px(UInt32(40 * x + 4 * y), 0, 0, 255) }
        let lv = t.levels(withMips: true)
        #expect(lv.count == 3 && t.levelCount == 3)
        #expect(lv[1].width == 2 && lv[1].height == 1)
        // (0 + 40 + 4 + 44) / 4 = 22; (80 + 120 + 84 + 124) / 4 = 102.
        #expect(lv[1][0, 0] == px(22, 0, 0, 255) && lv[1][1, 0] == px(102, 0, 0, 255))
        // Level 2: (22 + 102) / 2 = 62 (the clamped row counts twice: (22+102+22+102+2)/4 = 62.5 -> 62).
        #expect(lv[2][0, 0] == px(62, 0, 0, 255))
        // Odd sizes round up: 5x3 -> 3x2 -> 2x1 -> 1x1.
        let odd = makeTexture(5, 3, pattern).levels(withMips: true)
        #expect(odd.map { [$0.width, $0.height] } == [[5, 3], [3, 2], [2, 1], [1, 1]])
    }

    @Test func trilinearBlendsLevels() {
        let t = makeTexture(4, 2) { x, y in px(UInt32(40 * x + 4 * y), 0, 0, 255) }
        // lod 0 (and below) is level 0.
        #expect(t.sampleTrilinear(u: 0.5, v: 0.5, lod: -1) == t.sampleBilinear(u: 0.5, v: 0.5))
        // lod 1 at the first level-1 texel centre (u = 1, v = 1 in level-0 texels) is 22.
        #expect(t.sampleTrilinear(u: 1, v: 1, lod: 1) == px(22, 0, 0, 255))
        // lod 0.5 there: halfway between level 0 bilinear at (1, 1) = mean(0, 40, 4, 44) = 22 and 22.
        #expect(t.sampleTrilinear(u: 1, v: 1, lod: 0.5) == px(22, 0, 0, 255))
        // Beyond the last level: the 1x1 level (62).
        #expect(t.sampleTrilinear(u: 3, v: 1, lod: 40) == px(62, 0, 0, 255))
        // lod 1.5 at (1, 1): level 1 gives 22 at u=0.5 (its texel centre), level 2 gives 62: 42.
        #expect(t.sampleTrilinear(u: 1, v: 1, lod: 1.5) == px(42, 0, 0, 255))
    }

    @Test func levelOfDetailIsLog2OfTheFootprint() {
        #expect(abs(Texture.levelOfDetail(dudx: 4, dvdx: 0, dudy: 0, dvdy: 1) - 2) < 1e-12)
        #expect(abs(Texture.levelOfDetail(dudx: 3, dvdx: 4, dudy: 0, dvdy: 0) - log2(5)) < 1e-12)
        #expect(Texture.levelOfDetail(dudx: 0, dvdx: 0, dudy: 0, dvdy: 0) == -.infinity)
    }

    @Test func projectiveRowsDivideByW() {
        let t = makeTexture(16, 16) { x, y in px(UInt32(x * 15), UInt32(y * 15), 0, 255) }
        // w = 1 everywhere: the same as the affine row.
        var a = [UInt32](repeating: 0, count: 20), b = a
        t.sampleRowProjective(dst: &a, count: 20, start: SIMD3(0.7, 3.2, 1), step: SIMD3(0.6, 0.1, 0), filter: .linear)
        t.sampleRowBilinear(dst: &b, count: 20, u0: 0.7, v0: 3.2, du: 0.6, dv: 0.1)
        #expect(zip(a, b).allSatisfy { maxChannelDiff($0, $1) <= 1 })
        // A real homography: pixel i samples at ((0.5 + 0.8 i) / (1 + 0.05 i), (2 + 0.3 i) / (1 + 0.05 i)).
        let start = SIMD3(0.5, 2.0, 1.0), step = SIMD3(0.8, 0.3, 0.05)
        for filter in [TextureFilter.nearest, .linear] {
            t.sampleRowProjective(dst: &a, count: 20, start: start, step: step, filter: filter)
            for i in 0..<20 {
                let q = start + Double(i) * step
                let e = filter == .nearest ? t.sampleNearest(u: q.x / q.z, v: q.y / q.z) : t.sampleBilinear(u: q.x / q.z, v: q.y / q.z)
                #expect(a[i] == e, "pixel \(i)")
            }
        }
        // Behind the eye (w <= 0): transparent.
        // (z = -1, -0.5, 0, 0.5).
        t.sampleRowProjective(dst: &a, count: 4, start: SIMD3(1, 1, -1), step: SIMD3(0, 0, 0.5), filter: .trilinear)
        #expect(a[0] == 0 && a[1] == 0 && a[2] == 0 && a[3] != 0)
    }

    @Test func projectiveTrilinearUsesTheLocalFootprint() {
        // A texture whose level 2 is uniform: a footprint of 4 texels per pixel samples it.
        let t = makeTexture(16, 16) { x, y in (x + y) % 2 == 0 ? px(255, 255, 255, 255) : px(0, 0, 0, 255) }
        var a = [UInt32](repeating: 0, count: 4)
        t.sampleRowProjective(dst: &a, count: 4, start: SIMD3(2, 2, 1), step: SIMD3(4, 0, 0), filter: .trilinear)
        // Level 2 (4x4) of a checkerboard is uniform 128-grey: (255 * 2 + 2) / 4 = 128 at level 1, then 128.
        for p in a { #expect(maxChannelDiff(p, px(128, 128, 128, 255)) <= 1) }
        // A lod bias of -2 brings it back to level 0 (a pure black or white texel at its centre).
        t.sampleRowProjective(dst: &a, count: 1, start: SIMD3(0.5, 0.5, 1), step: SIMD3(4, 0, 0), filter: .trilinear, lodBias: -2)
        #expect(a[0] == px(255, 255, 255, 255))
    }
}

// MARK: - Blur

/// The discrete Gaussian: pixel-integrated weights Φ((k + ½)/σ) − Φ((k − ½)/σ).
private func gaussianWeights(_ sigma: Double) -> [Double] {
    let r = Int((4 * sigma).rounded(.up))
    func phi(_ x: Double) -> Double { 0.5 * (1 + erf(x / 2.0.squareRoot())) }
    return (-r...r).map { k in phi((Double(k) + 0.5) / sigma) - phi((Double(k) - 0.5) / sigma) }
}

@Suite struct RenderKernelBlurTests {
    @Test func extendedBoxesMatchTheVariance() {
        // Four passes. sigma 2: v = 1, r = floor(sqrt(13)/2 - 1/2) = 1, alpha = 3 (2/3 - 1) / (2 (1 - 4)) = 1/6;
        // check: (2 + 2 * (1/6) * 4) / (3 + 1/3) = (10/3) / (10/3) = 1.
        let b2 = extendedBox(sigma: 2)
        #expect(b2.radius == 1 && abs(b2.alpha - 1.0 / 6) < 1e-12)
        // sigma 3: v = 2.25, r = floor(sqrt(28)/2 - 1/2) = 2, alpha = 5 (2 - 2.25) / (2 (2.25 - 9)) = 5/54.
        let b3 = extendedBox(sigma: 3)
        #expect(b3.radius == 2 && abs(b3.alpha - 5.0 / 54) < 1e-12)
        #expect(extendedBox(sigma: 0) == (0, 0) && extendedBox(sigma: .nan) == (0, 0))
        #expect(blurExtent(sigma: 3) == 12 && blurExtent(sigma: 1) == 4 && blurExtent(sigma: 0) == 0)
        // The direct kernel for small sigma sums to 1 and is symmetric.
        let k = gaussianKernel(sigma: 1)
        #expect(k.count == 9 && abs(k.reduce(0, +) - 1) < 1e-6 && k[0] == k[8])
    }

    @Test(arguments: [0.7, 1.0, 1.9, 2.0, 2.5, 3.0, 4.0, 6.0, 8.0, 15.0, 24.0])
    func blurMatchesATrueGaussianWithinTwoPercent(sigma: Double) {
        // A 255 rectangle and a lone pixel, padded by 4 sigma, blurred; the
        // reference is the separable convolution with the discrete Gaussian.
        let pad = Int((4 * sigma).rounded(.up)) + 2
        let w = 30 + 2 * pad, h = 12 + 2 * pad
        let m = MaskBitmap(width: w, height: h)!
        var src = [[Double]](repeating: [Double](repeating: 0, count: w), count: h)
        for y in pad..<(pad + 12) { for x in pad..<(pad + 20) { src[y][x] = 255 } }
        src[pad + 5][pad + 27] = 255
        for y in 0..<h { for x in 0..<w { m.mask[x, y] = UInt8(src[y][x]) } }
        gaussianBlur(mask: m, sigma: sigma)
        let g = gaussianWeights(sigma), r = g.count / 2
        var tmp = src
        for y in 0..<h { for x in 0..<w {
            var s = 0.0
            for k in -r...r where x + k >= 0 && x + k < w { s += src[y][x + k] * g[k + r] }
            tmp[y][x] = s
        } }
        var worst = 0.0
        for y in 0..<h { for x in 0..<w {
            var s = 0.0
            for k in -r...r where y + k >= 0 && y + k < h { s += tmp[y + k][x] * g[k + r] }
            worst = max(worst, abs(Double(m.mask[x, y]) - s))
        } }
        #expect(worst <= 0.02 * 255, "sigma \(sigma): max difference \(worst)")
    }

    @Test func edgesArePaddedWithZero() {
        // An all-255 mask: far from the edges it stays 255; at a corner about
        // a quarter of the Gaussian lies inside (Φ(0.5/2)² ≈ 0.36 -> about 92).
        let m = MaskBitmap(width: 40, height: 40)!
        m.mask.fill(255)
        gaussianBlur(mask: m, sigma: 2)
        #expect(m.mask[20, 20] == 255)
        #expect(abs(Int(m.mask[0, 0]) - 92) <= 5, "\((0..<6).map { m.mask[$0, 0] }) \((0..<6).map { m.mask[$0, 20] })")
        // sigma <= 0 leaves the mask alone.
        gaussianBlur(mask: m, sigma: 0)
        gaussianBlur(mask: m, sigma: -.infinity)
        #expect(m.mask[20, 20] == 255)
    }

    @Test func shadowRadiusMapsToHalfAsSigma() {
        #expect(shadowSigma(radius: 3) == 1.5)
        #expect(shadowSigma(radius: 3, scale: 2) == 3)
        #expect(shadowSigma(radius: -1) == 0 && shadowSigma(radius: .nan) == 0)
        #expect(shadowSigma(radius: 1e9) == 512)
    }
}

// MARK: - Coverage

/// Coverage of a pixel by a shape from n x n point samples (the reference).
private func supersampled(_ inside: (Double, Double) -> Bool, _ x: Int, _ y: Int, _ n: Int = 32) -> Double {
    var c = 0
    for j in 0..<n { for i in 0..<n where inside(Double(x) + (Double(i) + 0.5) / Double(n), Double(y) + (Double(j) + 0.5) / Double(n)) { c += 1 } }
    return Double(c) / Double(n * n) * 255
}

private func insideRoundedRect(_ px: Double, _ py: Double, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, _ r: Double) -> Bool {
    if px < x0 || px >= x1 || py < y0 || py >= y1 { return false }
    let cx = min(max(px, x0 + r), x1 - r), cy = min(max(py, y0 + r), y1 - r)
    return (px - cx) * (px - cx) + (py - cy) * (py - cy) <= r * r
}

@Suite struct RenderKernelCoverageTests {
    @Test func roundedRectStraightEdgesAreExactAreas() {
        let m = MaskBitmap(width: 10, height: 6)!
        let touched = rasterizeRoundedRectCoverage(into: m, rect: CGRect(x: 2.25, y: 1.5, width: 4.5, height: 3), cornerRadius: 0)
        // Pixel (2, 1): 0.75 x 0.5 = 0.375 -> 95.6 -> 96; (4, 2) inside -> 255; (6, 4): 0.75 x 0.5 -> 96.
        #expect(m.mask[2, 1] == 96 && m.mask[4, 2] == 255 && m.mask[6, 4] == 96)
        // (3, 1): 1 x 0.5 -> 128; (6, 2): 0.75 -> 191; outside: 0.
        #expect(m.mask[3, 1] == 128 && m.mask[6, 2] == 191)
        #expect(m.mask[7, 2] == 0 && m.mask[1, 2] == 0 && m.mask[4, 0] == 0 && m.mask[4, 5] == 0)
        #expect(touched == PixelBox(x: 2, y: 1, width: 5, height: 4))
    }

    @Test func roundedCornersMatchSupersampling() {
        let m = MaskBitmap(width: 40, height: 30)!
        let (x0, y0, x1, y1, r) = (3.3, 2.6, 35.1, 27.0, 9.0)
        rasterizeRoundedRectCoverage(into: m, rect: CGRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0), cornerRadius: r)
        var worst = 0.0, total = 0.0
        for y in 0..<30 { for x in 0..<40 {
            let ref = supersampled({ insideRoundedRect($0, $1, x0, y0, x1, y1, r) }, x, y)
            worst = max(worst, abs(Double(m.mask[x, y]) - ref))
            total += Double(m.mask[x, y])
        } }
        #expect(worst <= 0.08 * 255, "worst pixel \(worst)")
        // Area: w h - (4 - π) r².
        let area = (x1 - x0) * (y1 - y0) - (4 - Double.pi) * r * r
        #expect(abs(total / 255 - area) / area < 0.005)
        // (10, 0)-style check on a circle: rect (0, 0, 20, 20), r 10; pixel (10, 0)
        // has its centre (10.5, 0.5) at 9.513 from (10, 10): coverage 0.5 + 0.487 = 0.987 -> 252.
        let c = MaskBitmap(width: 20, height: 20)!
        rasterizeRoundedRectCoverage(into: c, rect: CGRect(x: 0, y: 0, width: 20, height: 20), cornerRadius: 10)
        #expect(c.mask[10, 0] == 252 && c.mask[0, 0] == 0 && c.mask[10, 10] == 255)
    }

    @Test func radiusIsClampedToHalfTheShorterSide() {
        let a = MaskBitmap(width: 24, height: 12)!, b = MaskBitmap(width: 24, height: 12)!
        rasterizeRoundedRectCoverage(into: a, rect: CGRect(x: 1, y: 1, width: 20, height: 10), cornerRadius: 1000)
        rasterizeRoundedRectCoverage(into: b, rect: CGRect(x: 1, y: 1, width: 20, height: 10), cornerRadius: 5)
        #expect((0..<12).allSatisfy { y in (0..<24).allSatisfy { a.mask[$0, y] == b.mask[$0, y] } })
        // NaN and empty rectangles give nothing (and do not trap).
        #expect(rasterizeRoundedRectCoverage(into: a, rect: CGRect(x: .nan, y: 0, width: 5, height: 5), cornerRadius: 1).isEmpty)
        #expect(rasterizeRoundedRectCoverage(into: a, rect: CGRect(x: 0, y: 0, width: 0, height: 5), cornerRadius: 1).isEmpty)
        #expect(rasterizeRoundedRectCoverage(into: a, rect: CGRect(x: 1e300, y: -1e300, width: 1e300, height: 5), cornerRadius: .nan).isEmpty)
        #expect((0..<12).allSatisfy { y in (0..<24).allSatisfy { a.mask[$0, y] == 0 } })
    }

    @Test func aliasedRoundedRectTestsPixelCentres() {
        let m = MaskBitmap(width: 8, height: 8)!
        rasterizeRoundedRectCoverage(into: m, rect: CGRect(x: 1.6, y: 1.4, width: 4, height: 4), cornerRadius: 0, antialias: false)
        // Centres x + 0.5 in [1.6, 5.6): x = 2...5; y + 0.5 in [1.4, 5.4): y = 1...4.
        for y in 0..<8 { for x in 0..<8 {
            let inside = (2...5).contains(x) && (1...4).contains(y)
            #expect(m.mask[x, y] == (inside ? 255 : 0), "(\(x), \(y))")
        } }
    }

    @Test func axisAlignedQuadIsTheRectangle() {
        let q = MaskBitmap(width: 10, height: 6)!, r = MaskBitmap(width: 10, height: 6)!
        let rect = CGRect(x: 2.25, y: 1.5, width: 4.5, height: 3)
        rasterizeRoundedRectCoverage(into: r, rect: rect, cornerRadius: 0)
        // Both windings.
        for corners in [[CGPoint(x: 2.25, y: 1.5), CGPoint(x: 6.75, y: 1.5), CGPoint(x: 6.75, y: 4.5), CGPoint(x: 2.25, y: 4.5)],
                        [CGPoint(x: 2.25, y: 4.5), CGPoint(x: 6.75, y: 4.5), CGPoint(x: 6.75, y: 1.5), CGPoint(x: 2.25, y: 1.5)]] {
            rasterizeQuadCoverage(into: q, corners: corners, edgeMask: 0xF)
            for y in 0..<6 { for x in 0..<10 { #expect(abs(Int(q.mask[x, y]) - Int(r.mask[x, y])) <= 1, "(\(x), \(y))") } }
        }
    }

    @Test func rotatedQuadMatchesSupersampling() {
        // A square of side 20 rotated by 30° about (25, 25).
        let c = 25.0, h = 10.0, a = Double.pi / 6
        let corners = [(-h, -h), (h, -h), (h, h), (-h, h)].map { (x, y) in
            CGPoint(x: c + x * cos(a) - y * sin(a), y: c + x * sin(a) + y * cos(a))
        }
        let m = MaskBitmap(width: 50, height: 50)!
        let touched = rasterizeQuadCoverage(into: m, corners: corners, edgeMask: 0xF)
        func inside(_ x: Double, _ y: Double) -> Bool {
            let dx = x - c, dy = y - c
            let u = dx * cos(a) + dy * sin(a), v = -dx * sin(a) + dy * cos(a)
            return abs(u) < h && abs(v) < h
        }
        var worst = 0.0, total = 0.0
        for y in 0..<50 { for x in 0..<50 {
            worst = max(worst, abs(Double(m.mask[x, y]) - supersampled(inside, x, y)))
            total += Double(m.mask[x, y]) / 255
        } }
        #expect(worst <= 0.15 * 255, "worst \(worst)")
        #expect(abs(total - 400) < 2)
        #expect(touched.x <= 11 && touched.maxX >= 39 && touched.y <= 11 && touched.maxY >= 39)
    }

    @Test func edgeMaskControlsWhichEdgesAntialias() {
        let m = MaskBitmap(width: 10, height: 10)!
        let corners = [CGPoint(x: 1.5, y: 2.5), CGPoint(x: 8.5, y: 2.5), CGPoint(x: 8.5, y: 7.5), CGPoint(x: 1.5, y: 7.5)]
        rasterizeQuadCoverage(into: m, corners: corners, edgeMask: 0)
        // No antialiasing: only 0 and 255; centres x + 0.5 in [1.5, 8.5] -> x 1...8 (on the edge counts),
        // y + 0.5 in [2.5, 7.5] -> y 2...7.
        #expect((0..<10).allSatisfy { y in (0..<10).allSatisfy { m.mask[$0, y] == 0 || m.mask[$0, y] == 255 } })
        #expect(m.mask[1, 2] == 255 && m.mask[0, 5] == 0 && m.mask[8, 7] == 255 && m.mask[9, 5] == 0)
        // Only the left edge (corners[3] -> corners[0], minX) antialiased: column 1 is half covered.
        rasterizeQuadCoverage(into: m, corners: corners, edgeMask: UInt32(kCALayerLeftEdge.rawValue))
        #expect(m.mask[1, 5] == 128 && m.mask[8, 5] == 255 && m.mask[5, 2] == 255)
        // Only the minY edge (kCALayerBottomEdge): row 2 half covered.
        rasterizeQuadCoverage(into: m, corners: corners, edgeMask: UInt32(kCALayerBottomEdge.rawValue))
        #expect(m.mask[5, 2] == 128 && m.mask[1, 5] == 255 && m.mask[5, 7] == 255)
    }

    @Test func degenerateQuadsAreEmpty() {
        let m = MaskBitmap(width: 8, height: 8)!
        let p = CGPoint(x: 3, y: 3)
        #expect(rasterizeQuadCoverage(into: m, corners: [p, p, p, p]).isEmpty)
        #expect(rasterizeQuadCoverage(into: m, corners: [p, p]).isEmpty)
        #expect(rasterizeQuadCoverage(into: m, corners: [p, CGPoint(x: .nan, y: 1), p, p]).isEmpty)
        #expect(rasterizeQuadCoverage(into: m, corners: [CGPoint(x: -1e300, y: -1e300), CGPoint(x: 1e300, y: -1e300),
                                                          CGPoint(x: 1e300, y: 1e300), CGPoint(x: -1e300, y: 1e300)]) ==
                PixelBox(x: 0, y: 0, width: 8, height: 8))
        #expect(m.mask[4, 4] == 255)
    }

    @Test func pathCoverageOfARectangleAndACircle() throws {
        let rectPath = try PathData([.moveTo(CGPoint(x: 2.25, y: 1.5)), .lineTo(CGPoint(x: 6.75, y: 1.5)),
                                     .lineTo(CGPoint(x: 6.75, y: 4.5)), .lineTo(CGPoint(x: 2.25, y: 4.5)), .closeSubpath])
        let m = MaskBitmap(width: 10, height: 6)!
        rasterizePathCoverage(into: m, path: rectPath)
        // Same expected areas as the rounded-rect test (16 sample rows: 0.5 is exact).
        #expect(m.mask[2, 1] == 96 && m.mask[4, 2] == 255 && m.mask[6, 4] == 96 && m.mask[3, 1] == 128 && m.mask[7, 2] == 0)
        // A circle of radius 10 at (15, 15) with four cubic arcs: area π r² within 0.5%.
        let k = 0.5522847498 * 10
        let circle = try PathData([.moveTo(CGPoint(x: 25, y: 15)),
                                   .curveTo(CGPoint(x: 25, y: 15 + k), CGPoint(x: 15 + k, y: 25), CGPoint(x: 15, y: 25)),
                                   .curveTo(CGPoint(x: 15 - k, y: 25), CGPoint(x: 5, y: 15 + k), CGPoint(x: 5, y: 15)),
                                   .curveTo(CGPoint(x: 5, y: 15 - k), CGPoint(x: 15 - k, y: 5), CGPoint(x: 15, y: 5)),
                                   .curveTo(CGPoint(x: 15 + k, y: 5), CGPoint(x: 25, y: 15 - k), CGPoint(x: 25, y: 15)),
                                   .closeSubpath])
        let c = MaskBitmap(width: 30, height: 30)!
        rasterizePathCoverage(into: c, path: circle)
        var total = 0.0, worst = 0.0
        for y in 0..<30 { for x in 0..<30 {
            total += Double(c.mask[x, y]) / 255
            let ref = supersampled({ ($0 - 15) * ($0 - 15) + ($1 - 15) * ($1 - 15) < 100 }, x, y)
            worst = max(worst, abs(Double(c.mask[x, y]) - ref))
        } }
        #expect(abs(total - Double.pi * 100) / (Double.pi * 100) < 0.005)
        #expect(worst <= 0.08 * 255, "worst \(worst)")
        // Through a transform: scaled by 0.5 and moved, the same circle has a quarter of the area.
        rasterizePathCoverage(into: c, path: circle, transform: CGAffineTransform(a: 0.5, b: 0, c: 0, d: 0.5, tx: 3, ty: 3))
        total = 0
        for y in 0..<30 { for x in 0..<30 { total += Double(c.mask[x, y]) / 255 } }
        #expect(abs(total - Double.pi * 25) / (Double.pi * 25) < 0.01)
    }

    @Test func pathWindingRules() throws {
        // Two overlapping squares drawn the same way round: nonzero fills the overlap, even-odd leaves it empty.
        func square(_ x: Double, _ y: Double, _ s: Double) -> [PathElement] {
            [.moveTo(CGPoint(x: x, y: y)), .lineTo(CGPoint(x: x + s, y: y)), .lineTo(CGPoint(x: x + s, y: y + s)),
             .lineTo(CGPoint(x: x, y: y + s)), .closeSubpath]
        }
        let p = try PathData(square(1, 1, 6) + square(4, 4, 6))
        let m = MaskBitmap(width: 12, height: 12)!
        rasterizePathCoverage(into: m, path: p)
        #expect(m.mask[5, 5] == 255 && m.mask[2, 2] == 255 && m.mask[8, 8] == 255 && m.mask[8, 2] == 0)
        rasterizePathCoverage(into: m, path: p, evenOdd: true)
        #expect(m.mask[5, 5] == 0 && m.mask[2, 2] == 255 && m.mask[8, 8] == 255)
        // Aliased: pixel centres only.
        let q = try PathData(square(1.6, 1.6, 3))
        rasterizePathCoverage(into: m, path: q, antialias: false)
        // Centres in [1.6, 4.6): 2, 3, 4 (4.5 < 4.6).
        #expect(m.mask[2, 2] == 255 && m.mask[4, 4] == 255 && m.mask[1, 2] == 0 && m.mask[5, 2] == 0)
        // Parts outside the mask are cut off, and an empty path is nothing.
        #expect(rasterizePathCoverage(into: m, path: try PathData(square(-50, -50, 200))) == PixelBox(x: 0, y: 0, width: 12, height: 12))
        #expect(m.mask[0, 0] == 255 && m.mask[11, 11] == 255)
        #expect(rasterizePathCoverage(into: m, path: PathData()).isEmpty)
    }

    @Test func polygonCoverageMatchesPaths() throws {
        // The same rectangle as a polygon: the same areas as through a path.
        let rect = [CGPoint(x: 2.25, y: 1.5), CGPoint(x: 6.75, y: 1.5), CGPoint(x: 6.75, y: 4.5), CGPoint(x: 2.25, y: 4.5)]
        let m = MaskBitmap(width: 10, height: 6)!
        #expect(rasterizePolygonCoverage(into: m.mask, polygons: [rect]) == PixelBox(x: 2, y: 1, width: 5, height: 4))
        #expect(m.mask[2, 1] == 96 && m.mask[4, 2] == 255 && m.mask[6, 4] == 96 && m.mask[3, 1] == 128 && m.mask[7, 2] == 0)
        // Nonzero: a square inside another drawn the other way round is a hole;
        // drawn the same way round it is filled.
        func square(_ x: Double, _ y: Double, _ s: Double) -> [CGPoint] {
            [CGPoint(x: x, y: y), CGPoint(x: x + s, y: y), CGPoint(x: x + s, y: y + s), CGPoint(x: x, y: y + s)]
        }
        let b = MaskBitmap(width: 12, height: 12)!
        rasterizePolygonCoverage(into: b.mask, polygons: [square(1, 1, 10), square(4, 4, 4).reversed()])
        #expect(b.mask[2, 2] == 255 && b.mask[5, 5] == 0 && b.mask[9, 9] == 255)
        rasterizePolygonCoverage(into: b.mask, polygons: [square(1, 1, 10), square(4, 4, 4)])
        #expect(b.mask[5, 5] == 255)
        #expect(rasterizePolygonCoverage(into: b.mask, polygons: [square(1, 1, 3) + [CGPoint(x: .nan, y: 2)]]).isEmpty)
        // An ellipse flattened to a polygon gives the mask of the same path.
        let ellipse = (0..<64).map { i -> CGPoint in
            let t = Double(i) * 2 * Double.pi / 64
            return CGPoint(x: 15 + 12.3 * cos(t), y: 10 + 7.7 * sin(t))
        }
        let viaPath = MaskBitmap(width: 30, height: 20)!, viaPolygon = MaskBitmap(width: 30, height: 20)!
        var elements: [PathElement] = [.moveTo(ellipse[0])]
        for p in ellipse.dropFirst() { elements.append(.lineTo(p)) }
        elements.append(.closeSubpath)
        let r1 = rasterizePathCoverage(into: viaPath, path: try PathData(elements))
        let r2 = rasterizePolygonCoverage(into: viaPolygon.mask, polygons: [ellipse])
        #expect(r1 == r2 && !r1.isEmpty)
        var same = true
        for y in 0..<20 { for x in 0..<30 where viaPath.mask[x, y] != viaPolygon.mask[x, y] { same = false } }
        #expect(same)
        // The spans handed over row by row hold every covered pixel, rows in order.
        var edges = CoverageEdges(height: 20)
        let added = edges.add(polygon: ellipse)
        #expect(added)
        let spans = MaskBitmap(width: 30, height: 20)!
        var rows: [(y: Int, xs: Int, xe: Int)] = []
        edges.rasterize(into: spans.mask, evenOdd: false, antialias: true) { rows.append(($0, $1, $2)) }
        #expect(rows.map(\.y) == Array(rows.first!.y...rows.last!.y) && rows.count > 10)
        var inside = true
        for y in 0..<20 { for x in 0..<30 where viaPath.mask[x, y] != 0 {
            guard let r = rows.first(where: { $0.y == y }), x >= r.xs, x < r.xe, spans.mask[x, y] == viaPath.mask[x, y] else {
                inside = false; continue
            }
        } }
        #expect(inside)
    }
}

// MARK: - Placement

private func near(_ r: CGRect, _ x: Double, _ y: Double, _ w: Double, _ h: Double) -> Bool {
    abs(r.origin.x - x) < 1e-9 && abs(r.origin.y - y) < 1e-9 && abs(r.size.width - w) < 1e-9 && abs(r.size.height - h) < 1e-9
}

@Suite struct RenderKernelPlacementTests {
    let bounds = CGRect(x: 10, y: 20, width: 100, height: 50)
    let size = CGSize(width: 40, height: 30)

    func g(_ name: String, flipped: Bool = false) -> CGRect {
        contentsGravityRect(gravity: ConstantSet.gravity.index(of: name)!, bounds: bounds, contentSize: size, geometryFlipped: flipped)
    }

    @Test func allTwelveGravities() {
        // Centre: x = 60 - 20 = 40, y = 45 - 15 = 30. Top is minY (20), bottom is 20 + 50 - 30 = 40.
        #expect(near(g("center"), 40, 30, 40, 30))
        #expect(near(g("top"), 40, 20, 40, 30))
        #expect(near(g("bottom"), 40, 40, 40, 30))
        #expect(near(g("left"), 10, 30, 40, 30))
        #expect(near(g("right"), 70, 30, 40, 30))
        #expect(near(g("topLeft"), 10, 20, 40, 30))
        #expect(near(g("topRight"), 70, 20, 40, 30))
        #expect(near(g("bottomLeft"), 10, 40, 40, 30))
        #expect(near(g("bottomRight"), 70, 40, 40, 30))
        #expect(near(g("resize"), 10, 20, 100, 50))
        // Aspect: scale min(100/40, 50/30) = 5/3 -> 66.67 x 50, centred: x = 60 - 33.33.
        #expect(near(g("resizeAspect"), 60 - 100.0 / 3, 20, 200.0 / 3, 50))
        // Fill: scale 2.5 -> 100 x 75, centred: y = 45 - 37.5 = 7.5.
        #expect(near(g("resizeAspectFill"), 10, 7.5, 100, 75))
    }

    @Test func geometryFlippedSwapsTopAndBottom() {
        #expect(near(g("top", flipped: true), 40, 40, 40, 30))
        #expect(near(g("bottomLeft", flipped: true), 10, 20, 40, 30))
        #expect(near(g("left", flipped: true), 10, 30, 40, 30))
        #expect(near(g("resizeAspect", flipped: true), 60 - 100.0 / 3, 20, 200.0 / 3, 50))
    }

    @Test func gravityEdgeCases() {
        #expect(near(contentsGravityRect(gravity: 200, bounds: bounds, contentSize: size, geometryFlipped: false), 10, 20, 100, 50))
        let empty = contentsGravityRect(gravity: 10, bounds: bounds, contentSize: CGSize(width: 0, height: 5), geometryFlipped: false)
        #expect(near(empty, 60, 45, 0, 0))
        let nan = contentsGravityRect(gravity: 11, bounds: bounds, contentSize: CGSize(width: .nan, height: 5), geometryFlipped: false)
        #expect(near(nan, 60, 45, 0, 0))
    }

    @Test func ninePartStretching() {
        // 30x30 px image, centre (1/3, 1/3, 1/3, 1/3): 10 px corners; at scale 1 into 100 x 60 pt.
        let s = ninePartSlices(contentsRect: CGRect(x: 0, y: 0, width: 1, height: 1),
                               contentsCenter: CGRect(x: 1.0 / 3, y: 1.0 / 3, width: 1.0 / 3, height: 1.0 / 3),
                               imagePixelSize: CGSize(width: 30, height: 30), destRect: CGRect(x: 0, y: 0, width: 100, height: 60),
                               contentsScale: 1)
        #expect(s.count == 9)
        let xs = [0.0, 10, 90, 100], ys = [0.0, 10, 50, 60], sx = [0.0, 10, 20, 30]
        for j in 0..<3 { for i in 0..<3 {
            let p = s[j * 3 + i]
            #expect(near(p.dst, xs[i], ys[j], xs[i + 1] - xs[i], ys[j + 1] - ys[j]), "dst \(i), \(j)")
            #expect(near(p.src, sx[i], sx[j], 10, 10), "src \(i), \(j)")
        } }
        // contentsScale 2: the 10 px corners are 5 pt.
        let s2 = ninePartSlices(contentsRect: CGRect(x: 0, y: 0, width: 1, height: 1),
                                contentsCenter: CGRect(x: 1.0 / 3, y: 1.0 / 3, width: 1.0 / 3, height: 1.0 / 3),
                                imagePixelSize: CGSize(width: 30, height: 30), destRect: CGRect(x: 0, y: 0, width: 100, height: 60),
                                contentsScale: 2)
        #expect(near(s2[4].dst, 5, 5, 90, 50))
    }

    @Test func ninePartShrinksFixedEdgesWhenTooSmall() {
        // 10 pt wide destination for 10 + 20 px fixed columns (centre (0.25, 0, 0.25, 1) of 40 px):
        // edges scale by 10/30: 3.33 and 6.67, the centre column gets nothing.
        let s = ninePartSlices(contentsRect: CGRect(x: 0, y: 0, width: 1, height: 1),
                               contentsCenter: CGRect(x: 0.25, y: 0, width: 0.25, height: 1),
                               imagePixelSize: CGSize(width: 40, height: 8), destRect: CGRect(x: 5, y: 0, width: 10, height: 16),
                               contentsScale: 1)
        #expect(s.count == 2)
        #expect(near(s[0].dst, 5, 0, 10.0 / 3, 16) && near(s[0].src, 0, 0, 10, 8))
        #expect(near(s[1].dst, 5 + 10.0 / 3, 0, 20.0 / 3, 16) && near(s[1].src, 20, 0, 20, 8))
    }

    @Test func ninePartDefaultsAndContentsRect() {
        // Default centre: one piece; contentsRect picks the right half of a 60 x 30 image.
        let s = ninePartSlices(contentsRect: CGRect(x: 0.5, y: 0, width: 0.5, height: 1), contentsCenter: CGRect(x: 0, y: 0, width: 1, height: 1),
                               imagePixelSize: CGSize(width: 60, height: 30), destRect: CGRect(x: 1, y: 2, width: 7, height: 9),
                               contentsScale: 1)
        #expect(s.count == 1)
        #expect(near(s[0].src, 30, 0, 30, 30) && near(s[0].dst, 1, 2, 7, 9))
        #expect(ninePartSlices(contentsRect: CGRect(x: .nan, y: 0, width: 1, height: 1), contentsCenter: CGRect(x: 0, y: 0, width: 1, height: 1),
                               imagePixelSize: CGSize(width: 4, height: 4), destRect: CGRect(x: 0, y: 0, width: 4, height: 4),
                               contentsScale: 1).isEmpty)
    }
}

// MARK: - Whole operations

@Suite struct RenderKernelCompositeTests {
    /// A translucent premultiplied pattern.
    let pattern: (Int, Int) -> UInt32 = { x, y in
        let a = UInt32(80 + (x * 13 + y * 7) % 176)
        return px(UInt32(x * 9 % 256) * a / 255, UInt32(y * 11 % 256) * a / 255, 100 * a / 255, a)
    }

    func background(_ w: Int, _ h: Int) -> Bitmap {
        let b = Bitmap(width: w, height: h)!
        for y in 0..<h { for x in 0..<w { b.surface[x, y] = px(UInt32(x * 3 % 256), UInt32(y * 5 % 256), 40, 255) } }
        return b
    }

    @Test func identityMapOnWholePixelsIsCompositeOver() {
        let t = makeTexture(20, 12, pattern)
        let a = background(40, 30), b = background(40, 30)
        // The quad (5, 7)-(25, 19); texel = pixel - (5, 7): at pixel centres the bilinear sample is the texel itself.
        let corners = [CGPoint(x: 5, y: 7), CGPoint(x: 25, y: 7), CGPoint(x: 25, y: 19), CGPoint(x: 5, y: 19)]
        let touched = compositeImageQuad(dst: a.surface, texture: t, map: TexelMap(a: 1, b: 0, c: -5, d: 0, e: 1, f: -7),
                                         corners: corners, opacity: 200)
        compositeOver(dst: b.surface, x: 5, y: 7, src: t.base.surface, opacity: 200)
        #expect((0..<30).allSatisfy { y in (0..<40).allSatisfy { a.surface[$0, y] == b.surface[$0, y] } })
        #expect(touched == PixelBox(x: 5, y: 7, width: 20, height: 12))
    }

    @Test(arguments: [TexelMap(a: 0.5, b: 0, c: -2, d: 0, e: 0.5, f: -2),                         // 2x magnification
                      TexelMap(a: 0.4, b: -0.3, c: 3, d: 0.3, e: 0.4, f: -6),                       // rotated and scaled
                      TexelMap(a: 0.5, b: 0, c: -2, d: 0, e: 0.5, f: -2, g: 0.01, h: 0.005, i: 1)]) // perspective
    func mappedQuadsMatchPerPixelSamples(map: TexelMap) {
        let t = makeTexture(16, 16, pattern)
        let a = background(48, 40), ref = background(48, 40)
        let corners = [CGPoint(x: 4.3, y: 4.6), CGPoint(x: 40.2, y: 6.1), CGPoint(x: 37.5, y: 35.2), CGPoint(x: 6.4, y: 33.9)]
        compositeImageQuad(dst: a.surface, texture: t, map: map, corners: corners, edgeMask: 0xF, filter: .linear, opacity: 230)
        // The reference: the quad's coverage mask and single bilinear samples, blended pixel by pixel.
        let m = MaskBitmap(width: 48, height: 40)!
        rasterizeQuadCoverage(into: m, corners: corners, edgeMask: 0xF)
        var worst = 0
        for y in 0..<40 { for x in 0..<48 {
            let cx = Double(x) + 0.5, cy = Double(y) + 0.5
            let w = map.g * cx + map.h * cy + map.i
            let s = t.sampleBilinear(u: (map.a * cx + map.b * cy + map.c) / w, v: (map.d * cx + map.e * cy + map.f) / w)
            let f = div255(UInt32(m.mask[x, y]) * 230)
            if f > 0 && s != 0 { ref.surface[x, y] = overPixel(scalePixel(s, f), ref.surface[x, y]) }
            worst = max(worst, maxChannelDiff(a.surface[x, y], ref.surface[x, y]))
        } }
        #expect(worst <= 2, "largest channel difference \(worst)")
    }

    @Test func trilinearQuadsUseTheMapsFootprint() {
        // A checkerboard minified 4x: level 2 is uniform grey (128).
        let t = makeTexture(64, 64) { x, y in (x + y) % 2 == 0 ? px(255, 255, 255, 255) : px(0, 0, 0, 255) }
        let d = Bitmap(width: 16, height: 16)!
        compositeImageQuad(dst: d.surface, texture: t, map: TexelMap(a: 4, b: 0, c: 0, d: 0, e: 4, f: 0),
                           corners: [CGPoint(x: 0, y: 0), CGPoint(x: 16, y: 0), CGPoint(x: 16, y: 16), CGPoint(x: 0, y: 16)],
                           filter: .trilinear)
        #expect((2..<14).allSatisfy { y in (2..<14).allSatisfy { maxChannelDiff(d.surface[$0, y], px(128, 128, 128, 255)) <= 1 } })
    }

    @Test func fillsMatchTheirMasks() {
        let corners = [CGPoint(x: 3.5, y: 2.2), CGPoint(x: 20.1, y: 5.5), CGPoint(x: 17.3, y: 18.8), CGPoint(x: 1.2, y: 14.4)]
        let color = px(30, 60, 90, 160)
        let a = background(24, 24), b = background(24, 24)
        fillQuad(dst: a.surface, corners: corners, edgeMask: 0b0101, color: color)
        let m = MaskBitmap(width: 24, height: 24)!
        rasterizeQuadCoverage(into: m, corners: corners, edgeMask: 0b0101)
        fillMaskOver(dst: b.surface, x: 0, y: 0, mask: m.mask, color: color)
        #expect((0..<24).allSatisfy { y in (0..<24).allSatisfy { a.surface[$0, y] == b.surface[$0, y] } })
        // Rounded rectangle, clipped: outside the clip nothing changes.
        let c = background(30, 20), e = background(30, 20)
        let clip = PixelBox(x: 0, y: 0, width: 15, height: 20)
        fillRoundedRect(dst: c.surface, clip: clip, rect: CGRect(x: 2.5, y: 3.25, width: 22, height: 13), cornerRadius: 4, color: color)
        let rm = MaskBitmap(width: 30, height: 20)!
        rasterizeRoundedRectCoverage(into: rm, rect: CGRect(x: 2.5, y: 3.25, width: 22, height: 13), cornerRadius: 4)
        for y in 0..<20 { for x in 15..<30 { rm.mask[x, y] = 0 } }
        fillMaskOver(dst: e.surface, x: 0, y: 0, mask: rm.mask, color: color)
        #expect((0..<20).allSatisfy { y in (0..<30).allSatisfy { c.surface[$0, y] == e.surface[$0, y] } })
    }

    @Test(arguments: [(CGRect(x: 20.3, y: 15.6, width: 150.2, height: 80.5), 12.0, 3.0),
                      (CGRect(x: 30, y: 40, width: 60, height: 90), 0.0, 6.0),
                      (CGRect(x: 25.5, y: 30.25, width: 20, height: 12), 30.0, 2.5),     // small: no shrinking
                      (CGRect(x: 12.75, y: 18, width: 170, height: 70), 35.0, 1.5)])   // direct-kernel sigma
    func roundedShadowsMatchAFullBlur(rect: CGRect, radius: Double, sigma: Double) {
        let color = px(0, 0, 0, 128)
        let a = background(220, 140), b = background(220, 140)
        let clip = PixelBox(x: 0, y: 0, width: 200, height: 130)
        fillRoundedRectShadow(dst: a.surface, clip: clip, rect: rect, cornerRadius: radius, sigma: sigma, color: color)
        // The reference: the full rectangle's coverage, blurred whole, through fillMaskOver.
        let m = MaskBitmap(width: 220, height: 140)!
        rasterizeRoundedRectCoverage(into: m, rect: rect, cornerRadius: radius)
        gaussianBlur(mask: m, sigma: sigma)
        for y in 0..<140 { for x in 200..<220 { m.mask[x, y] = 0 } }
        for x in 0..<220 { for y in 130..<140 { m.mask[x, y] = 0 } }
        fillMaskOver(dst: b.surface, x: 0, y: 0, mask: m.mask, color: color)
        var worst = 0
        for y in 0..<140 { for x in 0..<220 { worst = max(worst, maxChannelDiff(a.surface[x, y], b.surface[x, y])) } }
        #expect(worst <= 1, "largest channel difference \(worst)")
    }

    @Test func badInputDrawsNothing() {
        let t = makeTexture(4, 4, pattern)
        let a = background(10, 10), b = background(10, 10)
        let corners = [CGPoint(x: 0, y: 0), CGPoint(x: 10, y: 0), CGPoint(x: 10, y: 10), CGPoint(x: 0, y: 10)]
        #expect(compositeImageQuad(dst: a.surface, texture: t, map: TexelMap(a: .nan, b: 0, c: 0, d: 0, e: 1, f: 0), corners: corners).isEmpty)
        #expect(compositeImageQuad(dst: a.surface, texture: t, map: .identity, corners: [corners[0], corners[0], corners[0], corners[0]]).isEmpty)
        #expect(fillQuad(dst: a.surface, corners: Array(corners.prefix(3)), color: px(1, 1, 1, 255)).isEmpty)
        #expect(fillRoundedRect(dst: a.surface, rect: CGRect(x: .infinity, y: 0, width: 4, height: 4), cornerRadius: 1, color: px(1, 1, 1, 255)).isEmpty)
        #expect((0..<10).allSatisfy { y in (0..<10).allSatisfy { a.surface[$0, y] == b.surface[$0, y] } })
    }
}
