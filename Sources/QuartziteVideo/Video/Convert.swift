import CQuartzite
import QuartziteCore
import QuartziteGeometry

// Conversions between pixel formats, through premultiplied 32BGRA: every
// readable format decodes to BGRA rows, and BGRA encodes to the RGB and
// gray formats. The alpha of RGB formats is taken as premultiplied (as a
// CGBitmapContext over a pixel buffer writes it), so reordering channels
// is all a conversion between them does; formats without alpha read as
// opaque and, written from BGRA, drop alpha (black behind). The Y'CbCr
// decoders, the 32-bit reorderings and the 16-bit RGB decoders run in SIMD
// vectors; the others (24, 48 and 64-bit, gray) are plain loops.

/// Decodes row `y` of a buffer into `width` BGRA pixels at `out`.
package typealias RowDecoder = (_ y: Int, _ out: UnsafeMutableRawPointer) -> Void
/// Encodes `width` BGRA pixels at `bgra` into row `y` of a buffer.
package typealias RowEncoder = (_ bgra: UnsafeRawPointer, _ y: Int) -> Void

/// Per-pixel 32-bit reorderings (little-endian words: BGRA reads as
/// B | G << 8 | R << 16 | A << 24). Generic so the same code runs on one
/// pixel and on 8 at a time.
@inline(__always) package func byteSwap<V: SIMD>(_ v: V) -> V where V.Scalar == UInt32 {
    (v &>> 24) | ((v &>> 8) & 0xFF00) | ((v &<< 8) & 0xFF_0000) | (v &<< 24)
}
@inline(__always) package func swapRedBlue<V: SIMD>(_ v: V) -> V where V.Scalar == UInt32 {
    (v & 0xFF00_FF00) | ((v &>> 16) & 0xFF) | ((v & 0xFF) &<< 16)
}
@inline(__always) package func rotateRight8<V: SIMD>(_ v: V) -> V where V.Scalar == UInt32 { (v &>> 8) | (v &<< 24) }
@inline(__always) package func rotateLeft8<V: SIMD>(_ v: V) -> V where V.Scalar == UInt32 { (v &<< 8) | (v &>> 24) }

/// Applies a 32-bit reordering to `count` pixels, 8 at a time (the last
/// few one by one, in the first lane of a 2-lane vector).
@inline(__always)
package func reorder32(_ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, _ count: Int,
               _ vector: (SIMD8<UInt32>) -> SIMD8<UInt32>, _ scalar: (SIMD2<UInt32>) -> SIMD2<UInt32>) {
    var i = 0
    while i + 8 <= count {
        dst.storeBytes(of: vector(src.loadUnaligned(fromByteOffset: 4 * i, as: SIMD8<UInt32>.self)),
                       toByteOffset: 4 * i, as: SIMD8<UInt32>.self)
        i += 8
    }
    while i < count {
        let w = SIMD2<UInt32>(src.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self), 0)
        dst.storeBytes(of: scalar(w)[0], toByteOffset: 4 * i, as: UInt32.self)
        i += 1
    }
}

/// 16-bit big-endian sample → 8 bits, rounded.
@inline(__always) package func narrow16(_ p: UnsafeRawPointer, _ offset: Int) -> UInt32 {
    let v = UInt32(UInt16(bigEndian: p.loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
    return (v * 255 + 32767) / 65535
}

@inline(__always) package func widen8(_ v: UInt32, _ p: UnsafeMutableRawPointer, _ offset: Int) {
    p.storeBytes(of: UInt16(truncatingIfNeeded: v * 257).bigEndian, toByteOffset: offset, as: UInt16.self)
}

/// Rec. 601 luma of a BGRA pixel, 0...255.
@inline(__always) package func luma(_ bgra: UInt32) -> UInt32 {
    let b = bgra & 0xFF, g = (bgra >> 8) & 0xFF, r = (bgra >> 16) & 0xFF
    return (r * 19595 + g * 38470 + b * 7471 + 32768) >> 16
}

/// Decodes `count` 16-bit RGB pixels into BGRA, 8 at a time in SIMD lanes
/// (the last few one by one, in the first lane of a 2-lane vector). 5 and 6
/// bit channels widen by repeating their top bits (31 -> 255, 63 -> 255);
/// a clear 1-bit alpha gives transparent black (premultiplied).
@inline(__always)
package func rgb16Row(_ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, _ count: Int, _ packing: RGB16Packing,
              bigEndian: Bool) {
    @inline(__always) func pixel<V: SIMD>(_ word: V) -> V where V.Scalar == UInt32 {
        let v = bigEndian ? ((word &>> 8) & 0xFF) | ((word & 0xFF) &<< 8) : word
        @inline(__always) func five(_ x: V) -> V { (x &<< 3) | (x &>> 2) }
        switch packing {
        case .x555:
            let r = five((v &>> 10) & 0x1F), g = five((v &>> 5) & 0x1F), b = five(v & 0x1F)
            return b | (g &<< 8) | (r &<< 16) | V(repeating: 0xFF00_0000)
        case .rgba5551:
            let r = five((v &>> 11) & 0x1F), g = five((v &>> 6) & 0x1F), b = five((v &>> 1) & 0x1F)
            let keep = V(repeating: 0) &- (v & 1)   // all ones when the alpha bit is set
            return (b | (g &<< 8) | (r &<< 16) | V(repeating: 0xFF00_0000)) & keep
        case .rgb565:
            let g6 = (v &>> 5) & 0x3F
            let r = five((v &>> 11) & 0x1F), g = (g6 &<< 2) | (g6 &>> 4), b = five(v & 0x1F)
            return b | (g &<< 8) | (r &<< 16) | V(repeating: 0xFF00_0000)
        }
    }
    var i = 0
    while i + 8 <= count {
        let words = SIMD8<UInt32>(truncatingIfNeeded: src.loadUnaligned(fromByteOffset: 2 * i, as: SIMD8<UInt16>.self))
        dst.storeBytes(of: pixel(words), toByteOffset: 4 * i, as: SIMD8<UInt32>.self)
        i += 8
    }
    while i < count {
        let w = SIMD2<UInt32>(UInt32(src.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self)), 0)
        dst.storeBytes(of: pixel(w)[0], toByteOffset: 4 * i, as: UInt32.self)
        i += 1
    }
}

extension PixelBuffer {
    /// Whether the renderer can show the buffer as layer contents (its
    /// format has a decoder): what CALayerSetContents accepts.
    package var canBeContents: Bool {
        if case .opaque = format.layout { return false }
        return true
    }

    /// The Y'CbCr matrix of this buffer's kCVImageBufferYCbCrMatrixKey
    /// attachment; ITU-R 601 when it is absent or names no known matrix.
    public var ycbcrMatrix: YCbCrMatrix {
        attachment(kCVImageBufferYCbCrMatrixKey)?.value.string.flatMap(YCbCrMatrix.init(attachment:)) ?? .itu601
    }

    package func row(_ plane: Int, _ y: Int) -> UnsafeMutableRawPointer {
        planeAddress(plane) + y * planes[plane].bytesPerRow
    }

    /// The decoder of this buffer's format, or nil when it has none.
    package func decoder() -> RowDecoder? {
        let w = width
        switch format.layout {
        case .bgra32: return { y, out in out.copyMemory(from: self.row(0, y), byteCount: 4 * w) }
        case .argb32: return { y, out in reorder32(self.row(0, y), out, w, byteSwap, byteSwap) }
        case .rgba32: return { y, out in reorder32(self.row(0, y), out, w, swapRedBlue, swapRedBlue) }
        case .abgr32: return { y, out in reorder32(self.row(0, y), out, w, rotateRight8, rotateRight8) }
        case .rgb24, .bgr24:
            let rFirst = format.layout == .rgb24
            return { y, out in
                let p = self.row(0, y)
                for x in 0..<w {
                    let c0 = UInt32(p.load(fromByteOffset: 3 * x, as: UInt8.self))
                    let c1 = UInt32(p.load(fromByteOffset: 3 * x + 1, as: UInt8.self))
                    let c2 = UInt32(p.load(fromByteOffset: 3 * x + 2, as: UInt8.self))
                    let (r, b) = rFirst ? (c0, c2) : (c2, c0)
                    out.storeBytes(of: b | c1 << 8 | r << 16 | 0xFF00_0000, toByteOffset: 4 * x, as: UInt32.self)
                }
            }
        case .argb64:
            return { y, out in
                let p = self.row(0, y)
                for x in 0..<w {
                    let a = narrow16(p, 8 * x), r = narrow16(p, 8 * x + 2), g = narrow16(p, 8 * x + 4), b = narrow16(p, 8 * x + 6)
                    out.storeBytes(of: b | g << 8 | r << 16 | a << 24, toByteOffset: 4 * x, as: UInt32.self)
                }
            }
        case .rgb48:
            return { y, out in
                let p = self.row(0, y)
                for x in 0..<w {
                    let r = narrow16(p, 6 * x), g = narrow16(p, 6 * x + 2), b = narrow16(p, 6 * x + 4)
                    out.storeBytes(of: b | g << 8 | r << 16 | 0xFF00_0000, toByteOffset: 4 * x, as: UInt32.self)
                }
            }
        case .alphaGray32:
            return { y, out in
                let p = self.row(0, y)
                for x in 0..<w {
                    let a = narrow16(p, 4 * x), g = narrow16(p, 4 * x + 2)
                    out.storeBytes(of: g | g << 8 | g << 16 | a << 24, toByteOffset: 4 * x, as: UInt32.self)
                }
            }
        case .gray16:
            return { y, out in
                let p = self.row(0, y)
                for x in 0..<w {
                    let g = narrow16(p, 2 * x)
                    out.storeBytes(of: g | g << 8 | g << 16 | 0xFF00_0000, toByteOffset: 4 * x, as: UInt32.self)
                }
            }
        case .grayWhiteIsZero(let bits):
            let perByte = 8 / bits, maximum = UInt32((1 << bits) - 1)
            return { y, out in
                let p = self.row(0, y)
                for x in 0..<w {
                    let byte = UInt32(p.load(fromByteOffset: x / perByte, as: UInt8.self))
                    let shift = UInt32(8 - bits * (x % perByte + 1))
                    let level = (byte >> shift) & maximum
                    let g = 255 - level * 255 / maximum
                    out.storeBytes(of: g | g << 8 | g << 16 | 0xFF00_0000, toByteOffset: 4 * x, as: UInt32.self)
                }
            }
        case .rgb16(let packing, let bigEndian):
            return { y, out in rgb16Row(self.row(0, y), out, w, packing, bigEndian: bigEndian) }
        case .ycbcr420BiPlanar(let full):
            let k = YCbCrKernel(matrix: ycbcrMatrix, fullRange: full)
            return { y, out in k.biPlanarRow(luma: self.row(0, y), chroma: self.row(1, y / 2), out: out, width: w) }
        case .ycbcr420Planar(let full):
            let k = YCbCrKernel(matrix: ycbcrMatrix, fullRange: full)
            return { y, out in
                k.planarRow(luma: self.row(0, y), cb: self.row(1, y / 2), cr: self.row(2, y / 2), out: out, width: w)
            }
        case .ycbcr422(let yFirst, let full):
            let k = YCbCrKernel(matrix: ycbcrMatrix, fullRange: full)
            return { y, out in k.packedRow(self.row(0, y), out: out, width: w, yFirst: yFirst) }
        case .opaque:
            return nil
        }
    }

    /// The encoder from BGRA into this buffer's format, or nil when it has none.
    package func encoder() -> RowEncoder? {
        let w = width
        switch format.layout {
        case .bgra32: return { src, y in self.row(0, y).copyMemory(from: src, byteCount: 4 * w) }
        case .argb32: return { src, y in reorder32(src, self.row(0, y), w, byteSwap, byteSwap) }
        case .rgba32: return { src, y in reorder32(src, self.row(0, y), w, swapRedBlue, swapRedBlue) }
        case .abgr32: return { src, y in reorder32(src, self.row(0, y), w, rotateLeft8, rotateLeft8) }
        case .rgb24, .bgr24:
            let rFirst = format.layout == .rgb24
            return { src, y in
                let p = self.row(0, y)
                for x in 0..<w {
                    let v = src.loadUnaligned(fromByteOffset: 4 * x, as: UInt32.self)
                    let b = UInt8(v & 0xFF), g = UInt8((v >> 8) & 0xFF), r = UInt8((v >> 16) & 0xFF)
                    p.storeBytes(of: rFirst ? r : b, toByteOffset: 3 * x, as: UInt8.self)
                    p.storeBytes(of: g, toByteOffset: 3 * x + 1, as: UInt8.self)
                    p.storeBytes(of: rFirst ? b : r, toByteOffset: 3 * x + 2, as: UInt8.self)
                }
            }
        case .argb64:
            return { src, y in
                let p = self.row(0, y)
                for x in 0..<w {
                    let v = src.loadUnaligned(fromByteOffset: 4 * x, as: UInt32.self)
                    widen8(v >> 24, p, 8 * x); widen8((v >> 16) & 0xFF, p, 8 * x + 2)
                    widen8((v >> 8) & 0xFF, p, 8 * x + 4); widen8(v & 0xFF, p, 8 * x + 6)
                }
            }
        case .rgb48:
            return { src, y in
                let p = self.row(0, y)
                for x in 0..<w {
                    let v = src.loadUnaligned(fromByteOffset: 4 * x, as: UInt32.self)
                    widen8((v >> 16) & 0xFF, p, 6 * x); widen8((v >> 8) & 0xFF, p, 6 * x + 2); widen8(v & 0xFF, p, 6 * x + 4)
                }
            }
        case .alphaGray32:
            return { src, y in
                let p = self.row(0, y)
                for x in 0..<w {
                    let v = src.loadUnaligned(fromByteOffset: 4 * x, as: UInt32.self)
                    widen8(v >> 24, p, 4 * x); widen8(luma(v), p, 4 * x + 2)
                }
            }
        case .gray16:
            return { src, y in
                let p = self.row(0, y)
                for x in 0..<w { widen8(luma(src.loadUnaligned(fromByteOffset: 4 * x, as: UInt32.self)), p, 2 * x) }
            }
        case .grayWhiteIsZero(8):
            return { src, y in
                let p = self.row(0, y)
                for x in 0..<w {
                    p.storeBytes(of: UInt8(255 - luma(src.loadUnaligned(fromByteOffset: 4 * x, as: UInt32.self))),
                                 toByteOffset: x, as: UInt8.self)
                }
            }
        default:
            return nil
        }
    }

    /// Converts this buffer's pixels into `destination` (same width and
    /// height; any format with an encoder): directly when the destination
    /// is BGRA or of the same format, otherwise through a BGRA row.
    /// Extended pixels are not touched.
    public func convert(to destination: PixelBuffer) throws(CVError) {
        guard destination.width == width, destination.height == height else {
            throw .invalidSize("the source is \(width)x\(height) pixels, the destination \(destination.width)x\(destination.height)")
        }
        if destination === self { return }
        if destination.pixelFormat == pixelFormat {
            for (i, p) in planes.enumerated() {
                // Wrapped planes may be larger than the image needs: copy what both hold.
                let f = format.planes[i], q = destination.planes[i]
                let rows = (min(p.height, q.height) + f.blockHeight - 1) / f.blockHeight
                let bytes = PixelBuffer.minimumBytesPerRow(f, width: min(p.width, q.width))
                for y in 0..<rows { destination.row(i, y).copyMemory(from: row(i, y), byteCount: bytes) }
            }
            destination.pixelsChanged()
            return
        }
        guard let decode = decoder() else { throw .invalidPixelFormat(pixelFormat, "cannot be converted (it is only described)") }
        if destination.format.layout == .bgra32 {
            for y in 0..<height { decode(y, destination.row(0, y)) }
        } else {
            guard let encode = destination.encoder() else {
                throw .invalidPixelFormat(destination.pixelFormat, "cannot be written by a conversion")
            }
            let scratch = UnsafeMutableRawPointer.allocate(byteCount: 4 * width, alignment: 64)
            defer { scratch.deallocate() }
            for y in 0..<height {
                decode(y, scratch)
                encode(UnsafeRawPointer(scratch), y)
            }
        }
        destination.pixelsChanged()
    }
}
