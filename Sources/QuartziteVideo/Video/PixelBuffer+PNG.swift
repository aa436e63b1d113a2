import CQuartzite
import QuartziteCore
import QuartziteGeometry
import Glibc

// PNG files in and out, with libpng (Debian's libpng16) behind the C shim in
// CQuartzite/png_io.c. PNG stores straight (unpremultiplied) alpha;
// Quartzite's BGRA is premultiplied, so reading multiplies and writing
// divides.

/// x * a / 255, rounded, exactly, for x and a in 0...255.
@inline(__always) package func multiply255(_ x: UInt32, _ a: UInt32) -> UInt32 {
    let t = x * a + 128
    return (t + (t >> 8)) >> 8
}

extension PixelBuffer {
    /// QZPixelBufferCreateWithPNGFile: a premultiplied 32BGRA buffer (default
    /// attributes) holding the file's image, whatever its PNG colour type
    /// and depth (palettes, gray, 16-bit samples and transparency are
    /// expanded or reduced to 8-bit RGBA first).
    public static func createWithPNG(path: String) throws(CVError) -> PixelBuffer {
        var width: UInt32 = 0, height: UInt32 = 0
        var rgba: UnsafeMutablePointer<UInt8>?
        var message = [CChar](repeating: 0, count: 256)
        let limit = PixelMemory.limit
        let room = limit > 0 ? max(0, limit - PixelMemory.inUse) : 1 << 36
        let result = qz_internal_png_read(path, room, &width, &height, &rgba, &message, message.count)
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch result {
        case 0: break
        case 3, 4: throw CVError(kCVReturnAllocationFailed, QZErrorOutOfMemory, text)
        case 5: throw CVError(kCVReturnInvalidSize, QZErrorInvalidArgument, text)
        default: throw CVError(kCVReturnError, QZErrorInvalidArgument, text.isEmpty ? "cannot read \(path)" : text)
        }
        defer { free(rgba) }
        guard let rgba else { throw CVError(kCVReturnError, QZErrorInvalidArgument, "cannot read \(path)") }
        let buffer = try create(width: Int(width), height: Int(height), pixelFormat: UInt32(kCVPixelFormatType_32BGRA),
                                attributes: nil)
        for y in 0..<Int(height) {
            let src = UnsafeRawPointer(rgba + y * Int(width) * 4)
            let dst = buffer.row(0, y)
            for x in 0..<Int(width) {
                let p = src.loadUnaligned(fromByteOffset: 4 * x, as: UInt32.self)  // R | G << 8 | B << 16 | A << 24
                let a = p >> 24
                let r = multiply255(p & 0xFF, a), g = multiply255((p >> 8) & 0xFF, a), b = multiply255((p >> 16) & 0xFF, a)
                dst.storeBytes(of: b | g << 8 | r << 16 | a << 24, toByteOffset: 4 * x, as: UInt32.self)
            }
        }
        return buffer
    }

    /// QZPixelBufferWritePNG: an 8-bit PNG of the buffer's image (converted
    /// to BGRA first when it is in another readable format), RGB when every
    /// pixel is opaque, RGBA (straight alpha) otherwise, tagged sRGB.
    public func writePNG(path: String) throws(CVError) {
        var bgra = self
        if format.layout != .bgra32 {
            bgra = try PixelBuffer.create(width: width, height: height, pixelFormat: UInt32(kCVPixelFormatType_32BGRA),
                                          attributes: nil)
            try convert(to: bgra)
        }
        var opaque = true
        for y in 0..<height where opaque {
            let row = bgra.row(0, y)
            for x in 0..<width where row.load(fromByteOffset: 4 * x + 3, as: UInt8.self) != 255 {
                opaque = false
                break
            }
        }
        let channels = opaque ? 3 : 4
        let stride = width * channels
        let (bytes, overflow) = stride.multipliedReportingOverflow(by: height)
        guard !overflow, let out = malloc(max(bytes, 1)) else { throw .allocationFailed(bytes) }
        defer { free(out) }
        for y in 0..<height {
            let src = bgra.row(0, y)
            let dst = out + y * stride
            for x in 0..<width {
                let p = src.load(fromByteOffset: 4 * x, as: UInt32.self)
                var b = p & 0xFF, g = (p >> 8) & 0xFF, r = (p >> 16) & 0xFF
                let a = p >> 24
                if a != 255 {
                    if a == 0 {
                        (r, g, b) = (0, 0, 0)
                    } else {
                        r = min(255, (r * 255 + a / 2) / a)
                        g = min(255, (g * 255 + a / 2) / a)
                        b = min(255, (b * 255 + a / 2) / a)
                    }
                }
                let o = x * channels
                dst.storeBytes(of: UInt8(r), toByteOffset: o, as: UInt8.self)
                dst.storeBytes(of: UInt8(g), toByteOffset: o + 1, as: UInt8.self)
                dst.storeBytes(of: UInt8(b), toByteOffset: o + 2, as: UInt8.self)
                if channels == 4 { dst.storeBytes(of: UInt8(a), toByteOffset: o + 3, as: UInt8.self) }
            }
        }
        var message = [CChar](repeating: 0, count: 256)
        let result = qz_internal_png_write(path, UInt32(width), UInt32(height), out.assumingMemoryBound(to: UInt8.self),
                                           stride, Int32(channels), &message, message.count)
        if result != 0 {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw CVError(kCVReturnError, result == 4 ? QZErrorOutOfMemory : QZErrorInvalidArgument,
                          text.isEmpty ? "cannot write \(path)" : text)
        }
    }
}
