import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel

// The compositor's working surfaces: premultiplied BGRA8 (the kernels'
// layout, B | G<<8 | R<<16 | A<<24) covering an integer pixel rectangle of
// the target. A BGRA target is drawn in place; other formats are decoded
// into an offscreen canvas and encoded back. Groups, masks, shadows and
// rasterized subtrees draw into offscreen canvases.

extension PixelBox {
    /// The pixels a rectangle touches (rounded outwards).
    package init(covering r: CGRect) {
        if r.isNull || r.hasNaN { self = .empty; return }
        // (An infinite size makes an edge NaN: -inf + inf.)
        let minX = r.minX, maxX = r.maxX, minY = r.minY, maxY = r.maxY
        if minX.isNaN || maxX.isNaN || minY.isNaN || maxY.isNaN { self = .empty; return }
        let lim = 1e7
        let a = max(min(minX, lim), -lim), b = max(min(maxX, lim), -lim)
        let c = max(min(minY, lim), -lim), d = max(min(maxY, lim), -lim)
        // (Floor and ceiling from the truncation, exact within the clamp:
        // without SSE4.1, `rounded` is a call into libm.)
        @inline(__always) func floorInt(_ v: Double) -> Int { let t = Int(v); return Double(t) > v ? t - 1 : t }
        @inline(__always) func ceilInt(_ v: Double) -> Int { let t = Int(v); return Double(t) < v ? t + 1 : t }
        x0 = floorInt(a); x1 = ceilInt(b)
        y0 = floorInt(c); y1 = ceilInt(d)
        if x1 == x0 && b > a { x1 += 1 }
        if y1 == y0 && d > c { y1 += 1 }
    }

    package var cgRect: CGRect { CGRect(x: Double(x0), y: Double(y0), width: Double(width), height: Double(height)) }
}

package final class Canvas {
    package let rect: PixelBox
    /// The rectangle this canvas would cover if the frame were drawn in one
    /// piece: `rect` itself, except for a band of a frame split among threads
    /// (its rows of the frame's region) and offscreen canvases drawn for such
    /// a band. Whatever depends on where a canvas starts (a path's raster
    /// origin, a shadow template's placement) is reckoned from here, so each
    /// band computes the pixels one thread would.
    package let frame: PixelBox
    /// Pixel (rect.x0, rect.y0).
    package let base: UnsafeMutablePointer<UInt32>
    package let rowPixels: Int
    private let bitmap: Bitmap?

    /// A transparent offscreen canvas; nil when it cannot be allocated.
    package init?(_ rect: PixelBox, frame: PixelBox? = nil) {
        guard let b = Bitmap(width: rect.width, height: rect.height) else { return nil }
        self.rect = rect
        self.frame = frame ?? rect
        bitmap = b
        base = b.surface.base
        rowPixels = b.surface.rowPixels
    }

    /// A view of pixels the caller keeps alive (a locked BGRA pixel buffer).
    package init(view base: UnsafeMutablePointer<UInt32>, rowPixels: Int, rect: PixelBox, frame: PixelBox? = nil) {
        self.rect = rect
        self.frame = frame ?? rect
        self.base = base
        self.rowPixels = rowPixels
        bitmap = nil
    }

    /// The canvas's pixels as a kernel surface (pixel (0, 0) is rect's origin).
    package var surface: Surface { Surface(base: base, width: rect.width, height: rect.height, rowPixels: rowPixels) }

    /// Row `y` addressed by absolute x (valid for rect.x0 ..< rect.x1).
    @inline(__always) package func row(_ y: Int) -> UnsafeMutablePointer<UInt32> {
        base + (y - rect.y0) * rowPixels - rect.x0
    }

    /// A view of rows `band` (inside `rect`, whole rows of it) for one
    /// thread; the canvas must outlive it. Its frame is this canvas's.
    package func band(_ rows: PixelBox) -> Canvas {
        Canvas(view: row(rows.y0) + rect.x0, rowPixels: rowPixels,
               rect: PixelBox(x0: rect.x0, y0: rows.y0, x1: rect.x1, y1: rows.y1), frame: frame)
    }

    @inline(__always) package func alpha(_ x: Int, _ y: Int) -> UInt32 { row(y)[x] >> 24 }

    package func clear() {
        for y in rect.y0..<rect.y1 { (row(y) + rect.x0).update(repeating: 0, count: rect.width) }
    }
}

extension PixelBuffer {
    /// A canvas for `r` (inside the buffer): the buffer's own rows for 32BGRA,
    /// else a decoded copy (`read`: with the current pixels). The buffer must
    /// be locked while the canvas is used.
    package func canvas(_ r: PixelBox, read: Bool) -> Canvas? {
        if format.layout == .bgra32, let base = baseAddress {
            let rowPixels = bytesPerRow / 4
            guard rowPixels * 4 == bytesPerRow else { return nil }
            let p = base.assumingMemoryBound(to: UInt32.self) + r.y0 * rowPixels + r.x0
            return Canvas(view: p, rowPixels: rowPixels, rect: r)
        }
        guard let decode = decoder(), encoder() != nil, let c = Canvas(r) else { return nil }
        guard read else { return c }
        let tmp = UnsafeMutablePointer<UInt32>.allocate(capacity: max(width, 1))
        defer { tmp.deallocate() }
        for y in r.y0..<r.y1 {
            decode(y, UnsafeMutableRawPointer(tmp))
            (c.row(y) + r.x0).update(from: tmp + r.x0, count: r.width)
        }
        return c
    }

    /// Stores a canvas from `canvas(_:read:)` back (a no-op for in-place
    /// canvases), and bumps the buffer's seed.
    package func finish(_ c: Canvas) -> Bool {
        defer { pixelsChanged() }
        if format.layout == .bgra32 { return true }
        guard let decode = decoder(), let encode = encoder() else { return false }
        let r = c.rect
        let tmp = UnsafeMutablePointer<UInt32>.allocate(capacity: max(width, 1))
        defer { tmp.deallocate() }
        for y in r.y0..<r.y1 {
            decode(y, UnsafeMutableRawPointer(tmp))
            (tmp + r.x0).update(from: c.row(y) + r.x0, count: r.width)
            encode(UnsafeRawPointer(tmp), y)
        }
        return true
    }
}

/// A premultiplied Float colour (0...1) as a BGRA8 pixel.
@inline(__always) package func packBGRA(_ v: SIMD4<Float>) -> UInt32 {
    // (Comparisons that send NaN to 0: the conversions below would trap on it.)
    let a: Float = v.w >= 1 ? 1 : (v.w > 0 ? v.w : 0)
    // Premultiplied: a channel never exceeds alpha.
    @inline(__always) func channel(_ c: Float) -> Float { c >= a ? a : (c > 0 ? c : 0) }
    let r = channel(v.x), g = channel(v.y), b = channel(v.z)
    let ri = UInt32(r * 255 + 0.5), gi = UInt32(g * 255 + 0.5), bi = UInt32(b * 255 + 0.5), ai = UInt32(a * 255 + 0.5)
    return bi | gi << 8 | ri << 16 | ai << 24
}

/// A coverage or opacity (0...1) as 0...255.
@inline(__always) package func unit8(_ x: Double) -> UInt32 { x >= 1 ? 255 : (x > 0 ? UInt32(x * 255 + 0.5) : 0) }
