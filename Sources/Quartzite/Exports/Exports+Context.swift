import CQuartzite
import Glibc

// Bitmap contexts (Apple's CGBitmapContext and a few CGContext drawing
// calls). Their CTM starts as the identity and maps user space (points,
// y down) to pixels, as UIKit's contexts do (API.md): pixel row 0 is the top.

@inline(__always)
func withContext<R>(_ ctx: QZCGContextRef?, _ fallback: R, _ function: StaticString = #function, _ body: (DrawingContext) -> R) -> R {
    withObject(ctx, as: DrawingContext.self, fallback: fallback, function) { c in withModelLock { body(c) } }
}

@inline(__always)
func withBitmapContext<R>(_ ctx: QZCGContextRef?, _ fallback: R, _ function: StaticString = #function, _ body: (DrawingContext, PixelBuffer) -> R) -> R {
    withContext(ctx, fallback, function) { c in
        guard let pb = c.bitmap else {
            recordError(QZErrorInvalidArgument, function, "the context is not a bitmap context")
            return fallback
        }
        return body(c, pb)
    }
}

/// Creates a bitmap context over `data` (`height` rows of `bytesPerRow`
/// bytes, which must stay valid while the context lives), or over memory it
/// allocates itself (zeroed) when `data` is NULL (`bytesPerRow` 0 then picks
/// the row size; with `data`, 0 records QZErrorInvalidArgument). Accepted
/// formats: 8 bits per component, 32 bits per pixel,
/// kCGImageAlphaPremultipliedFirst | kCGBitmapByteOrder32Little (BGRA in
/// memory, the native format), kCGImageAlphaPremultipliedLast with the
/// default or big-endian order (RGBA), kCGImageAlphaPremultipliedFirst with
/// the default or big-endian order (ARGB), and the NoneSkipFirst/NoneSkipLast
/// variants of those (opaque). `space` may be NULL (sRGB) and is otherwise
/// ignored. Returns +1 (release with CGContextRelease or CARelease), or NULL
/// with QZErrorInvalidArgument (zero or too large sizes, unsupported
/// formats, rows too short) or QZErrorOutOfMemory.
@c public func CGBitmapContextCreate(_ data: UnsafeMutableRawPointer?, _ width: size_t, _ height: size_t,
                                     _ bitsPerComponent: size_t, _ bytesPerRow: size_t,
                                     _ space: QZCGColorSpaceRef?, _ bitmapInfo: UInt32) -> QZCGContextRef? {
    guard bitsPerComponent == 8 else {
        recordError(QZErrorInvalidArgument, #function, "\(bitsPerComponent) bits per component is not supported (use 8)")
        return nil
    }
    guard width > 0, height > 0, width <= 1 << 20, height <= 1 << 20 else {
        recordError(QZErrorInvalidArgument, #function, "the size \(width) x \(height) is empty or too large")
        return nil
    }
    let alpha = bitmapInfo & 0x1F, order = bitmapInfo & 0x7000
    let format: UInt32
    switch (alpha, order) {
    case (2, 0x2000), (6, 0x2000): format = UInt32(kCVPixelFormatType_32BGRA)
    case (1, 0), (1, 0x4000), (5, 0), (5, 0x4000): format = UInt32(kCVPixelFormatType_32RGBA)
    case (2, 0), (2, 0x4000), (6, 0), (6, 0x4000): format = UInt32(kCVPixelFormatType_32ARGB)
    default:
        recordError(QZErrorInvalidArgument, #function, "bitmapInfo 0x\(String(bitmapInfo, radix: 16)) is not a supported 32-bit premultiplied format")
        return nil
    }
    do {
        let pb: PixelBuffer
        if let data {
            // The caller's memory: its row size must be given (0 would make
            // the library assume rows it was never handed).
            guard bytesPerRow != 0 else {
                recordError(QZErrorInvalidArgument, #function, "bytesPerRow is 0 with caller data: give the row size of data")
                return nil
            }
            pb = try PixelBuffer.create(width: width, height: height, pixelFormat: format, baseAddress: data,
                                        bytesPerRow: bytesPerRow, release: nil, refCon: nil, attributes: nil)
        } else {
            pb = try PixelBuffer.create(width: width, height: height, pixelFormat: format, attributes: nil)
        }
        return retainedHandle(DrawingContext.bitmap(pb))
    } catch {
        recordError(error.error, #function, error.message)
        return nil
    }
}

/// Creates a bitmap context drawing into `pixelBuffer` (retained), which
/// must have a format the compositor can read and write (chunky RGB). The
/// CTM maps points to pixels, y down. Returns +1, or NULL with
/// QZErrorNullArgument, QZErrorWrongType or QZErrorInvalidArgument.
@c public func QZBitmapContextCreateWithPixelBuffer(_ pixelBuffer: QZCVPixelBufferRef?) -> QZCGContextRef? {
    guard let pb = object(pixelBuffer, as: PixelBuffer.self) else { return nil }
    guard pb.isRenderable else {
        recordError(QZErrorInvalidArgument, #function, "pixel format '\(fourCharCodeString(pb.pixelFormat))' cannot be drawn into")
        return nil
    }
    return retainedHandle(DrawingContext.bitmap(pb))
}

/// The pixel buffer behind a bitmap context (+0), or NULL.
@c public func QZBitmapContextGetPixelBuffer(_ ctx: QZCGContextRef?) -> QZCVPixelBufferRef? {
    withBitmapContext(ctx, nil) { _, pb in borrowedHandle(pb) }
}

/// The first byte of a bitmap context's pixels, or NULL.
@c public func CGBitmapContextGetData(_ ctx: QZCGContextRef?) -> UnsafeMutableRawPointer? {
    withBitmapContext(ctx, nil) { _, pb in pb.baseAddress }
}

@c public func CGBitmapContextGetWidth(_ ctx: QZCGContextRef?) -> size_t {
    withBitmapContext(ctx, 0) { _, pb in pb.width }
}

@c public func CGBitmapContextGetHeight(_ ctx: QZCGContextRef?) -> size_t {
    withBitmapContext(ctx, 0) { _, pb in pb.height }
}

@c public func CGBitmapContextGetBytesPerRow(_ ctx: QZCGContextRef?) -> size_t {
    withBitmapContext(ctx, 0) { _, pb in pb.bytesPerRow }
}

/// Returns `ctx` with one more reference (NULL is returned as is).
@c public func CGContextRetain(_ ctx: QZCGContextRef?) -> QZCGContextRef? {
    guard let ctx else { return nil }
    guard let c = object(ctx, as: DrawingContext.self) else { return nil }
    _ = Unmanaged.passUnretained(c).retain()
    return ctx
}

/// Drops a reference (NULL is ignored).
@c public func CGContextRelease(_ ctx: QZCGContextRef?) {
    guard let ctx else { return }
    guard let c = object(ctx, as: DrawingContext.self) else { return }
    Unmanaged.passUnretained(c).release()
}

// MARK: - Graphics state

@c public func CGContextSaveGState(_ ctx: QZCGContextRef?) {
    withContext(ctx, ()) { c in
        guard c.savedStates.count < 4096 else {
            recordError(QZErrorInvalidState, #function, "too many saved states")
            return
        }
        c.savedStates.append(c.gstate)
    }
}

/// Restores the last saved state; QZErrorInvalidState when none is saved.
@c public func CGContextRestoreGState(_ ctx: QZCGContextRef?) {
    withContext(ctx, ()) { c in
        guard let s = c.savedStates.popLast() else {
            recordError(QZErrorInvalidState, #function, "no saved graphics state")
            return
        }
        c.gstate = s
    }
}

/// The current transformation matrix (user space to pixels).
@c public func CGContextGetCTM(_ ctx: QZCGContextRef?) -> CGAffineTransform {
    withContext(ctx, CGAffineTransform.identity) { $0.gstate.ctm }
}

/// Applies `t` before the current transformation (arguments already checked).
@inline(__always)
func changeCTM(_ ctx: QZCGContextRef?, _ function: StaticString, _ t: CGAffineTransform) {
    withContext(ctx, (), function) { c in c.gstate.ctm = t.concatenating(c.gstate.ctm) }
}

@c public func CGContextTranslateCTM(_ ctx: QZCGContextRef?, _ tx: Double, _ ty: Double) {
    guard checkFinite(tx, ty, function: #function) else { return }
    changeCTM(ctx, #function, CGAffineTransform(a: 1, b: 0, c: 0, d: 1, tx: tx, ty: ty))
}

@c public func CGContextScaleCTM(_ ctx: QZCGContextRef?, _ sx: Double, _ sy: Double) {
    guard checkFinite(sx, sy, function: #function) else { return }
    changeCTM(ctx, #function, CGAffineTransform(a: sx, b: 0, c: 0, d: sy, tx: 0, ty: 0))
}

/// Rotates user space by `angle` radians (positive turns x towards y).
@c public func CGContextRotateCTM(_ ctx: QZCGContextRef?, _ angle: Double) {
    guard checkFinite(angle, function: #function) else { return }
    changeCTM(ctx, #function, CGAffineTransform(a: cos(angle), b: sin(angle), c: -sin(angle), d: cos(angle), tx: 0, ty: 0))
}

@c public func CGContextConcatCTM(_ ctx: QZCGContextRef?, _ t: CGAffineTransform) {
    guard checkAffine(t, #function) else { return }
    changeCTM(ctx, #function, t)
}

// MARK: - Drawing

/// Sets the fill colour (components clamped to 0...1).
@c public func CGContextSetRGBFillColor(_ ctx: QZCGContextRef?, _ red: Double, _ green: Double, _ blue: Double, _ alpha: Double) {
    guard checkNumbers(red, green, blue, alpha, function: #function) else { return }
    func c(_ v: Double) -> Float { Float(min(max(v, 0), 1)) }
    withContext(ctx, ()) { $0.gstate.fill = SIMD4(c(red) * c(alpha), c(green) * c(alpha), c(blue) * c(alpha), c(alpha)) }
}

@c public func CGContextSetFillColorWithColor(_ ctx: QZCGContextRef?, _ color: QZCGColorRef?) {
    guard let col = object(color, as: Color.self) else { return }
    withContext(ctx, ()) { $0.gstate.fill = col.premultipliedRGBA }
}

/// Paints `rect` (user space) with the fill colour, source-over, anti-aliased.
@c public func CGContextFillRect(_ ctx: QZCGContextRef?, _ rect: CGRect) {
    guard checkRect(rect, #function) else { return }
    withBitmapContext(ctx, ()) { c, _ in _ = c.fill(rect, clear: false) }
}

/// Makes `rect` (user space) transparent black.
@c public func CGContextClearRect(_ ctx: QZCGContextRef?, _ rect: CGRect) {
    guard checkRect(rect, #function) else { return }
    withBitmapContext(ctx, ()) { c, _ in _ = c.fill(rect, clear: true) }
}
