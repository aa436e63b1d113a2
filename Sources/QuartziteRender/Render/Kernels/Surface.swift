import QuartziteGeometry
import QuartziteGraphics
// Pixel storage for the compositor: premultiplied BGRA8 surfaces and 8-bit
// coverage planes, as non-owning views (Surface, AlphaMask) and owning
// allocations with 64-byte aligned rows (Bitmap, MaskBitmap).

/// A rectangle of whole pixels, as its edges: columns x0..<x1 and rows
/// y0..<y1 (row 0 is the top row). The one integer rectangle of the
/// renderer: kernels, canvases and damage all use it.
package struct PixelBox: Equatable {
    package var x0: Int, y0: Int, x1: Int, y1: Int

    package init(x0: Int, y0: Int, x1: Int, y1: Int) { self.x0 = x0; self.y0 = y0; self.x1 = x1; self.y1 = y1 }

    /// From the top-left pixel and a size.
    package init(x: Int, y: Int, width: Int, height: Int) {
        x0 = x; y0 = y; x1 = x + width; y1 = y + height
    }

    package static let empty = PixelBox(x0: 0, y0: 0, x1: 0, y1: 0)

    package var x: Int { x0 }
    package var y: Int { y0 }
    package var maxX: Int { x1 }
    package var maxY: Int { y1 }
    package var width: Int { Swift.max(x1 - x0, 0) }
    package var height: Int { Swift.max(y1 - y0, 0) }
    package var isEmpty: Bool { x1 <= x0 || y1 <= y0 }

    /// The overlap of two rectangles (empty when they do not meet).
    package func intersection(_ o: PixelBox) -> PixelBox {
        let r = PixelBox(x0: Swift.max(x0, o.x0), y0: Swift.max(y0, o.y0), x1: Swift.min(x1, o.x1), y1: Swift.min(y1, o.y1))
        return r.isEmpty ? .empty : r
    }

    /// The smallest rectangle holding both (an empty one counts as nothing).
    package func union(_ o: PixelBox) -> PixelBox {
        if isEmpty { return o }
        if o.isEmpty { return self }
        return PixelBox(x0: Swift.min(x0, o.x0), y0: Swift.min(y0, o.y0), x1: Swift.max(x1, o.x1), y1: Swift.max(y1, o.y1))
    }

    package func offset(_ dx: Int, _ dy: Int) -> PixelBox { PixelBox(x0: x0 + dx, y0: y0 + dy, x1: x1 + dx, y1: y1 + dy) }
}

/// A premultiplied BGRA8 image that this value does not own: pixel =
/// B | G<<8 | R<<16 | A<<24 (memory order B, G, R, A, kCVPixelFormatType_32BGRA
/// on little-endian), row 0 at the top, `rowPixels` pixels from one row to the next.
///
/// **Edge cases:** a surface may be empty (width or height 0); kernels then do nothing.
package struct Surface {
    package var base: UnsafeMutablePointer<UInt32>
    package var width: Int
    package var height: Int
    package var rowPixels: Int

    package init(base: UnsafeMutablePointer<UInt32>, width: Int, height: Int, rowPixels: Int) {
        self.base = base
        self.width = Swift.max(0, width)
        self.height = Swift.max(0, height)
        self.rowPixels = rowPixels
    }

    @inline(__always) package func row(_ y: Int) -> UnsafeMutablePointer<UInt32> { base + y * rowPixels }

    /// The pixel at (x, y); both must be inside the surface.
    @inline(__always) package subscript(x: Int, y: Int) -> UInt32 {
        get { base[y * rowPixels + x] }
        nonmutating set { base[y * rowPixels + x] = newValue }
    }

    package var bounds: PixelBox { PixelBox(x: 0, y: 0, width: width, height: height) }

    /// The part of this surface inside `rect` (clipped to the surface), sharing its pixels.
    package func subSurface(_ rect: PixelBox) -> Surface {
        let r = rect.intersection(bounds)
        if r.isEmpty { return Surface(base: base, width: 0, height: 0, rowPixels: rowPixels) }
        return Surface(base: base + r.y * rowPixels + r.x, width: r.width, height: r.height, rowPixels: rowPixels)
    }

    /// Sets every pixel to `color` (premultiplied; 0 is transparent).
    package func fill(_ color: UInt32) {
        for y in 0..<height { row(y).update(repeating: color, count: width) }
    }

    /// Sets every pixel in `rect` (clipped) to `color`.
    package func fill(_ color: UInt32, in rect: PixelBox) { subSurface(rect).fill(color) }

    /// Copies `src` into this surface with its top-left at (x, y), replacing
    /// the pixels (no blending); clipped to this surface.
    package func copy(from src: Surface, x: Int, y: Int) {
        let r = PixelBox(x: x, y: y, width: src.width, height: src.height).intersection(bounds)
        if r.isEmpty { return }
        for j in 0..<r.height {
            row(r.y + j).advanced(by: r.x).update(from: src.row(r.y + j - y) + (r.x - x), count: r.width)
        }
    }
}

extension AlphaMask {
    package var bounds: PixelBox { PixelBox(x: 0, y: 0, width: width, height: height) }
}

/// Blurs an owned mask in place (see `gaussianBlur(mask: AlphaMask, ...)`).
package func gaussianBlur(mask: MaskBitmap, sigma: Double) { gaussianBlur(mask: mask.mask, sigma: sigma) }

/// Rows padded to a multiple of 64 bytes.
@inline(__always) private func alignedRowBytes(_ bytes: Int) -> Int { (bytes + 63) & ~63 }

/// Bytes above which an allocation is refused (a sanity limit: 1 GiB).
package let kernelMaxAllocationBytes = 1 << 30

/// An owned premultiplied BGRA8 image (offscreen layers, groups, rasterized
/// subtrees), zero-filled (transparent) on creation, rows 64-byte aligned.
package final class Bitmap {
    package let surface: Surface
    private let storage: UnsafeMutableRawPointer

    /// A transparent width x height bitmap; nil when a side is negative or
    /// the size exceeds `kernelMaxAllocationBytes`. A 0-sized bitmap is valid (and empty).
    package init?(width: Int, height: Int) {
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
    package convenience init?(copying source: Surface) {
        self.init(width: source.width, height: source.height)
        surface.copy(from: source, x: 0, y: 0)
    }

    deinit { storage.deallocate() }

    package var width: Int { surface.width }
    package var height: Int { surface.height }
}

/// An owned 8-bit coverage plane, zero-filled on creation, rows 64-byte aligned.
package final class MaskBitmap {
    package let mask: AlphaMask
    private let storage: UnsafeMutableRawPointer

    package init?(width: Int, height: Int) {
        guard width >= 0, height >= 0, width <= 1 << 20, height <= 1 << 20 else { return nil }
        let rowBytes = alignedRowBytes(width)
        let (bytes, overflow) = rowBytes.multipliedReportingOverflow(by: height)
        guard !overflow, bytes <= kernelMaxAllocationBytes else { return nil }
        storage = UnsafeMutableRawPointer.allocate(byteCount: Swift.max(bytes, 64), alignment: 64)
        storage.initializeMemory(as: UInt8.self, repeating: 0, count: Swift.max(bytes, 64))
        mask = AlphaMask(base: storage.assumingMemoryBound(to: UInt8.self), width: width, height: height, rowBytes: rowBytes)
    }

    deinit { storage.deallocate() }

    package var width: Int { mask.width }
    package var height: Int { mask.height }
}
