import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel
import QuartziteRender

// CGImage and CGDataProvider (CGImage.h, CGDataProvider.h), and Quartzite's
// conversions between images and pixel buffers. Images are immutable and
// may be shared between threads: any thread may call these functions.

// MARK: - CGDataProvider

/// A provider of the caller's `size` bytes at `data`, which must stay valid
/// until `releaseData(info, data, size)` is called (when the provider is
/// freed; `releaseData` may be NULL). Returns +1 (CGDataProviderRelease), or
/// NULL with QZErrorNullArgument when `data` is NULL.
@c public func CGDataProviderCreateWithData(_ info: UnsafeMutableRawPointer?, _ data: UnsafeRawPointer?, _ size: size_t,
                                           _ releaseData: CGDataProviderReleaseDataCallback?) -> QZCGDataProviderRef? {
    guard let data = requireNonNull(data, "data", #function) else { return nil }
    guard size <= Int.max / 2 else {
        recordError(QZErrorInvalidArgument, #function, "size \(size) is too large")
        return nil
    }
    return retainedHandle(DataProvider(bytes: data, count: size, info: info, release: releaseData))
}

/// A provider of a file's contents (read now, into memory the provider
/// owns). Returns +1, or NULL with QZErrorInvalidArgument when the file
/// cannot be read.
@c public func CGDataProviderCreateWithFilename(_ filename: UnsafePointer<CChar>?) -> QZCGDataProviderRef? {
    guard let path = requireString(filename, "filename", #function) else { return nil }
    guard let p = DataProvider.contentsOfFile(path) else {
        recordError(QZErrorInvalidArgument, #function, "cannot read \(path)")
        return nil
    }
    return retainedHandle(p)
}

/// Returns `provider` with one more reference (NULL is returned as is).
@c public func CGDataProviderRetain(_ provider: QZCGDataProviderRef?) -> QZCGDataProviderRef? {
    retainTyped(provider, as: DataProvider.self, #function)
}

/// Drops a reference to `provider` (NULL is ignored); its release callback runs when the last
/// reference goes.
@c public func CGDataProviderRelease(_ provider: QZCGDataProviderRef?) {
    releaseTyped(provider, as: DataProvider.self, #function)
}

// MARK: - Creating images

func makeImage(_ function: StaticString, _ body: () throws(GraphicsError) -> Image?) -> QZCGImageRef? {
    do throws(GraphicsError) {
        guard let image = try body() else { return nil }
        return retainedHandle(image)
    } catch {
        recordGraphicsError(error, function)
        return nil
    }
}

/// An image of `width` x `height` pixels read from `provider` (retained) in
/// the layout given: 8 bits per component with 32 bits per pixel (any
/// kCGImageAlpha placement, premultiplied or not, in the default, 32-bit
/// big or 32-bit little byte order), 24 bits per pixel RGB
/// (kCGImageAlphaNone), 8 bits per pixel gray (a gray `space`,
/// kCGImageAlphaNone) or kCGImageAlphaOnly, 16 bits per pixel gray with
/// alpha. `space` NULL means RGB. `decode` must be NULL (decode arrays are
/// not supported); `intent` is ignored. Returns +1 (CGImageRelease), or NULL
/// with QZErrorInvalidArgument (unsupported layouts, rows too short, a
/// provider with too few bytes) or QZErrorOutOfMemory.
@c public func CGImageCreate(_ width: size_t, _ height: size_t, _ bitsPerComponent: size_t, _ bitsPerPixel: size_t,
                            _ bytesPerRow: size_t, _ space: QZCGColorSpaceRef?, _ bitmapInfo: UInt32,
                            _ provider: QZCGDataProviderRef?, _ decode: UnsafePointer<Double>?, _ shouldInterpolate: Bool,
                            _ intent: CGColorRenderingIntent) -> QZCGImageRef? {
    guard let p = object(provider, as: DataProvider.self) else { return nil }
    var s: ColorSpace? = nil
    if let space { guard let o = object(space, as: ColorSpace.self) else { return nil }; s = o }
    guard decode == nil else {
        recordError(QZErrorInvalidArgument, #function, "decode arrays are not supported (pass NULL)")
        return nil
    }
    return makeImage(#function) { () throws(GraphicsError) in
        try Image.create(width: width, height: height, bitsPerComponent: bitsPerComponent, bitsPerPixel: bitsPerPixel,
                         bytesPerRow: bytesPerRow, space: s, bitmapInfo: bitmapInfo, provider: p,
                         shouldInterpolate: shouldInterpolate)
    }
}

/// Decodes the PNG image `source` holds (with libpng): any colour type and
/// depth, as 8-bit premultiplied BGRA. Returns +1, or NULL with
/// QZErrorInvalidArgument for data that is not a PNG image or is damaged
/// (truncated, a bad checksum) or too large (a side above 2^20 pixels), or
/// QZErrorOutOfMemory (beyond QZPixelBufferSetMemoryLimit's limit).
@c public func CGImageCreateWithPNGDataProvider(_ source: QZCGDataProviderRef?, _ decode: UnsafePointer<Double>?,
                                               _ shouldInterpolate: Bool, _ intent: CGColorRenderingIntent) -> QZCGImageRef? {
    guard let p = object(source, as: DataProvider.self) else { return nil }
    guard decode == nil else {
        recordError(QZErrorInvalidArgument, #function, "decode arrays are not supported (pass NULL)")
        return nil
    }
    return makeImage(#function) { () throws(GraphicsError) in try Image.png(p, shouldInterpolate: shouldInterpolate) }
}

/// Decodes the JPEG image `source` holds (with libjpeg-turbo): baseline or
/// progressive, gray or colour (not CMYK), as opaque BGRA. A damaged image
/// (truncated, corrupt data that libjpeg notices) is refused. Returns +1,
/// or NULL with QZErrorInvalidArgument or QZErrorOutOfMemory.
@c public func CGImageCreateWithJPEGDataProvider(_ source: QZCGDataProviderRef?, _ decode: UnsafePointer<Double>?,
                                                _ shouldInterpolate: Bool, _ intent: CGColorRenderingIntent) -> QZCGImageRef? {
    guard let p = object(source, as: DataProvider.self) else { return nil }
    guard decode == nil else {
        recordError(QZErrorInvalidArgument, #function, "decode arrays are not supported (pass NULL)")
        return nil
    }
    return makeImage(#function) { () throws(GraphicsError) in try Image.jpeg(p, shouldInterpolate: shouldInterpolate) }
}

/// The part of `image` in `rect` (pixels, row 0 at the top), made integral
/// and cut to the image. Returns +1, or NULL (without an error) when the
/// rectangle misses the image; a NaN or infinite component records
/// QZErrorNotFinite.
@c public func CGImageCreateWithImageInRect(_ image: QZCGImageRef?, _ rect: CGRect) -> QZCGImageRef? {
    guard checkFinite(rect.origin.x, rect.origin.y, rect.size.width, rect.size.height, function: #function),
          let i = object(image, as: Image.self) else { return nil }
    return makeImage(#function) { () throws(GraphicsError) in try i.cropped(to: rect) }
}

/// An image of a pixel buffer's pixels now (converted to premultiplied
/// BGRA; later changes to the buffer do not show). Returns +1, or NULL with
/// QZErrorInvalidArgument for formats that cannot be converted.
@c public func QZImageCreateWithPixelBuffer(_ pixelBuffer: QZCVPixelBufferRef?) -> QZCGImageRef? {
    guard let pb = object(pixelBuffer, as: PixelBuffer.self) else { return nil }
    return makeImage(#function) { () throws(GraphicsError) in try Image.copy(of: pb) }
}

/// A new 32BGRA pixel buffer (premultiplied) holding the image's pixels.
/// Returns +1 (CVPixelBufferRelease), or NULL.
@c public func QZPixelBufferCreateWithImage(_ image: QZCGImageRef?) -> QZCVPixelBufferRef? {
    guard let i = object(image, as: Image.self) else { return nil }
    do throws(GraphicsError) {
        return retainedHandle(try i.makePixelBuffer())
    } catch {
        recordGraphicsError(error, #function)
        return nil
    }
}

// MARK: - Reading images

@inline(__always)
func readImage<R>(_ image: QZCGImageRef?, _ fallback: R, _ function: StaticString = #function, _ body: (Image) -> R) -> R {
    withObject(image, as: Image.self, fallback: fallback, function, body)
}

/// The image's width in pixels (0 for a bad handle).
@c public func CGImageGetWidth(_ image: QZCGImageRef?) -> size_t { readImage(image, 0) { $0.width } }
/// The image's height in pixels (0 for a bad handle).
@c public func CGImageGetHeight(_ image: QZCGImageRef?) -> size_t { readImage(image, 0) { $0.height } }
/// The layout the image was made from (8 for every supported layout).
@c public func CGImageGetBitsPerComponent(_ image: QZCGImageRef?) -> size_t { readImage(image, 0) { $0.bitsPerComponent } }
/// The bits per pixel of the image's data (0 for a bad handle).
@c public func CGImageGetBitsPerPixel(_ image: QZCGImageRef?) -> size_t { readImage(image, 0) { $0.bitsPerPixel } }
/// The bytes from the start of one row of the image's data to the next (0 for a bad handle).
@c public func CGImageGetBytesPerRow(_ image: QZCGImageRef?) -> size_t { readImage(image, 0) { $0.bytesPerRow } }
/// The CGBitmapInfo the image was made with; for decoded PNG and JPEG
/// images, that of their pixels: kCGImageAlphaPremultipliedFirst (or
/// NoneSkipFirst when opaque) | kCGBitmapByteOrder32Little.
@c public func CGImageGetBitmapInfo(_ image: QZCGImageRef?) -> UInt32 { readImage(image, 0) { $0.bitmapInfo } }
/// The alpha part of the image's CGBitmapInfo (a CGImageAlphaInfo value; 0 for a bad handle).
@c public func CGImageGetAlphaInfo(_ image: QZCGImageRef?) -> UInt32 { readImage(image, 0) { $0.alphaInfo } }
/// Whether the image asked to be interpolated when scaled (the shouldInterpolate argument it was
/// made with).
@c public func CGImageGetShouldInterpolate(_ image: QZCGImageRef?) -> Bool { readImage(image, false) { $0.shouldInterpolate } }
/// Image masks (CGImageMaskCreate) are not implemented: always false.
@c public func CGImageIsMask(_ image: QZCGImageRef?) -> Bool { readImage(image, false) { _ in false } }

/// The colour space (+0), or NULL for images made without one.
@c public func CGImageGetColorSpace(_ image: QZCGImageRef?) -> QZCGColorSpaceRef? {
    readImage(image, nil) { i in i.colorSpace.map { borrowedHandle($0) } }
}

/// The provider the image was made from (+0): its encoded bytes for PNG
/// and JPEG images; NULL for images made from a context, a pixel buffer or
/// another image.
@c public func CGImageGetDataProvider(_ image: QZCGImageRef?) -> QZCGDataProviderRef? {
    readImage(image, nil) { i in i.provider.map { borrowedHandle($0) } }
}

/// Returns `image` with one more reference (NULL is returned as is).
@c public func CGImageRetain(_ image: QZCGImageRef?) -> QZCGImageRef? {
    retainTyped(image, as: Image.self, #function)
}

/// Drops a reference to `image` (NULL is ignored).
@c public func CGImageRelease(_ image: QZCGImageRef?) {
    releaseTyped(image, as: Image.self, #function)
}
