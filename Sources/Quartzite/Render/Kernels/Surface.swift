// Pixel storage for the compositor: premultiplied BGRA8 surfaces and 8-bit
// coverage planes, as non-owning views (Surface, AlphaMask) and owning
// allocations with 64-byte aligned rows (Bitmap, MaskBitmap).

/// A rectangle of whole pixels (x, y: top-left; row 0 is the top row).
struct PixelRect: Equatable {
    var x: Int
    var y: Int
    var width: Int
    var height: Int

    static let empty = PixelRect(x: 0, y: 0, width: 0, height: 0)

    var isEmpty: Bool { width <= 0 || height <= 0 }
    var maxX: Int { x + width }
    var maxY: Int { y + height }

    /// The overlap of two rectangles (empty when they do not meet).
    func intersection(_ o: PixelRect) -> PixelRect {
        let x0 = Swift.max(x, o.x), y0 = Swift.max(y, o.y)
        let x1 = Swift.min(maxX, o.maxX), y1 = Swift.min(maxY, o.maxY)
        return x1 > x0 && y1 > y0 ? PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0) : .empty
    }

    /// The smallest rectangle holding both (an empty one counts as nothing).
    func union(_ o: PixelRect) -> PixelRect {
        if isEmpty { return o }
        if o.isEmpty { return self }
        let x0 = Swift.min(x, o.x), y0 = Swift.min(y, o.y)
        return PixelRect(x: x0, y: y0, width: Swift.max(maxX, o.maxX) - x0, height: Swift.max(maxY, o.maxY) - y0)
    }
}

/// A premultiplied BGRA8 image that this value does not own: pixel =
/// B | G<<8 | R<<16 | A<<24 (memory order B, G, R, A, kCVPixelFormatType_32BGRA
/// on little-endian), row 0 at the top, `rowPixels` pixels from one row to the next.
///
/// **Edge cases:** a surface may be empty (width or height 0); kernels then do nothing.
struct Surface {
    var base: UnsafeMutablePointer<UInt32>
    var width: Int
    var height: Int
    var rowPixels: Int

    init(base: UnsafeMutablePointer<UInt32>, width: Int, height: Int, rowPixels: Int) {
        self.base = base
        self.width = Swift.max(0, width)
        self.height = Swift.max(0, height)
        self.rowPixels = rowPixels
    }

    @inline(__always) func row(_ y: Int) -> UnsafeMutablePointer<UInt32> { base + y * rowPixels }

    /// The pixel at (x, y); both must be inside the surface.
    @inline(__always) subscript(x: Int, y: Int) -> UInt32 {
        get { base[y * rowPixels + x] }
        nonmutating set { base[y * rowPixels + x] = newValue }
    }

    var bounds: PixelRect { PixelRect(x: 0, y: 0, width: width, height: height) }

    /// The part of this surface inside `rect` (clipped to the surface), sharing its pixels.
    func subSurface(_ rect: PixelRect) -> Surface {
        let r = rect.intersection(bounds)
        if r.isEmpty { return Surface(base: base, width: 0, height: 0, rowPixels: rowPixels) }
        return Surface(base: base + r.y * rowPixels + r.x, width: r.width, height: r.height, rowPixels: rowPixels)
    }

    /// Sets every pixel to `color` (premultiplied; 0 is transparent).
    func fill(_ color: UInt32) {
        for y in 0..<height { row(y).update(repeating: color, count: width) }
    }

    /// Sets every pixel in `rect` (clipped) to `color`.
    func fill(_ color: UInt32, in rect: PixelRect) { subSurface(rect).fill(color) }

    /// Copies `src` into this surface with its top-left at (x, y), replacing
    /// the pixels (no blending); clipped to this surface.
    func copy(from src: Surface, x: Int, y: Int) {
        let r = PixelRect(x: x, y: y, width: src.width, height: src.height).intersection(bounds)
        if r.isEmpty { return }
        for j in 0..<r.height {
            row(r.y + j).advanced(by: r.x).update(from: src.row(r.y + j - y) + (r.x - x), count: r.width)
        }
    }
}

extension AlphaMask {
    var bounds: PixelRect { PixelRect(x: 0, y: 0, width: width, height: height) }
}

/// Blurs an owned mask in place (see `gaussianBlur(mask: AlphaMask, ...)`).
func gaussianBlur(mask: MaskBitmap, sigma: Double) { gaussianBlur(mask: mask.mask, sigma: sigma) }

/// Rows padded to a multiple of 64 bytes.
@inline(__always) private func alignedRowBytes(_ bytes: Int) -> Int { (bytes + 63) & ~63 }

/// Bytes above which an allocation is refused (a sanity limit: 1 GiB).
let kernelMaxAllocationBytes = 1 << 30

/// An owned premultiplied BGRA8 image (offscreen layers, groups, rasterized
/// subtrees), zero-filled (transparent) on creation, rows 64-byte aligned.
final class Bitmap {
    let surface: Surface
    private let storage: UnsafeMutableRawPointer

    /// A transparent width x height bitmap; nil when a side is negative or
    /// the size exceeds `kernelMaxAllocationBytes`. A 0-sized bitmap is valid (and empty).
    init?(width: Int, height: Int) {
        guard width >= 0, height >= 0, width <= 1 << 20, height <= 1 << 20 else { return nil }
        let rowBytes = alignedRowBytes(width * 4)
        let (bytes, overflow) = rowBytes.multipliedReportingOverflow(by: height)
        guard !overflow, bytes <= kernelMaxAllocationBytes else { return nil }
        storage = UnsafeMutableRawPointer.allocate(byteCount: Swift.max(bytes, 64), alignment: 64)
        storage.initializeMemory(as: UInt8.self, repeating: 0, count: Swift.max(bytes, 64))
        surface = Surface(base: storage.assumingMemoryBound(to: UInt32.self), width: width, height: height,
                          rowPixels: rowBytes / 4)
    }

    /// A copy of `source`'s pixels.
    convenience init?(copying source: Surface) {
        self.init(width: source.width, height: source.height)
        surface.copy(from: source, x: 0, y: 0)
    }

    deinit { storage.deallocate() }

    var width: Int { surface.width }
    var height: Int { surface.height }
}

/// An owned 8-bit coverage plane, zero-filled on creation, rows 64-byte aligned.
final class MaskBitmap {
    let mask: AlphaMask
    private let storage: UnsafeMutableRawPointer

    init?(width: Int, height: Int) {
        guard width >= 0, height >= 0, width <= 1 << 20, height <= 1 << 20 else { return nil }
        let rowBytes = alignedRowBytes(width)
        let (bytes, overflow) = rowBytes.multipliedReportingOverflow(by: height)
        guard !overflow, bytes <= kernelMaxAllocationBytes else { return nil }
        storage = UnsafeMutableRawPointer.allocate(byteCount: Swift.max(bytes, 64), alignment: 64)
        storage.initializeMemory(as: UInt8.self, repeating: 0, count: Swift.max(bytes, 64))
        mask = AlphaMask(base: storage.assumingMemoryBound(to: UInt8.self), width: width, height: height, rowBytes: rowBytes)
    }

    deinit { storage.deallocate() }

    var width: Int { mask.width }
    var height: Int { mask.height }
}
