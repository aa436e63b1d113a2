import CQuartzite

// The compositor's working surfaces: premultiplied RGBA in Float, covering an
// integer pixel rectangle of the target. The target region is read into one,
// operations blend into it (and into offscreen ones for groups, masks and
// shadows), and it is written back as 8-bit pixels.

struct PixelBox: Equatable {
    var x0: Int, y0: Int, x1: Int, y1: Int
    var width: Int { max(x1 - x0, 0) }
    var height: Int { max(y1 - y0, 0) }
    var isEmpty: Bool { x1 <= x0 || y1 <= y0 }
    static let empty = PixelBox(x0: 0, y0: 0, x1: 0, y1: 0)

    /// The pixels a rectangle touches (rounded outwards).
    init(covering r: CGRect) {
        if r.isNull || r.hasNaN { self = .empty; return }
        let lim = 1e7
        let a = max(min(r.minX, lim), -lim), b = max(min(r.maxX, lim), -lim)
        let c = max(min(r.minY, lim), -lim), d = max(min(r.maxY, lim), -lim)
        x0 = Int(a.rounded(.down)); x1 = Int(b.rounded(.up))
        y0 = Int(c.rounded(.down)); y1 = Int(d.rounded(.up))
        if x1 == x0 && b > a { x1 += 1 }
        if y1 == y0 && d > c { y1 += 1 }
    }

    init(x0: Int, y0: Int, x1: Int, y1: Int) { self.x0 = x0; self.y0 = y0; self.x1 = x1; self.y1 = y1 }

    func intersection(_ o: PixelBox) -> PixelBox {
        let r = PixelBox(x0: max(x0, o.x0), y0: max(y0, o.y0), x1: min(x1, o.x1), y1: min(y1, o.y1))
        return r.isEmpty ? .empty : r
    }

    func union(_ o: PixelBox) -> PixelBox {
        if isEmpty { return o }
        if o.isEmpty { return self }
        return PixelBox(x0: min(x0, o.x0), y0: min(y0, o.y0), x1: max(x1, o.x1), y1: max(y1, o.y1))
    }

    func offset(_ dx: Int, _ dy: Int) -> PixelBox { PixelBox(x0: x0 + dx, y0: y0 + dy, x1: x1 + dx, y1: y1 + dy) }
    func inset(_ d: Int) -> PixelBox {
        let r = PixelBox(x0: x0 + d, y0: y0 + d, x1: x1 - d, y1: y1 - d)
        return r.isEmpty ? .empty : r
    }

    var cgRect: CGRect { CGRect(x: Double(x0), y: Double(y0), width: Double(width), height: Double(height)) }
}

final class Canvas {
    let rect: PixelBox
    var pixels: [SIMD4<Float>]

    init(_ rect: PixelBox) {
        self.rect = rect
        pixels = Array(repeating: SIMD4<Float>(0, 0, 0, 0), count: rect.width * rect.height)
    }

    @inline(__always) func index(_ x: Int, _ y: Int) -> Int { (y - rect.y0) * rect.width + (x - rect.x0) }

    /// Source-over of a premultiplied colour scaled by `k`.
    @inline(__always) func blend(_ i: Int, _ src: SIMD4<Float>, _ k: Float) {
        let s = src * k
        pixels[i] = s + pixels[i] * (1 - s.w)
    }
}

extension PixelBuffer {
    /// Reads `r` (inside the buffer) into a canvas through the format's decoder.
    func readCanvas(_ r: PixelBox) -> Canvas? {
        guard let decode = decoder() else { return nil }
        let c = Canvas(r)
        let row = UnsafeMutablePointer<UInt32>.allocate(capacity: max(width, 1))
        defer { row.deallocate() }
        let inv: Float = 1 / 255
        for y in r.y0..<r.y1 {
            decode(y, UnsafeMutableRawPointer(row))
            var i = c.index(r.x0, y)
            for x in r.x0..<r.x1 {
                let p = row[x]
                c.pixels[i] = SIMD4(Float((p >> 16) & 0xFF), Float((p >> 8) & 0xFF), Float(p & 0xFF), Float(p >> 24)) * inv
                i += 1
            }
        }
        return c
    }

    /// Writes a canvas back through the format's encoder (rows are read first,
    /// so pixels outside the canvas keep their values).
    func writeCanvas(_ c: Canvas) -> Bool {
        let r = c.rect
        if format.layout == .bgra32 {
            // The native format: pack straight into the rows.
            c.pixels.withUnsafeBufferPointer { pix in
                for y in r.y0..<r.y1 {
                    let row = self.row(0, y).assumingMemoryBound(to: UInt32.self)
                    var i = (y - r.y0) * r.width
                    for x in r.x0..<r.x1 { row[x] = packBGRA(pix[i]); i += 1 }
                }
            }
            pixelsChanged()
            return true
        }
        guard let decode = decoder(), let encode = encoder() else { return false }
        let row = UnsafeMutablePointer<UInt32>.allocate(capacity: max(width, 1))
        defer { row.deallocate() }
        for y in r.y0..<r.y1 {
            decode(y, UnsafeMutableRawPointer(row))
            var i = c.index(r.x0, y)
            for x in r.x0..<r.x1 {
                row[x] = packBGRA(c.pixels[i])
                i += 1
            }
            encode(UnsafeRawPointer(row), y)
        }
        pixelsChanged()
        return true
    }
}

@inline(__always) func packBGRA(_ v: SIMD4<Float>) -> UInt32 {
    let a = min(max(v.w, 0), 1)
    // Premultiplied: a channel never exceeds alpha.
    let r = min(max(v.x, 0), a), g = min(max(v.y, 0), a), b = min(max(v.z, 0), a)
    let ri = UInt32(r * 255 + 0.5), gi = UInt32(g * 255 + 0.5), bi = UInt32(b * 255 + 0.5), ai = UInt32(a * 255 + 0.5)
    return bi | gi << 8 | ri << 16 | ai << 24
}
