import CQuartzite
import QuartziteCore
import QuartziteGeometry
import Glibc
import Synchronization

/// Where one plane of a buffer lies, relative to the start of the memory.
public struct PlaneLayout: Equatable {
    /// The plane's size in its own samples (a 4:2:0 chroma plane of a
    /// 1920x1080 buffer is 960x540), without extended pixels.
    public var width: Int
    public var height: Int
    public var bytesPerRow: Int
    /// Offset of the plane's pixel (0, 0).
    public var offset: Int
    /// Offset of the plane's first byte (its extended rows and columns
    /// included) and the bytes it spans.
    public var start: Int
    public var byteCount: Int
    /// Extended pixels of this plane, in its own samples.
    public var extendedLeft = 0, extendedRight = 0, extendedTop = 0, extendedBottom = 0
}

/// The memory layout of a buffer that CVPixelBufferCreate allocates:
///
///     [planar header: 8 bytes per plane, planar formats only]
///     [plane 0: rows of bytesPerRow bytes, extended rows and columns included]
///     [plane 1] ...
///
/// Every plane starts at a multiple of the plane alignment (at least the row
/// alignment) from the start of the memory, which is itself aligned to 64
/// bytes or more, so with the default alignments every row starts on a
/// 16-byte boundary. Rows are padded to a multiple of the bytes-per-row
/// alignment. Extended pixels are rounded up to whole blocks of every plane
/// (for 4:2:0 to even numbers).
public struct PixelBufferLayout: Equatable {
    public var planes: [PlaneLayout]
    /// Bytes of the planar header (0 for chunky formats).
    public var headerBytes: Int
    public var totalBytes: Int
    /// The alignment the memory itself needs.
    public var memoryAlignment: Int
    public var extendedLeft: Int, extendedRight: Int, extendedTop: Int, extendedBottom: Int

    /// Default alignment of each row (bytes), and of each plane's start.
    public static let defaultRowAlignment = 16
    public static let defaultPlaneAlignment = 16

    /// Computes the layout; throws kCVReturnInvalidSize for a zero or too
    /// large size (or one whose byte count overflows).
    public init(width: Int, height: Int, format: PixelFormatDescription,
                rowAlignment: Int? = nil, planeAlignment: Int? = nil,
                extended: (left: Int, top: Int, right: Int, bottom: Int) = (0, 0, 0, 0)) throws(CVError) {
        guard width > 0, height > 0 else { throw .invalidSize("a pixel buffer of \(width)x\(height) pixels has no pixels") }
        guard width <= maximumPixelBufferDimension, height <= maximumPixelBufferDimension else {
            throw .invalidSize("\(width)x\(height) pixels: width and height are limited to \(maximumPixelBufferDimension)")
        }
        let bytesPerPixel = format.simpleBytesPerPixel
        if bytesPerPixel > 0, rowAlignment == nil, planeAlignment == nil, extended == (0, 0, 0, 0) {
            self = try PixelBufferLayout(width: width, height: height, bytesPerPixel: bytesPerPixel)
            return
        }
        let rowAlign = rowAlignment ?? Self.defaultRowAlignment
        let planeAlign = rowAlign == (planeAlignment ?? Self.defaultPlaneAlignment)
            ? rowAlign : lcm(planeAlignment ?? Self.defaultPlaneAlignment, rowAlign)
        let (gh, gv) = format.granularity
        // (Most multiples are powers of two, one and 16 above all: a mask
        // instead of a division, of which a buffer's layout makes a dozen.)
        func roundUp(_ x: Int, _ m: Int) -> Int { m & (m &- 1) == 0 ? (x &+ m &- 1) & ~(m &- 1) : (x + m - 1) / m * m }
        extendedLeft = roundUp(extended.left, gh)
        extendedRight = roundUp(extended.right, gh)
        extendedTop = roundUp(extended.top, gv)
        extendedBottom = roundUp(extended.bottom, gv)
        headerBytes = format.isPlanar ? 8 * format.planes.count : 0
        memoryAlignment = max(64, planeAlign & (~planeAlign + 1))  // the power-of-two part
        var offset = headerBytes
        var planes: [PlaneLayout] = []
        planes.reserveCapacity(format.planes.count)
        for p in format.planes {
            let hs = p.horizontalSubsampling, vs = p.verticalSubsampling
            let w = (width + hs - 1) / hs, h = (height + vs - 1) / vs
            let l = extendedLeft / hs, r = extendedRight / hs, t = extendedTop / vs, b = extendedBottom / vs
            let blocksPerRow = roundUp((l + w + r + p.blockWidth - 1) / p.blockWidth, p.blockHorizontalAlignment)
            let rowBytes = roundUp(blocksPerRow * p.bytesPerBlock, rowAlign)
            let rows = roundUp((t + h + b + p.blockHeight - 1) / p.blockHeight, p.blockVerticalAlignment)
            let (bytes, o1) = rowBytes.multipliedReportingOverflow(by: rows)
            guard !o1, bytes < 1 << 46 else { throw .invalidSize("\(width)x\(height) pixels need too many bytes") }
            let start = roundUp(offset, planeAlign)
            let origin = start + (t / p.blockHeight) * rowBytes + (l / p.blockWidth) * p.bytesPerBlock
            planes.append(PlaneLayout(width: w, height: h, bytesPerRow: rowBytes, offset: origin, start: start,
                                      byteCount: bytes, extendedLeft: l, extendedRight: r, extendedTop: t,
                                      extendedBottom: b))
            offset = start + bytes
        }
        self.planes = planes
        totalBytes = max(offset, 1)
    }

    /// The general layout's result for one plane of single-pixel blocks,
    /// the default alignments and no extended pixels (every backing store
    /// of the display cycle), in a few steps: rows padded to 16 bytes, the
    /// plane at offset 0, the memory aligned to 64. (Callers have checked
    /// the width and height.)
    private init(width: Int, height: Int, bytesPerPixel: Int) throws(CVError) {
        let a = Self.defaultRowAlignment   // a power of two, equal to the plane alignment
        func tooMany() -> CVError { .invalidSize("\(width)x\(height) pixels need too many bytes") }
        let (row, o1) = width.multipliedReportingOverflow(by: bytesPerPixel)
        guard !o1, row < 1 << 46 else { throw tooMany() }   // (so that rounding up cannot overflow)
        let rowBytes = (row + a - 1) & ~(a - 1)
        let (bytes, o2) = rowBytes.multipliedReportingOverflow(by: height)
        guard !o2, bytes < 1 << 46 else { throw tooMany() }
        planes = [PlaneLayout(width: width, height: height, bytesPerRow: rowBytes, offset: 0, start: 0, byteCount: bytes)]
        headerBytes = 0
        totalBytes = bytes
        memoryAlignment = 64
        extendedLeft = 0; extendedRight = 0; extendedTop = 0; extendedBottom = 0
    }
}

/// Pixel memory: owned (allocated here, freed with the storage) or wrapped
/// (the caller's, handed back through its release callback exactly once,
/// when the storage dies). A pool recycles owned storage between buffers.
public final class PixelStorage {
    public enum Release {
        case none
        case bytes(CVPixelBufferReleaseBytesCallback, UnsafeMutableRawPointer?, UnsafeRawPointer?)
        case planarBytes(CVPixelBufferReleasePlanarBytesCallback, UnsafeMutableRawPointer?, UnsafeRawPointer?, Int,
                         [UnsafeRawPointer?])
    }

    /// The start of owned memory (aligned), or nil for wrapped memory.
    public let memory: UnsafeMutableRawPointer?
    public let byteCount: Int
    private let allocation: UnsafeMutableRawPointer?
    private let release: Release

    /// Allocates `byteCount` zeroed bytes aligned to `alignment` (a power of
    /// two), within the process-wide limit; nil when that fails.
    public init?(allocating byteCount: Int, alignment: Int) {
        guard PixelMemory.reserve(byteCount) else { return nil }
        // calloc: large blocks come straight from mmap, already zero, so
        // fresh buffers cost no memset; the alignment is done by hand.
        guard let raw = calloc(1, byteCount + alignment) else {
            PixelMemory.unreserve(byteCount)
            return nil
        }
        let address = (Int(bitPattern: raw) + alignment - 1) & ~(alignment - 1)
        allocation = raw
        memory = UnsafeMutableRawPointer(bitPattern: address)
        self.byteCount = byteCount
        release = .none
    }

    /// Wraps the caller's memory.
    public init(wrapping release: Release) {
        allocation = nil
        memory = nil
        byteCount = 0
        self.release = release
    }

    deinit {
        if let allocation {
            free(allocation)
            PixelMemory.unreserve(byteCount)
        }
        switch release {
        case .none: break
        case .bytes(let callback, let refCon, let base):
            hostCall { callback(refCon, base) }
        case .planarBytes(let callback, let refCon, let data, let dataSize, let planes):
            var addresses = planes
            hostCall {
                addresses.withUnsafeMutableBufferPointer { callback(refCon, data, dataSize, $0.count, $0.baseAddress) }
            }
        }
    }
}

/// The pixel memory Quartzite has allocated (buffers in use and pool
/// buffers waiting for reuse), against an optional limit.
public enum PixelMemory {
    private static let state = AtomicPair()

    /// 0 means no limit.
    public static var limit: Int {
        get { state.limit.load(ordering: .relaxed) }
        set { state.limit.store(max(0, newValue), ordering: .relaxed) }
    }

    public static var inUse: Int { state.inUse.load(ordering: .relaxed) }

    package static func reserve(_ bytes: Int) -> Bool {
        let limit = state.limit.load(ordering: .relaxed)
        var current = state.inUse.load(ordering: .relaxed)
        while true {
            let (next, overflow) = current.addingReportingOverflow(bytes)
            if overflow || (limit > 0 && next > limit) { return false }
            let (exchanged, original) = state.inUse.compareExchange(expected: current, desired: next, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
    }

    package static func unreserve(_ bytes: Int) {
        state.inUse.subtract(bytes, ordering: .relaxed)
    }
}

package final class AtomicPair: Sendable {
    package let inUse = Atomic<Int>(0)
    package let limit = Atomic<Int>(0)
}
