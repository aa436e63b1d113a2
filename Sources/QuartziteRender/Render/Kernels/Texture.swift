import Glibc
import Synchronization

// Sampling premultiplied BGRA8 images: nearest, bilinear and trilinear
// (mipmapped) filters, clamp-to-edge, with u, v in texel units of the full
// image (texel i covers [i, i + 1), its centre at i + 0.5).

/// The scaling filters (indices match ConstantSet.filter: nearest, linear, trilinear).
package enum TextureFilter: UInt8 {
    case nearest = 0
    case linear = 1
    case trilinear = 2
}

/// An image to sample from, with a mip chain built on first use (each level
/// half the size of the one before, rounded up, every texel the rounded mean
/// of a 2x2 block of the level above, edges clamped). Thread-safe: sampling
/// may run on several threads at once.
package final class Texture {
    package let width: Int
    package let height: Int
    /// Level 0: the image itself.
    package let base: Bitmap
    /// The mip chain (levels 1...) and every level's surface (0...), made once.
    private let mips = Mutex<(chain: [Bitmap], levels: [Surface])>(([], []))
    /// Whether every texel's alpha is 255: 0 not known yet, 1 yes, 2 no.
    /// (An atomic, not a lock: threads that ask at once each scan and
    /// store the same answer.)
    private let opaqueTexels = Atomic<UInt8>(0)

    /// True when every texel is opaque: bilinear samples of it are opaque
    /// too, so blending them over a destination is a copy. (Scanned once.)
    package var isOpaque: Bool {
        let known = opaqueTexels.load(ordering: .acquiring)
        if known != 0 { return known == 1 }
        let s = base.surface
        var all = true
        rows: for y in 0..<s.height {
            let row = s.row(y)
            var x = 0
            while x + 8 <= s.width {
                if !allOpaque(loadPixels8(row + x)) { all = false; break rows }
                x += 8
            }
            while x < s.width {
                if row[x] >> 24 != 255 { all = false; break rows }
                x += 1
            }
        }
        opaqueTexels.store(all ? 1 : 2, ordering: .releasing)
        return all
    }

    /// Samples `bitmap` directly (no copy); the caller must not change its
    /// pixels afterwards unless it makes a new texture.
    package init(bitmap: Bitmap) {
        base = bitmap
        width = bitmap.width
        height = bitmap.height
    }

    /// Samples a copy of `surface`; nil when it cannot be allocated.
    package convenience init?(copying surface: Surface) {
        guard let b = Bitmap(copying: surface) else { return nil }
        self.init(bitmap: b)
    }

    /// Level 0 and, when `withMips`, every further level down to 1x1.
    package func levels(withMips: Bool) -> [Surface] {
        if !withMips || (width <= 1 && height <= 1) { return [base.surface] }
        return mips.withLock { m in
            if m.levels.isEmpty {
                m.chain = Texture.buildChain(base.surface)
                m.levels = [base.surface] + m.chain.map { $0.surface }
            }
            return m.levels
        }
    }

    /// How many levels the full chain has (1 for a 1x1 image).
    package var levelCount: Int {
        var n = 1, w = width, h = height
        while w > 1 || h > 1 { w = (w + 1) / 2; h = (h + 1) / 2; n += 1 }
        return n
    }

    private static func buildChain(_ top: Surface) -> [Bitmap] {
        var out: [Bitmap] = []
        var src = top
        while src.width > 1 || src.height > 1 {
            let w = (src.width + 1) / 2, h = (src.height + 1) / 2
            guard let next = Bitmap(width: w, height: h) else { break }
            downsample(src, into: next.surface)
            out.append(next)
            src = next.surface
        }
        return out
    }

    /// 2x2 box filter with clamped edges, each channel (a + b + c + d + 2) >> 2.
    package static func downsample(_ src: Surface, into dst: Surface) {
        let lastX = src.width - 1, lastY = src.height - 1
        for y in 0..<dst.height {
            let r0 = src.row(Swift.min(2 * y, lastY)), r1 = src.row(Swift.min(2 * y + 1, lastY))
            let d = dst.row(y)
            for x in 0..<dst.width {
                let x0 = Swift.min(2 * x, lastX), x1 = Swift.min(2 * x + 1, lastX)
                let a = r0[x0], b = r0[x1], c = r1[x0], e = r1[x1]
                let rb = (a & 0x00FF_00FF) &+ (b & 0x00FF_00FF) &+ (c & 0x00FF_00FF) &+ (e & 0x00FF_00FF) &+ 0x0002_0002
                let ag = ((a >> 8) & 0x00FF_00FF) &+ ((b >> 8) & 0x00FF_00FF) &+ ((c >> 8) & 0x00FF_00FF)
                    &+ ((e >> 8) & 0x00FF_00FF) &+ 0x0002_0002
                d[x] = ((rb >> 2) & 0x00FF_00FF) | ((ag << 6) & 0xFF00_FF00)
            }
        }
    }

    // MARK: - Single samples

    /// The texel containing (u, v), clamped to the image; 0 for an empty image or NaN.
    package func sampleNearest(u: Double, v: Double) -> UInt32 {
        Texture.nearest(base.surface, u, v)
    }

    /// The bilinear blend of the four texels around (u, v), clamped to the edges.
    package func sampleBilinear(u: Double, v: Double) -> UInt32 {
        Texture.bilinear(base.surface, u, v)
    }

    /// Bilinear samples from mip levels floor(lod) and floor(lod) + 1, blended
    /// by lod's fraction; lod <= 0 is level 0 (magnification), a lod past the
    /// last level is the last level. NaN lod counts as 0.
    package func sampleTrilinear(u: Double, v: Double, lod: Double) -> UInt32 {
        if !(lod > 0) { return Texture.bilinear(base.surface, u, v) }
        let lv = levels(withMips: true)
        return Texture.trilinear(lv, width, height, u, v, lod)
    }

    /// The mip level of detail for a footprint whose texel-space derivatives
    /// per destination pixel are (dudx, dvdx) and (dudy, dvdy): log2 of the
    /// longer axis. NaN or zero footprints give -infinity (magnification).
    package static func levelOfDetail(dudx: Double, dvdx: Double, dudy: Double, dvdy: Double) -> Double {
        let a = dudx * dudx + dvdx * dvdx, b = dudy * dudy + dvdy * dvdy
        let m = Swift.max(a, b)
        if !(m > 0) { return -.infinity }
        return 0.5 * log2(m)
    }

    // MARK: - Rows (affine)

    /// Nearest samples at (u0 + i du, v0 + i dv) for i in 0..<count.
    package func sampleRowNearest(dst: UnsafeMutablePointer<UInt32>, count: Int, u0: Double, v0: Double, du: Double, dv: Double) {
        Texture.rowNearest(base.surface, dst, count, u0, v0, du, dv)
    }

    /// Bilinear samples at (u0 + i du, v0 + i dv) for i in 0..<count, stepped
    /// in 16.16 fixed point with 8-bit weights.
    package func sampleRowBilinear(dst: UnsafeMutablePointer<UInt32>, count: Int, u0: Double, v0: Double, du: Double, dv: Double) {
        Texture.rowBilinear(base.surface, dst, count, u0, v0, du, dv)
    }

    /// Trilinear samples along an affine row at one level of detail (see
    /// `levelOfDetail`); lod <= 0 is a bilinear row.
    package func sampleRowTrilinear(dst: UnsafeMutablePointer<UInt32>, count: Int, u0: Double, v0: Double, du: Double, dv: Double,
                            lod: Double) {
        if count <= 0 { return }
        if !(lod > 0) { return Texture.rowBilinear(base.surface, dst, count, u0, v0, du, dv) }
        let lv = levels(withMips: true)
        let top = Double(lv.count - 1)
        let l = Swift.min(lod, top)
        let l0 = Int(l), f = UInt32(((l - Double(l0)) * 255).rounded())
        let s0 = lv[l0], sx0 = Double(s0.width) / Double(width), sy0 = Double(s0.height) / Double(height)
        Texture.rowBilinear(s0, dst, count, u0 * sx0, v0 * sy0, du * sx0, dv * sy0)
        if f == 0 || l0 + 1 >= lv.count { return }
        let s1 = lv[l0 + 1], sx1 = Double(s1.width) / Double(width), sy1 = Double(s1.height) / Double(height)
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 256) { tmp in
            var done = 0
            while done < count {
                let n = Swift.min(256, count - done)
                let d = Double(done)
                Texture.rowBilinear(s1, tmp.baseAddress!, n, (u0 + d * du) * sx1, (v0 + d * dv) * sy1, du * sx1, dv * sy1)
                for i in 0..<n { dst[done + i] = lerpPixel(dst[done + i], tmp[i], f) }
                done += n
            }
        }
    }

    // MARK: - Rows (perspective)

    /// Samples along a row under perspective: pixel i samples at (q.x / q.z,
    /// q.y / q.z) with q = start + i * step (start = (u/w, v/w, 1/w) at the
    /// first pixel centre). Pixels where q.z <= 0 (behind the eye) are 0.
    /// Trilinear levels come from the exact derivatives along the row and,
    /// when given, `stepY` (q's change per destination row), plus `lodBias`.
    package func sampleRowProjective(dst: UnsafeMutablePointer<UInt32>, count: Int, start: SIMD3<Double>, step: SIMD3<Double>,
                             filter: TextureFilter, lodBias: Double = 0, stepY: SIMD3<Double>? = nil) {
        if count <= 0 { return }
        let s = base.surface
        let lv = filter == .trilinear ? levels(withMips: true) : [s]
        for i in 0..<count {
            let q = start + Double(i) * step
            if !(q.z > 0) { dst[i] = 0; continue }
            let iz = 1 / q.z
            let u = q.x * iz, v = q.y * iz
            switch filter {
            case .nearest:
                dst[i] = Texture.nearest(s, u, v)
            case .linear:
                dst[i] = Texture.bilinear(s, u, v)
            case .trilinear:
                // d(a/c) = (da c - a dc) / c².
                let iz2 = iz * iz
                let dudx = (step.x * q.z - q.x * step.z) * iz2, dvdx = (step.y * q.z - q.y * step.z) * iz2
                var dudy = 0.0, dvdy = 0.0
                if let sy = stepY {
                    dudy = (sy.x * q.z - q.x * sy.z) * iz2
                    dvdy = (sy.y * q.z - q.y * sy.z) * iz2
                }
                let lod = Texture.levelOfDetail(dudx: dudx, dvdx: dvdx, dudy: dudy, dvdy: dvdy) + lodBias
                dst[i] = lod > 0 ? Texture.trilinear(lv, width, height, u, v, lod) : Texture.bilinear(s, u, v)
            }
        }
    }

    // MARK: - Kernels

    /// A Double texel coordinate as an Int, clamped far outside any image (NaN is 0).
    @inline(__always) package static func clampedIndex(_ x: Double) -> Int {
        if x.isNaN { return 0 }
        return Int(Swift.min(Swift.max(x, -1_073_741_824), 1_073_741_824).rounded(.down))
    }

    /// A coordinate in 16.16 fixed point, clamped to ±2^30 texels (NaN is 0).
    @inline(__always) package static func fixed(_ x: Double) -> Int {
        if x.isNaN { return 0 }
        return Int((Swift.min(Swift.max(x, -1_073_741_824), 1_073_741_824) * 65536).rounded(.down))
    }

    @inline(__always) package static func nearest(_ s: Surface, _ u: Double, _ v: Double) -> UInt32 {
        if s.width == 0 || s.height == 0 { return 0 }
        let x = Swift.min(Swift.max(clampedIndex(u), 0), s.width - 1)
        let y = Swift.min(Swift.max(clampedIndex(v), 0), s.height - 1)
        return s[x, y]
    }

    @inline(__always) package static func bilinear(_ s: Surface, _ u: Double, _ v: Double) -> UInt32 {
        if s.width == 0 || s.height == 0 { return 0 }
        let fx = fixed(u - 0.5), fy = fixed(v - 0.5)
        return bilinearFixed(s, fx, fy)
    }

    /// Bilinear at 16.16 coordinates (already shifted by half a texel).
    @inline(__always) package static func bilinearFixed(_ s: Surface, _ fx: Int, _ fy: Int) -> UInt32 {
        let xi = fx >> 16, yi = fy >> 16
        let ax = UInt64((fx >> 8) & 255), ay = UInt64((fy >> 8) & 255)
        let lastX = s.width - 1, lastY = s.height - 1
        let x0 = Swift.min(Swift.max(xi, 0), lastX), x1 = Swift.min(Swift.max(xi + 1, 0), lastX)
        let r0 = s.row(Swift.min(Swift.max(yi, 0), lastY)), r1 = s.row(Swift.min(Swift.max(yi + 1, 0), lastY))
        return bilerp(r0[x0], r0[x1], r1[x0], r1[x1], ax, ay)
    }

    /// Two channels per 64-bit word at 32-bit spacing; weights sum to 65536.
    @inline(__always) package static func bilerp(_ p00: UInt32, _ p01: UInt32, _ p10: UInt32, _ p11: UInt32,
                                         _ ax: UInt64, _ ay: UInt64) -> UInt32 {
        if ax == 0 && ay == 0 { return p00 }
        let w11 = ax * ay, w01 = ax * (256 - ay), w10 = (256 - ax) * ay, w00 = (256 - ax) * (256 - ay)
        @inline(__always) func spreadRB(_ p: UInt32) -> UInt64 { UInt64(p & 0xFF) | UInt64((p >> 16) & 0xFF) << 32 }
        @inline(__always) func spreadGA(_ p: UInt32) -> UInt64 { UInt64((p >> 8) & 0xFF) | UInt64(p >> 24) << 32 }
        let rb = (spreadRB(p00) &* w00 &+ spreadRB(p01) &* w01 &+ spreadRB(p10) &* w10 &+ spreadRB(p11) &* w11
            &+ 0x0000_8000_0000_8000) >> 16
        let ga = (spreadGA(p00) &* w00 &+ spreadGA(p01) &* w01 &+ spreadGA(p10) &* w10 &+ spreadGA(p11) &* w11
            &+ 0x0000_8000_0000_8000) >> 16
        let b = UInt32(truncatingIfNeeded: rb) & 0xFF, r = UInt32(truncatingIfNeeded: rb >> 32) & 0xFF
        let g = UInt32(truncatingIfNeeded: ga) & 0xFF, a = UInt32(truncatingIfNeeded: ga >> 32) & 0xFF
        return b | g << 8 | r << 16 | a << 24
    }

    package static func trilinear(_ lv: [Surface], _ width: Int, _ height: Int, _ u: Double, _ v: Double, _ lod: Double) -> UInt32 {
        let top = Double(lv.count - 1)
        let l = lod > 0 ? Swift.min(lod, top) : 0   // (NaN: the base level)
        let l0 = Int(l), f = UInt32(((l - Double(l0)) * 255).rounded())
        let s0 = lv[l0]
        let p0 = bilinear(s0, u * Double(s0.width) / Double(width), v * Double(s0.height) / Double(height))
        if f == 0 || l0 + 1 >= lv.count { return p0 }
        let s1 = lv[l0 + 1]
        let p1 = bilinear(s1, u * Double(s1.width) / Double(width), v * Double(s1.height) / Double(height))
        return lerpPixel(p0, p1, f)
    }

    package static func rowNearest(_ s: Surface, _ dst: UnsafeMutablePointer<UInt32>, _ count: Int,
                           _ u0: Double, _ v0: Double, _ du: Double, _ dv: Double) {
        if count <= 0 { return }
        if s.width == 0 || s.height == 0 { dst.update(repeating: 0, count: count); return }
        var fx = fixed(u0), fy = fixed(v0)
        let dfx = fixed(du), dfy = fixed(dv)
        let lastX = s.width - 1, lastY = s.height - 1
        if dfy == 0 {
            let r = s.row(Swift.min(Swift.max(fy >> 16, 0), lastY))
            for i in 0..<count {
                dst[i] = r[Swift.min(Swift.max(fx >> 16, 0), lastX)]
                fx &+= dfx
            }
            return
        }
        for i in 0..<count {
            dst[i] = s[Swift.min(Swift.max(fx >> 16, 0), lastX), Swift.min(Swift.max(fy >> 16, 0), lastY)]
            fx &+= dfx
            fy &+= dfy
        }
    }

    /// Bilinear samples along an affine row. Rows that keep v constant (scaled
    /// but not rotated images) first blend the two source rows once, then
    /// blend horizontally; other rows gather four texels per pixel. Both blend
    /// eight pixels at a time with 8-bit weights (each blend rounded).
    package static func rowBilinear(_ s: Surface, _ dst: UnsafeMutablePointer<UInt32>, _ count: Int,
                            _ u0: Double, _ v0: Double, _ du: Double, _ dv: Double) {
        if count <= 0 { return }
        if s.width == 0 || s.height == 0 { dst.update(repeating: 0, count: count); return }
        let fx = fixed(u0 - 0.5), fy = fixed(v0 - 0.5)
        let dfx = fixed(du), dfy = fixed(dv)
        if dfy == 0 {
            rowBilinearHorizontal(s, dst, count, fx, fy, dfx)
        } else {
            rowBilinearGeneral(s, dst, count, fx, fy, dfx, dfy)
        }
    }

    private static func rowBilinearHorizontal(_ s: Surface, _ dst: UnsafeMutablePointer<UInt32>, _ count: Int,
                                              _ fx0: Int, _ fy: Int, _ dfx: Int) {
        let lastX = s.width - 1, lastY = s.height - 1
        let yi = fy >> 16, wy = UInt32((fy >> 8) & 255)
        let r0 = s.row(Swift.min(Swift.max(yi, 0), lastY)), r1 = s.row(Swift.min(Swift.max(yi + 1, 0), lastY))
        // The source columns this row reads.
        let end = fx0 &+ (count - 1) &* dfx
        let lo = Swift.min(Swift.max(Swift.min(fx0, end) >> 16, 0), lastX)
        let hi = Swift.min(Swift.max((Swift.max(fx0, end) >> 16) + 1, 0), lastX)
        let n = hi - lo + 1
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: n + 24) { buf in
            let col = buf.baseAddress!          // col[k] = source column lo + k, blended vertically
            let scratch = col + n               // 24 values for horizontalPass
            if wy == 0 || r0 == r1 {
                col.update(from: r0 + lo, count: n)
            } else {
                let w8 = Pixels8(repeating: wy)
                var k = 0
                while k + 8 <= n {
                    storePixels8(lerpPixels8(loadPixels8(r0 + lo + k), loadPixels8(r1 + lo + k), w8), col + k)
                    k += 8
                }
                while k < n {
                    col[k] = lerpPixel256(r0[lo + k], r1[lo + k], wy)
                    k += 1
                }
            }
            horizontalPass(UnsafePointer(col), lo, lastX, dst, count, fx0, dfx, scratch)
        }
    }

    /// Bilinear along one (already vertically blended) row: dst[i] blends
    /// col[x - lo] and col[x + 1 - lo] (clamped to 0 ... lastX) at x = (fx0 + i dfx) >> 16.
    /// `scratch` holds 24 values.
    package static func horizontalPass(_ col: UnsafePointer<UInt32>, _ lo: Int, _ lastX: Int, _ dst: UnsafeMutablePointer<UInt32>,
                               _ count: Int, _ fx0: Int, _ dfx: Int, _ scratch: UnsafeMutablePointer<UInt32>) {
        let ga = scratch, gb = scratch + 8, gw = scratch + 16
        var fx = fx0
        var i = 0
        // Eight pixels' steps from the first, for the weights.
        let steps = SIMD8<UInt64>(0, 1, 2, 3, 4, 5, 6, 7) &* UInt64(bitPattern: Int64(dfx))
        while i + 8 <= count {
            let xFirst = fx >> 16, xLast = (fx &+ 7 &* dfx) >> 16
            if xFirst >= 0 && xLast >= 0 && xFirst < lastX && xLast < lastX {
                // Inside the image: each pixel reads the adjacent pair col[x], col[x + 1] with one load.
                let c = UnsafeRawPointer(col - lo)
                @inline(__always) func pair(_ k: Int) -> UInt64 {
                    c.loadUnaligned(fromByteOffset: ((fx &+ k &* dfx) >> 16) &* 4, as: UInt64.self)
                }
                let v = SIMD8<UInt64>(pair(0), pair(1), pair(2), pair(3), pair(4), pair(5), pair(6), pair(7))
                let w = ((SIMD8<UInt64>(repeating: UInt64(bitPattern: Int64(fx))) &+ steps) &>> 8) & 255
                storePixels8(lerpPairs8(v, w), dst + i)
                fx &+= 8 &* dfx
                i += 8
                continue
            }
            for k in 0..<8 {
                let xi = fx >> 16
                let x0 = Swift.min(Swift.max(xi, 0), lastX) - lo, x1 = Swift.min(Swift.max(xi + 1, 0), lastX) - lo
                ga[k] = col[x0]
                gb[k] = col[x1]
                gw[k] = UInt32((fx >> 8) & 255)
                fx &+= dfx
            }
            storePixels8(lerpPixels8(loadPixels8(ga), loadPixels8(gb), loadPixels8(gw)), dst + i)
            i += 8
        }
        while i < count {
            let xi = fx >> 16
            let x0 = Swift.min(Swift.max(xi, 0), lastX) - lo, x1 = Swift.min(Swift.max(xi + 1, 0), lastX) - lo
            dst[i] = lerpPixel256(col[x0], col[x1], UInt32((fx >> 8) & 255))
            fx &+= dfx
            i += 1
        }
    }

    private static func rowBilinearGeneral(_ s: Surface, _ dst: UnsafeMutablePointer<UInt32>, _ count: Int,
                                           _ fx0: Int, _ fy0: Int, _ dfx: Int, _ dfy: Int) {
        let lastX = s.width - 1, lastY = s.height - 1
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 48) { buf in
            let p00 = buf.baseAddress!, p01 = p00 + 8, p10 = p00 + 16, p11 = p00 + 24, wx = p00 + 32, wy = p00 + 40
            var fx = fx0, fy = fy0
            var i = 0
            let stepsX = SIMD8<UInt64>(0, 1, 2, 3, 4, 5, 6, 7) &* UInt64(bitPattern: Int64(dfx))
            let stepsY = SIMD8<UInt64>(0, 1, 2, 3, 4, 5, 6, 7) &* UInt64(bitPattern: Int64(dfy))
            let rowBytes = s.rowPixels &* 4
            let base = UnsafeRawPointer(s.base)
            while i + 8 <= count {
                let x0 = fx >> 16, x7 = (fx &+ 7 &* dfx) >> 16, y0 = fy >> 16, y7 = (fy &+ 7 &* dfy) >> 16
                if x0 >= 0 && x7 >= 0 && x0 < lastX && x7 < lastX && y0 >= 0 && y7 >= 0 && y0 < lastY && y7 < lastY {
                    // Inside the image: two pair loads per pixel (rows y and y + 1).
                    @inline(__always) func offset(_ k: Int) -> Int {
                        ((fy &+ k &* dfy) >> 16) &* rowBytes &+ ((fx &+ k &* dfx) >> 16) &* 4
                    }
                    let o = SIMD8<Int>(offset(0), offset(1), offset(2), offset(3), offset(4), offset(5), offset(6), offset(7))
                    @inline(__always) func top(_ k: Int) -> UInt64 { base.loadUnaligned(fromByteOffset: o[k], as: UInt64.self) }
                    @inline(__always) func bottom(_ k: Int) -> UInt64 {
                        base.loadUnaligned(fromByteOffset: o[k] &+ rowBytes, as: UInt64.self)
                    }
                    let t = SIMD8<UInt64>(top(0), top(1), top(2), top(3), top(4), top(5), top(6), top(7))
                    let b = SIMD8<UInt64>(bottom(0), bottom(1), bottom(2), bottom(3), bottom(4), bottom(5), bottom(6), bottom(7))
                    let wxv = ((SIMD8<UInt64>(repeating: UInt64(bitPattern: Int64(fx))) &+ stepsX) &>> 8) & 255
                    let wyv = ((SIMD8<UInt64>(repeating: UInt64(bitPattern: Int64(fy))) &+ stepsY) &>> 8) & 255
                    let out = lerpPixels8(lerpPairs8(t, wxv), lerpPairs8(b, wxv), Pixels8(truncatingIfNeeded: wyv))
                    storePixels8(out, dst + i)
                    fx &+= 8 &* dfx
                    fy &+= 8 &* dfy
                    i += 8
                    continue
                }
                let m = Swift.min(8, count - i)
                for k in 0..<m {
                    let xi = fx >> 16, yi = fy >> 16
                    let x0 = Swift.min(Swift.max(xi, 0), lastX), x1 = Swift.min(Swift.max(xi + 1, 0), lastX)
                    let ra = s.row(Swift.min(Swift.max(yi, 0), lastY)), rb = s.row(Swift.min(Swift.max(yi + 1, 0), lastY))
                    p00[k] = ra[x0]; p01[k] = ra[x1]; p10[k] = rb[x0]; p11[k] = rb[x1]
                    wx[k] = UInt32((fx >> 8) & 255); wy[k] = UInt32((fy >> 8) & 255)
                    fx &+= dfx
                    fy &+= dfy
                }
                let wxv = loadPixels8(wx)
                let top = lerpPixels8(loadPixels8(p00), loadPixels8(p01), wxv)
                let bottom = lerpPixels8(loadPixels8(p10), loadPixels8(p11), wxv)
                let out = lerpPixels8(top, bottom, loadPixels8(wy))
                if m == 8 {
                    storePixels8(out, dst + i)
                } else {
                    for k in 0..<m { dst[i + k] = out[k] }
                }
                i += m
            }
            while i < count {
                let m = Swift.min(8, count - i)
                for k in 0..<m {
                    dst[i + k] = bilinearFixed(s, fx, fy)
                    fx &+= dfx
                    fy &+= dfy
                }
                i += m
            }
        }
    }
}

/// For eight pixel pairs (a in the low, b in the high half of each lane):
/// a (256 - w) / 256 + b w / 256 per channel, rounded (w in 0...256 per lane).
@inline(__always) package func lerpPairs8(_ v: SIMD8<UInt64>, _ w: SIMD8<UInt64>) -> Pixels8 {
    let wl = (256 &- w) | (w &<< 32)
    let weights = unsafeBitCast(wl | (wl &<< 16), to: SIMD32<UInt16>.self)    // 16-bit lanes: iw, iw, w, w
    let m = SIMD8<UInt64>(repeating: 0x00FF_00FF_00FF_00FF)
    let rb = unsafeBitCast(unsafeBitCast(v & m, to: SIMD32<UInt16>.self) &* weights, to: SIMD8<UInt64>.self)
    let ag = unsafeBitCast(unsafeBitCast((v &>> 8) & m, to: SIMD32<UInt16>.self) &* weights, to: SIMD8<UInt64>.self)
    let low = SIMD8<UInt64>(repeating: 0xFFFF_FFFF)
    // a.c * iw + b.c * w <= 255 * 256: the two halves add without carries.
    let rbs = (((rb & low) &+ (rb &>> 32) &+ 0x0080_0080) &>> 8) & 0x00FF_00FF
    let ags = (((ag & low) &+ (ag &>> 32) &+ 0x0080_0080) &>> 8) & 0x00FF_00FF
    return Pixels8(truncatingIfNeeded: rbs | (ags &<< 8))
}

/// a (256 - w) / 256 + b w / 256 per channel, rounded (w in 0...256).
@inline(__always) package func lerpPixel256(_ a: UInt32, _ b: UInt32, _ w: UInt32) -> UInt32 {
    let iw: UInt32 = 256 &- w
    let m: UInt32 = 0x00FF_00FF
    let ra: UInt32 = (a & m) &* iw, rbb: UInt32 = (b & m) &* w
    let ga: UInt32 = ((a >> 8) & m) &* iw, gb: UInt32 = ((b >> 8) & m) &* w
    let rb: UInt32 = ((ra &+ rbb &+ 0x0080_0080) >> 8) & m
    let ag: UInt32 = ((ga &+ gb &+ 0x0080_0080) >> 8) & m
    return rb | ag << 8
}

/// a * (255 - f) / 255 + b * f / 255 per channel (f <= 255).
@inline(__always) package func lerpPixel(_ a: UInt32, _ b: UInt32, _ f: UInt32) -> UInt32 {
    scalePixel(a, 255 &- f) &+ scalePixel(b, f)
}

/// Bilinear rows of an axis-aligned scaling of a texture's level 0: row
/// samples at u = u0 + i du (the same for every row) and a v per row. Each
/// source row is resampled horizontally once and kept while consecutive
/// destination rows need it (two are kept), so a magnified image costs one
/// horizontal pass per source row plus one vertical blend per destination
/// row. Not thread-safe: one sampler per drawing thread.
package final class ScaledRowSampler {
    private let surface: Surface
    package let count: Int
    private let fx0: Int, dfx: Int
    private let slots: UnsafeMutablePointer<UInt32>      // two resampled source rows of `count`
    private let out: UnsafeMutablePointer<UInt32>
    private let scratch: UnsafeMutablePointer<UInt32>
    private var keys = (Int.min, Int.min)

    package init(texture: Texture, count: Int, u0: Double, du: Double) {
        surface = texture.base.surface
        self.count = Swift.max(count, 0)
        fx0 = Texture.fixed(u0 - 0.5)
        dfx = Texture.fixed(du)
        slots = .allocate(capacity: 2 * Swift.max(self.count, 1))
        out = .allocate(capacity: Swift.max(self.count, 1))
        scratch = .allocate(capacity: 24)
    }

    deinit {
        slots.deallocate()
        out.deallocate()
        scratch.deallocate()
    }

    /// The resampled source row y (clamped), computed into a slot not holding `keep`.
    private func source(_ y: Int, keep: Int) -> UnsafeMutablePointer<UInt32> {
        if keys.0 == y { return slots }
        if keys.1 == y { return slots + count }
        let useFirst = keys.0 != keep
        let slot = useFirst ? slots : slots + count
        Texture.horizontalPass(UnsafePointer(surface.row(y)), 0, surface.width - 1, slot, count, fx0, dfx, scratch)
        if useFirst { keys.0 = y } else { keys.1 = y }
        return slot
    }

    /// The `count` samples of the row at v (texel units); valid until the next call.
    package func row(v: Double) -> UnsafePointer<UInt32> {
        produce(v: v, into: out, copyUnblended: false)
    }

    /// The same row as row(v:), written to `dst` (count pixels): for a
    /// destination that would only receive a copy of it (opaque texels at
    /// full opacity), one pass over the pixels instead of two.
    package func row(v: Double, into dst: UnsafeMutablePointer<UInt32>) {
        _ = produce(v: v, into: dst, copyUnblended: true)
    }

    /// The row for `v` in `dst`, or, when no vertical blend is needed and
    /// `copyUnblended` is false, the resampled source row itself.
    @inline(__always)
    private func produce(v: Double, into dst: UnsafeMutablePointer<UInt32>, copyUnblended: Bool) -> UnsafePointer<UInt32> {
        if count == 0 || surface.width == 0 || surface.height == 0 {
            dst.update(repeating: 0, count: count)
            return UnsafePointer(dst)
        }
        let fy = Texture.fixed(v - 0.5)
        let lastY = surface.height - 1
        let y0 = Swift.min(Swift.max(fy >> 16, 0), lastY), y1 = Swift.min(Swift.max((fy >> 16) + 1, 0), lastY)
        let wy = UInt32((fy >> 8) & 255)
        let a = source(y0, keep: y1)
        if wy == 0 || y0 == y1 {
            if !copyUnblended { return UnsafePointer(a) }
            dst.update(from: a, count: count)
            return UnsafePointer(dst)
        }
        let b = source(y1, keep: y0)
        let w8 = Pixels8(repeating: wy)
        var i = 0
        while i + 8 <= count {
            storePixels8(lerpPixels8(loadPixels8(a + i), loadPixels8(b + i), w8), dst + i)
            i += 8
        }
        while i < count {
            dst[i] = lerpPixel256(a[i], b[i], wy)
            i += 1
        }
        return UnsafePointer(dst)
    }
}
