import Glibc
import Synchronization

// Sampling premultiplied BGRA8 images: nearest, bilinear and trilinear
// (mipmapped) filters, clamp-to-edge, with u, v in texel units of the full
// image (texel i covers [i, i + 1), its centre at i + 0.5).

/// The scaling filters (indices match ConstantSet.filter: nearest, linear, trilinear).
enum TextureFilter: UInt8 {
    case nearest = 0
    case linear = 1
    case trilinear = 2
}

/// An image to sample from, with a mip chain built on first use (each level
/// half the size of the one before, rounded up, every texel the rounded mean
/// of a 2x2 block of the level above, edges clamped). Thread-safe: sampling
/// may run on several threads at once.
final class Texture {
    let width: Int
    let height: Int
    /// Level 0: the image itself.
    let base: Bitmap
    private let mips = Mutex<[Bitmap]>([])

    /// Samples `bitmap` directly (no copy); the caller must not change its
    /// pixels afterwards unless it makes a new texture.
    init(bitmap: Bitmap) {
        base = bitmap
        width = bitmap.width
        height = bitmap.height
    }

    /// Samples a copy of `surface`; nil when it cannot be allocated.
    convenience init?(copying surface: Surface) {
        guard let b = Bitmap(copying: surface) else { return nil }
        self.init(bitmap: b)
    }

    /// Level 0 and, when `withMips`, every further level down to 1x1.
    func levels(withMips: Bool) -> [Surface] {
        if !withMips || (width <= 1 && height <= 1) { return [base.surface] }
        return mips.withLock { chain in
            if chain.isEmpty { chain = Texture.buildChain(base.surface) }
            return [base.surface] + chain.map { $0.surface }
        }
    }

    /// How many levels the full chain has (1 for a 1x1 image).
    var levelCount: Int {
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
    static func downsample(_ src: Surface, into dst: Surface) {
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
    func sampleNearest(u: Double, v: Double) -> UInt32 {
        Texture.nearest(base.surface, u, v)
    }

    /// The bilinear blend of the four texels around (u, v), clamped to the edges.
    func sampleBilinear(u: Double, v: Double) -> UInt32 {
        Texture.bilinear(base.surface, u, v)
    }

    /// Bilinear samples from mip levels floor(lod) and floor(lod) + 1, blended
    /// by lod's fraction; lod <= 0 is level 0 (magnification), a lod past the
    /// last level is the last level. NaN lod counts as 0.
    func sampleTrilinear(u: Double, v: Double, lod: Double) -> UInt32 {
        if !(lod > 0) { return Texture.bilinear(base.surface, u, v) }
        let lv = levels(withMips: true)
        return Texture.trilinear(lv, width, height, u, v, lod)
    }

    /// The mip level of detail for a footprint whose texel-space derivatives
    /// per destination pixel are (dudx, dvdx) and (dudy, dvdy): log2 of the
    /// longer axis. NaN or zero footprints give -infinity (magnification).
    static func levelOfDetail(dudx: Double, dvdx: Double, dudy: Double, dvdy: Double) -> Double {
        let a = dudx * dudx + dvdx * dvdx, b = dudy * dudy + dvdy * dvdy
        let m = Swift.max(a, b)
        if !(m > 0) { return -.infinity }
        return 0.5 * log2(m)
    }

    // MARK: - Rows (affine)

    /// Nearest samples at (u0 + i du, v0 + i dv) for i in 0..<count.
    func sampleRowNearest(dst: UnsafeMutablePointer<UInt32>, count: Int, u0: Double, v0: Double, du: Double, dv: Double) {
        Texture.rowNearest(base.surface, dst, count, u0, v0, du, dv)
    }

    /// Bilinear samples at (u0 + i du, v0 + i dv) for i in 0..<count, stepped
    /// in 16.16 fixed point with 8-bit weights.
    func sampleRowBilinear(dst: UnsafeMutablePointer<UInt32>, count: Int, u0: Double, v0: Double, du: Double, dv: Double) {
        Texture.rowBilinear(base.surface, dst, count, u0, v0, du, dv)
    }

    /// Trilinear samples along an affine row at one level of detail (see
    /// `levelOfDetail`); lod <= 0 is a bilinear row.
    func sampleRowTrilinear(dst: UnsafeMutablePointer<UInt32>, count: Int, u0: Double, v0: Double, du: Double, dv: Double,
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
    func sampleRowProjective(dst: UnsafeMutablePointer<UInt32>, count: Int, start: SIMD3<Double>, step: SIMD3<Double>,
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
    @inline(__always) static func clampedIndex(_ x: Double) -> Int {
        if x.isNaN { return 0 }
        return Int(Swift.min(Swift.max(x, -1_073_741_824), 1_073_741_824).rounded(.down))
    }

    /// A coordinate in 16.16 fixed point, clamped to ±2^30 texels (NaN is 0).
    @inline(__always) static func fixed(_ x: Double) -> Int {
        if x.isNaN { return 0 }
        return Int((Swift.min(Swift.max(x, -1_073_741_824), 1_073_741_824) * 65536).rounded(.down))
    }

    @inline(__always) static func nearest(_ s: Surface, _ u: Double, _ v: Double) -> UInt32 {
        if s.width == 0 || s.height == 0 { return 0 }
        let x = Swift.min(Swift.max(clampedIndex(u), 0), s.width - 1)
        let y = Swift.min(Swift.max(clampedIndex(v), 0), s.height - 1)
        return s[x, y]
    }

    @inline(__always) static func bilinear(_ s: Surface, _ u: Double, _ v: Double) -> UInt32 {
        if s.width == 0 || s.height == 0 { return 0 }
        let fx = fixed(u - 0.5), fy = fixed(v - 0.5)
        return bilinearFixed(s, fx, fy)
    }

    /// Bilinear at 16.16 coordinates (already shifted by half a texel).
    @inline(__always) static func bilinearFixed(_ s: Surface, _ fx: Int, _ fy: Int) -> UInt32 {
        let xi = fx >> 16, yi = fy >> 16
        let ax = UInt64((fx >> 8) & 255), ay = UInt64((fy >> 8) & 255)
        let lastX = s.width - 1, lastY = s.height - 1
        let x0 = Swift.min(Swift.max(xi, 0), lastX), x1 = Swift.min(Swift.max(xi + 1, 0), lastX)
        let r0 = s.row(Swift.min(Swift.max(yi, 0), lastY)), r1 = s.row(Swift.min(Swift.max(yi + 1, 0), lastY))
        return bilerp(r0[x0], r0[x1], r1[x0], r1[x1], ax, ay)
    }

    /// Two channels per 64-bit word at 32-bit spacing; weights sum to 65536.
    @inline(__always) static func bilerp(_ p00: UInt32, _ p01: UInt32, _ p10: UInt32, _ p11: UInt32,
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

    static func trilinear(_ lv: [Surface], _ width: Int, _ height: Int, _ u: Double, _ v: Double, _ lod: Double) -> UInt32 {
        let top = Double(lv.count - 1)
        let l = Swift.min(lod, top)
        let l0 = Int(l), f = UInt32(((l - Double(l0)) * 255).rounded())
        let s0 = lv[l0]
        let p0 = bilinear(s0, u * Double(s0.width) / Double(width), v * Double(s0.height) / Double(height))
        if f == 0 || l0 + 1 >= lv.count { return p0 }
        let s1 = lv[l0 + 1]
        let p1 = bilinear(s1, u * Double(s1.width) / Double(width), v * Double(s1.height) / Double(height))
        return lerpPixel(p0, p1, f)
    }

    static func rowNearest(_ s: Surface, _ dst: UnsafeMutablePointer<UInt32>, _ count: Int,
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

    static func rowBilinear(_ s: Surface, _ dst: UnsafeMutablePointer<UInt32>, _ count: Int,
                            _ u0: Double, _ v0: Double, _ du: Double, _ dv: Double) {
        if count <= 0 { return }
        if s.width == 0 || s.height == 0 { dst.update(repeating: 0, count: count); return }
        var fx = fixed(u0 - 0.5), fy = fixed(v0 - 0.5)
        let dfx = fixed(du), dfy = fixed(dv)
        for i in 0..<count {
            dst[i] = bilinearFixed(s, fx, fy)
            fx &+= dfx
            fy &+= dfy
        }
    }
}

/// a * (255 - f) / 255 + b * f / 255 per channel (f <= 255).
@inline(__always) func lerpPixel(_ a: UInt32, _ b: UInt32, _ f: UInt32) -> UInt32 {
    scalePixel(a, 255 &- f) &+ scalePixel(b, f)
}
