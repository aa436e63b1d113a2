import CQuartzite
import Glibc

// Layer contents as sampled images: a pixel buffer decoded once to
// premultiplied Float RGBA (cached while its seed is unchanged), with a mip
// chain built on demand for trilinear filtering.

final class SampledImage {
    struct Level { let width: Int; let height: Int; let texels: [SIMD4<Float>] }
    private(set) var levels: [Level]

    init(_ base: Level) { levels = [base] }

    var width: Int { levels[0].width }
    var height: Int { levels[0].height }

    static func decode(_ pb: PixelBuffer) -> SampledImage? {
        guard pb.width > 0, pb.height > 0, let decode = pb.decoder() else { return nil }
        pb.lock(readOnly: true)
        defer { try? pb.unlock(readOnly: true) }
        let w = pb.width, h = pb.height
        var texels = [SIMD4<Float>](repeating: .zero, count: w * h)
        let row = UnsafeMutablePointer<UInt32>.allocate(capacity: w)
        defer { row.deallocate() }
        let inv: Float = 1 / 255
        for y in 0..<h {
            decode(y, UnsafeMutableRawPointer(row))
            for x in 0..<w {
                let p = row[x]
                texels[y * w + x] = SIMD4(Float((p >> 16) & 0xFF), Float((p >> 8) & 0xFF), Float(p & 0xFF), Float(p >> 24)) * inv
            }
        }
        return SampledImage(Level(width: w, height: h, texels: texels))
    }

    /// Builds the mip chain (2x2 box averages) down to 1x1.
    func buildMips() {
        guard levels.count == 1 else { return }
        var cur = levels[0]
        while cur.width > 1 || cur.height > 1 {
            let w = max(cur.width / 2, 1), h = max(cur.height / 2, 1)
            var t = [SIMD4<Float>](repeating: .zero, count: w * h)
            for y in 0..<h {
                let y0 = min(2 * y, cur.height - 1), y1 = min(2 * y + 1, cur.height - 1)
                for x in 0..<w {
                    let x0 = min(2 * x, cur.width - 1), x1 = min(2 * x + 1, cur.width - 1)
                    t[y * w + x] = (cur.texels[y0 * cur.width + x0] + cur.texels[y0 * cur.width + x1]
                        + cur.texels[y1 * cur.width + x0] + cur.texels[y1 * cur.width + x1]) * 0.25
                }
            }
            cur = Level(width: w, height: h, texels: t)
            levels.append(cur)
        }
    }

    /// Nearest texel at texel coordinates (x, y) of level 0, clamped to `clamp`
    /// (texel-space rectangle of the part shown).
    @inline(__always) func nearest(_ x: Double, _ y: Double, _ clamp: (Double, Double, Double, Double)) -> SIMD4<Float> {
        let l = levels[0]
        let cx = min(max(x, clamp.0), clamp.2 - 1e-9), cy = min(max(y, clamp.1), clamp.3 - 1e-9)
        let ix = min(max(Int(cx.rounded(.down)), 0), l.width - 1), iy = min(max(Int(cy.rounded(.down)), 0), l.height - 1)
        return l.texels[iy * l.width + ix]
    }

    /// Bilinear sample of `level` at level-0 texel coordinates (x, y).
    @inline(__always) func bilinear(_ level: Int, _ x: Double, _ y: Double, _ clamp: (Double, Double, Double, Double)) -> SIMD4<Float> {
        let l = levels[level]
        let k = Double(1 << level)
        // Clamp to the centres of the edge texels of the part shown.
        let lox = clamp.0 / k + 0.5, hix = max(clamp.2 / k - 0.5, lox)
        let loy = clamp.1 / k + 0.5, hiy = max(clamp.3 / k - 0.5, loy)
        let fx = min(max(x / k, lox), hix) - 0.5, fy = min(max(y / k, loy), hiy) - 0.5
        let x0f = fx.rounded(.down), y0f = fy.rounded(.down)
        let tx = Float(fx - x0f), ty = Float(fy - y0f)
        let x0 = min(max(Int(x0f), 0), l.width - 1), y0 = min(max(Int(y0f), 0), l.height - 1)
        let x1 = min(x0 + 1, l.width - 1), y1 = min(y0 + 1, l.height - 1)
        let a = l.texels[y0 * l.width + x0], b = l.texels[y0 * l.width + x1]
        let c = l.texels[y1 * l.width + x0], d = l.texels[y1 * l.width + x1]
        let top = a + (b - a) * tx, bottom = c + (d - c) * tx
        return top + (bottom - top) * ty
    }

    /// A sample with the layer's filters: `lod` is log2 of texels per pixel.
    @inline(__always) func sample(_ x: Double, _ y: Double, lod: Double, minFilter: UInt8, magFilter: UInt8, bias: Double,
                                  clamp: (Double, Double, Double, Double)) -> SIMD4<Float> {
        let filter = lod > 0 ? minFilter : magFilter
        switch filter {
        case 0: return nearest(x, y, clamp)
        case 2 where lod + bias > 0 && levels.count > 1:
            let l = min(lod + bias, Double(levels.count - 1))
            let l0 = Int(l.rounded(.down)), l1 = min(l0 + 1, levels.count - 1)
            let t = Float(l - Double(l0))
            let a = bilinear(l0, x, y, clamp)
            if t == 0 || l1 == l0 { return a }
            return a + (bilinear(l1, x, y, clamp) - a) * t
        default: return bilinear(0, x, y, clamp)
        }
    }
}

/// Decoded contents kept across frames (dropped when not used by a frame).
final class TextureCache {
    private struct Entry { let buffer: PixelBuffer; let seed: UInt32; let image: SampledImage; var used: Bool }
    private var entries: [ObjectIdentifier: Entry] = [:]

    func image(_ pb: PixelBuffer, seed: UInt32) -> SampledImage? {
        let key = ObjectIdentifier(pb)
        if var e = entries[key], e.seed == seed {
            e.used = true
            entries[key] = e
            return e.image
        }
        guard let img = SampledImage.decode(pb) else { return nil }
        entries[key] = Entry(buffer: pb, seed: seed, image: img, used: true)
        return img
    }

    /// Drops entries not used since the last sweep.
    func sweep() {
        entries = entries.filter { $0.value.used }
        for k in entries.keys { entries[k]!.used = false }
    }

    var count: Int { entries.count }
}
