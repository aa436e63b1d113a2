import CCairo
import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import Glibc

// Apple's CGImageRef: an immutable bitmap. Whatever layout it was made
// from, its pixels are kept once as premultiplied 32BGRA (the layout cairo
// draws and the renderer samples); the getters report the layout it was
// made with. Decoding PNG and JPEG is libpng's and libjpeg's work
// (CQuartzite/image_codecs.c).

/// Apple's CGImageAlphaInfo and byte-order bits (CGBitmapInfo).
public enum BitmapInfo {
    public static let alphaMask: UInt32 = 0x1F
    public static let byteOrderMask: UInt32 = 0x7000
    public static let premultipliedLast: UInt32 = 1, premultipliedFirst: UInt32 = 2, last: UInt32 = 3, first: UInt32 = 4
    public static let noneSkipLast: UInt32 = 5, noneSkipFirst: UInt32 = 6, alphaOnly: UInt32 = 7, none: UInt32 = 0
    public static let order32Little: UInt32 = 0x2000, order32Big: UInt32 = 0x4000, orderDefault: UInt32 = 0
    /// What PNG images report: premultiplied BGRA.
    public static let bgraPremultiplied: UInt32 = premultipliedFirst | order32Little
    public static let bgraOpaque: UInt32 = noneSkipFirst | order32Little
}

public final class Image: QZObject, Handle {
    /// Premultiplied 32BGRA pixels (never written after creation).
    public let pixels: PixelBuffer
    public var width: Int { pixels.width }
    public var height: Int { pixels.height }
    public let bitsPerComponent: Int
    public let bitsPerPixel: Int
    public let bytesPerRow: Int
    public let bitmapInfo: UInt32
    public let colorSpace: ColorSpace?
    public let provider: DataProvider?
    public let shouldInterpolate: Bool
    /// cairo's view of `pixels`, made on first draw (model lock held).
    private var cairoSurface: OpaquePointer?

    @inlinable package static var handleKind: ObjectKind { .image }
    @inlinable package static func accepts(_ tag: UInt32) -> Bool { tag == tagMagic | UInt32(ObjectKind.image.rawValue) }

    package init(pixels: PixelBuffer, bitsPerComponent: Int = 8, bitsPerPixel: Int = 32, bytesPerRow: Int? = nil,
         bitmapInfo: UInt32 = BitmapInfo.bgraPremultiplied, colorSpace: ColorSpace? = .sRGB,
         provider: DataProvider? = nil, shouldInterpolate: Bool = true) {
        self.pixels = pixels
        self.bitsPerComponent = bitsPerComponent
        self.bitsPerPixel = bitsPerPixel
        self.bytesPerRow = bytesPerRow ?? pixels.width * 4
        self.bitmapInfo = bitmapInfo
        self.colorSpace = colorSpace
        self.provider = provider
        self.shouldInterpolate = shouldInterpolate
        super.init(kind: .image)
    }

    deinit {
        if let s = cairoSurface { cairo_surface_destroy(s) }
    }

    public var alphaInfo: UInt32 { bitmapInfo & BitmapInfo.alphaMask }

    /// True when every pixel is opaque by construction (no alpha channel).
    public var isOpaque: Bool {
        let a = alphaInfo
        return a == BitmapInfo.none || a == BitmapInfo.noneSkipFirst || a == BitmapInfo.noneSkipLast
    }

    /// A cairo surface over the pixels (borrowed: the image keeps it), or
    /// nil when cairo cannot show the image (a side above 32767 pixels):
    /// it is then not drawn (a source in error would stop the context).
    package var surface: OpaquePointer? {
        // (Made once under a lock: tiles may draw one image on several threads.)
        pthread_mutex_lock(Image.surfaceLock)
        defer { pthread_mutex_unlock(Image.surfaceLock) }
        if let s = cairoSurface { return s }
        guard let base = pixels.baseAddress, pixels.bytesPerRow <= Int(Int32.max) else { return nil }
        let s = cairo_image_surface_create_for_data(base.assumingMemoryBound(to: UInt8.self),
                                                    CAIRO_FORMAT_ARGB32, Int32(width), Int32(height),
                                                    Int32(pixels.bytesPerRow))!
        guard cairo_surface_status(s) == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(s)
            return nil
        }
        cairoSurface = s
        return s
    }

    nonisolated(unsafe) private static let surfaceLock: UnsafeMutablePointer<pthread_mutex_t> = {
        let m = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(m, nil)
        return m
    }()

    /// A new premultiplied BGRA buffer for an image of `width` x `height`.
    package static func makeBuffer(width: Int, height: Int) throws(GraphicsError) -> PixelBuffer {
        do {
            return try PixelBuffer.create(width: width, height: height, pixelFormat: UInt32(kCVPixelFormatType_32BGRA),
                                          attributes: nil)
        } catch {
            throw error.code == kCVReturnAllocationFailed ? .outOfMemory(error.message) : .invalidArgument(error.message)
        }
    }

    // MARK: - CGImageCreate

    /// CGImageCreate: `width` x `height` pixels read from `provider` in the
    /// layout described. Accepted: 8 bits per component with 32 bits per
    /// pixel (every alpha placement, premultiplied or not, skipped, in
    /// default/big or little 32-bit order), 24 bits per pixel RGB (no
    /// alpha), 8 bits per pixel gray (no alpha) or alpha only, and 16 bits
    /// per pixel gray with alpha.
    public static func create(width: Int, height: Int, bitsPerComponent: Int, bitsPerPixel: Int, bytesPerRow: Int,
                              space: ColorSpace?, bitmapInfo: UInt32, provider: DataProvider,
                              shouldInterpolate: Bool) throws(GraphicsError) -> Image {
        guard width > 0, height > 0, width <= 1 << 20, height <= 1 << 20 else {
            throw .invalidArgument("the size \(width) x \(height) is empty or too large")
        }
        guard bitsPerComponent == 8 else { throw .invalidArgument("\(bitsPerComponent) bits per component is not supported (use 8)") }
        let alpha = bitmapInfo & BitmapInfo.alphaMask, order = bitmapInfo & BitmapInfo.byteOrderMask
        guard alpha <= 7, bitmapInfo & ~(BitmapInfo.alphaMask | BitmapInfo.byteOrderMask) == 0 else {
            throw .invalidArgument("bitmapInfo 0x\(String(bitmapInfo, radix: 16)) is not a CGBitmapInfo value")
        }
        let model = space?.model
        switch (bitsPerPixel, alpha) {
        case (32, 1...6):
            guard model != .monochrome else { throw .invalidArgument("32 bits per pixel needs an RGB colour space") }
        case (24, 0):
            guard model != .monochrome else { throw .invalidArgument("24 bits per pixel needs an RGB colour space") }
        case (8, 0):
            guard model == .monochrome else { throw .invalidArgument("8 bits per pixel without alpha needs a gray colour space") }
        case (8, 7): break
        case (16, 1), (16, 3), (16, 2), (16, 4):
            guard model == .monochrome else { throw .invalidArgument("16 bits per pixel needs a gray colour space") }
        default:
            throw .invalidArgument("\(bitsPerPixel) bits per pixel with alpha info \(alpha) is not a supported layout")
        }
        guard order == 0 || order == BitmapInfo.order32Little || order == BitmapInfo.order32Big else {
            throw .invalidArgument("16-bit byte orders are not supported")
        }
        let pixelBytes = bitsPerPixel / 8
        let (rowNeed, o1) = width.multipliedReportingOverflow(by: pixelBytes)
        guard !o1, bytesPerRow >= rowNeed else {
            throw .invalidArgument("bytesPerRow \(bytesPerRow) is less than the \(rowNeed) bytes a row needs")
        }
        let (last, o2) = bytesPerRow.multipliedReportingOverflow(by: height - 1)
        guard !o2, last <= Int.max - rowNeed, provider.count >= last + rowNeed, let data = provider.bytes else {
            throw .invalidArgument("the data provider holds \(provider.count) bytes, fewer than the image needs")
        }
        let pb = try makeBuffer(width: width, height: height)
        let little = order == BitmapInfo.order32Little
        for y in 0..<height {
            let src = data + y * bytesPerRow
            let dst = pb.row(0, y)
            for x in 0..<width {
                var r: UInt32, g: UInt32, b: UInt32, a: UInt32 = 255
                var premultiplied = true
                switch bitsPerPixel {
                case 32:
                    let p = src + 4 * x
                    var c = (UInt32(p.load(as: UInt8.self)), UInt32(p.load(fromByteOffset: 1, as: UInt8.self)),
                             UInt32(p.load(fromByteOffset: 2, as: UInt8.self)), UInt32(p.load(fromByteOffset: 3, as: UInt8.self)))
                    if little { c = (c.3, c.2, c.1, c.0) }   // now in big-endian (component) order
                    let alphaFirst = alpha == 2 || alpha == 4 || alpha == 6
                    if alphaFirst { (a, r, g, b) = (c.0, c.1, c.2, c.3) } else { (r, g, b, a) = (c.0, c.1, c.2, c.3) }
                    if alpha == 5 || alpha == 6 { a = 255 }
                    premultiplied = alpha == 1 || alpha == 2
                case 24:
                    let p = src + 3 * x
                    (r, g, b) = (UInt32(p.load(as: UInt8.self)), UInt32(p.load(fromByteOffset: 1, as: UInt8.self)),
                                 UInt32(p.load(fromByteOffset: 2, as: UInt8.self)))
                case 16:
                    let p = src + 2 * x
                    let c0 = UInt32(p.load(as: UInt8.self)), c1 = UInt32(p.load(fromByteOffset: 1, as: UInt8.self))
                    let alphaFirst = alpha == 2 || alpha == 4
                    let v = alphaFirst ? c1 : c0
                    a = alphaFirst ? c0 : c1
                    (r, g, b) = (v, v, v)
                    premultiplied = alpha == 1 || alpha == 2
                default:
                    let v = UInt32(src.load(fromByteOffset: x, as: UInt8.self))
                    if alpha == 7 { (r, g, b, a) = (0, 0, 0, v) } else { (r, g, b) = (v, v, v) }
                }
                if premultiplied {
                    r = Swift.min(r, a); g = Swift.min(g, a); b = Swift.min(b, a)
                } else {
                    r = multiply255(r, a); g = multiply255(g, a); b = multiply255(b, a)
                }
                dst.storeBytes(of: b | g << 8 | r << 16 | a << 24, toByteOffset: 4 * x, as: UInt32.self)
            }
        }
        return Image(pixels: pb, bitsPerComponent: bitsPerComponent, bitsPerPixel: bitsPerPixel, bytesPerRow: bytesPerRow,
                     bitmapInfo: bitmapInfo, colorSpace: space, provider: provider, shouldInterpolate: shouldInterpolate)
    }

    // MARK: - PNG and JPEG

    /// The room left under the pixel memory limit (QZPixelBufferSetMemoryLimit).
    package static var decodeBudget: Int {
        let limit = PixelMemory.limit
        return limit > 0 ? Swift.max(0, limit - PixelMemory.inUse) : 1 << 36
    }

    package static func decodeFailure(_ result: Int32, _ message: [CChar], _ kind: String) -> GraphicsError {
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch result {
        case 3, 4: return .outOfMemory(text)
        default: return .invalidArgument(text.isEmpty ? "the data is not a valid \(kind) image" : text)
        }
    }

    /// CGImageCreateWithPNGDataProvider: libpng decodes; any colour type and
    /// depth becomes 8-bit premultiplied BGRA.
    public static func png(_ provider: DataProvider, shouldInterpolate: Bool) throws(GraphicsError) -> Image {
        var w: UInt32 = 0, h: UInt32 = 0
        var rgba: UnsafeMutablePointer<UInt8>?
        var message = [CChar](repeating: 0, count: 256)
        let result = provider.buffer.withMemoryRebound(to: UInt8.self) { b in
            qz_internal_png_decode(b.baseAddress, b.count, decodeBudget, &w, &h, &rgba, &message, message.count)
        }
        guard result == 0, let rgba else { throw decodeFailure(result, message, "PNG") }
        defer { free(rgba) }
        let pb = try makeBuffer(width: Int(w), height: Int(h))
        var opaque = true
        for y in 0..<Int(h) {
            let src = UnsafeRawPointer(rgba + y * Int(w) * 4)
            let dst = pb.row(0, y)
            for x in 0..<Int(w) {
                let p = src.loadUnaligned(fromByteOffset: 4 * x, as: UInt32.self)   // R | G << 8 | B << 16 | A << 24
                let a = p >> 24
                if a != 255 { opaque = false }
                let r = multiply255(p & 0xFF, a), g = multiply255((p >> 8) & 0xFF, a), b = multiply255((p >> 16) & 0xFF, a)
                dst.storeBytes(of: b | g << 8 | r << 16 | a << 24, toByteOffset: 4 * x, as: UInt32.self)
            }
        }
        return Image(pixels: pb, bitmapInfo: opaque ? BitmapInfo.bgraOpaque : BitmapInfo.bgraPremultiplied,
                     provider: provider, shouldInterpolate: shouldInterpolate)
    }

    /// CGImageCreateWithJPEGDataProvider: libjpeg-turbo decodes straight to
    /// opaque BGRA (baseline and progressive, gray or colour; not CMYK).
    public static func jpeg(_ provider: DataProvider, shouldInterpolate: Bool) throws(GraphicsError) -> Image {
        var w: UInt32 = 0, h: UInt32 = 0
        var bgra: UnsafeMutablePointer<UInt8>?
        var message = [CChar](repeating: 0, count: 256)
        let result = provider.buffer.withMemoryRebound(to: UInt8.self) { b in
            qz_internal_jpeg_decode(b.baseAddress, b.count, decodeBudget, &w, &h, &bgra, &message, message.count)
        }
        guard result == 0, let bgra else { throw decodeFailure(result, message, "JPEG") }
        defer { free(bgra) }
        let pb = try makeBuffer(width: Int(w), height: Int(h))
        for y in 0..<Int(h) {
            memcpy(pb.row(0, y), bgra + y * Int(w) * 4, Int(w) * 4)
        }
        return Image(pixels: pb, bitmapInfo: BitmapInfo.bgraOpaque, provider: provider, shouldInterpolate: shouldInterpolate)
    }

    // MARK: - Copies

    /// CGImageCreateWithImageInRect: the pixels of `rect` (image pixels,
    /// row 0 at the top), made integral and cut to the image; nil when
    /// nothing is left.
    public func cropped(to rect: CGRect) throws(GraphicsError) -> Image? {
        let r = rect.standardized.integral.intersection(CGRect(x: 0, y: 0, width: Double(width), height: Double(height)))
        // (Huge rectangles can overflow to infinities and NaN on the way:
        // only a finite piece of the image is a crop.)
        guard !r.isNull, !r.isEmpty, r.minX.isFinite, r.minY.isFinite, r.width.isFinite, r.height.isFinite else { return nil }
        let x0 = Int(r.minX), y0 = Int(r.minY), w = Int(r.width), h = Int(r.height)
        let pb = try Image.makeBuffer(width: w, height: h)
        for y in 0..<h {
            memcpy(pb.row(0, y), pixels.row(0, y0 + y) + 4 * x0, 4 * w)
        }
        return Image(pixels: pb, bitmapInfo: bitmapInfo == BitmapInfo.bgraOpaque ? bitmapInfo : BitmapInfo.bgraPremultiplied,
                     colorSpace: colorSpace, shouldInterpolate: shouldInterpolate)
    }

    /// An image of a pixel buffer's current pixels (converted to BGRA).
    public static func copy(of pb: PixelBuffer) throws(GraphicsError) -> Image {
        let out = try makeBuffer(width: pb.width, height: pb.height)
        do { try pb.convert(to: out) } catch { throw .invalidArgument(error.message) }
        return Image(pixels: out)
    }

    /// A new 32BGRA pixel buffer holding the image's pixels.
    public func makePixelBuffer() throws(GraphicsError) -> PixelBuffer {
        let out = try Image.makeBuffer(width: width, height: height)
        for y in 0..<height { memcpy(out.row(0, y), pixels.row(0, y), 4 * width) }
        return out
    }
}
