import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel
import QuartziteRender
import Glibc

// CGContext with Apple's names and signatures (CGContext.h and
// CGBitmapContext.h), drawn by cairo (Graphics/). Contexts over pixel
// buffers and the display cycle's contexts have a y-down user space, as
// UIKit's do (API.md): their CTM starts by mapping points to pixels with row
// 0 at the top. These functions validate and convert; Graphics/ draws.
//
// Threads: every call holds the model lock, so a context may be used from
// any thread, but drawing into one context from two threads at once leaves
// the order of its operations undefined. The exception is the context a
// CATiledLayer tile is drawn into on a worker thread: only that thread sees
// it, and its calls skip the model lock so that tiles draw in parallel (the
// objects they read, images, paths, colours, gradients, are immutable or
// guard themselves; text holds its own lock).

@inline(__always)
func withContext<R>(_ ctx: QZCGContextRef?, _ fallback: R, _ function: StaticString = #function, _ body: (DrawingContext) -> R) -> R {
    withObject(ctx, as: DrawingContext.self, fallback: fallback, function) { c in
        c.drawnByOneThread ? body(c) : withModelLock { body(c) }
    }
}

/// Records a drawing call's failure.
func recordGraphicsError(_ e: GraphicsError, _ function: StaticString) {
    switch e {
    case .noCurrentPoint: recordError(QZErrorInvalidState, function, "no current point")
    case .notFinite(let m): recordError(QZErrorNotFinite, function, m)
    case .invalidArgument(let m): recordError(QZErrorInvalidArgument, function, m)
    case .invalidState(let m): recordError(QZErrorInvalidState, function, m)
    case .outOfMemory(let m): recordError(QZErrorOutOfMemory, function, m)
    }
}

/// Runs a throwing change on a context, recording its error.
@inline(__always)
func changeContext(_ ctx: QZCGContextRef?, _ function: StaticString, _ body: (DrawingContext) throws(GraphicsError) -> Void) {
    withContext(ctx, (), function) { c in
        do throws(GraphicsError) { try body(c) } catch { recordGraphicsError(error, function) }
    }
}

/// `count` items at `p` (NULL only with a count of 0), or nil after recording the error.
@inline(__always)
func cArray<T>(_ p: UnsafePointer<T>?, _ count: Int, _ what: StaticString, _ function: StaticString) -> [T]? {
    if count == 0 { return [] }
    guard let p else {
        recordError(QZErrorNullArgument, function, "\(what) is NULL but the count is \(count)")
        return nil
    }
    guard count > 0, count <= 1 << 24 else {
        recordError(QZErrorOutOfRange, function, "the count \(count) is out of range")
        return nil
    }
    return Array(UnsafeBufferPointer(start: p, count: count))
}

// MARK: - Bitmap contexts

/// Creates a bitmap context over `data` (`height` rows of `bytesPerRow`
/// bytes, which must stay valid while the context lives), or over memory it
/// allocates itself (zeroed) when `data` is NULL (`bytesPerRow` 0 then picks
/// the row size; with `data`, 0 records QZErrorInvalidArgument). Accepted
/// formats: 8 bits per component, 32 bits per pixel,
/// kCGImageAlphaPremultipliedFirst | kCGBitmapByteOrder32Little (BGRA in
/// memory, the native format, drawn in place), kCGImageAlphaPremultipliedLast with the
/// default or big-endian order (RGBA), kCGImageAlphaPremultipliedFirst with
/// the default or big-endian order (ARGB), and the NoneSkipFirst/NoneSkipLast
/// variants of those (opaque); formats other than BGRA are drawn through a
/// BGRA copy written back after each operation. `space` may be NULL (sRGB) and is otherwise
/// ignored. The CTM is the identity: user space is pixels, y down. Returns +1 (release with CGContextRelease or CARelease), or NULL
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
    if let space { guard object(space, as: ColorSpace.self) != nil else { return nil } }
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
        do {
            return retainedHandle(try DrawingContext(target: pb))
        } catch {
            recordGraphicsError(error, #function)
            return nil
        }
    } catch {
        recordError(error.error, #function, error.message)
        return nil
    }
}

/// Creates a bitmap context drawing into `pixelBuffer` (retained), which
/// must have a chunky RGB format (32BGRA is drawn in place; others through
/// a BGRA copy written back after each operation). The CTM is the
/// identity: points are pixels, y down. Returns +1, or NULL with
/// QZErrorNullArgument, QZErrorWrongType or QZErrorInvalidArgument.
@c public func QZBitmapContextCreateWithPixelBuffer(_ pixelBuffer: QZCVPixelBufferRef?) -> QZCGContextRef? {
    guard let pb = object(pixelBuffer, as: PixelBuffer.self) else { return nil }
    guard pb.isRenderable else {
        recordError(QZErrorInvalidArgument, #function, "pixel format '\(fourCharCodeString(pb.pixelFormat))' cannot be drawn into")
        return nil
    }
    do {
        return retainedHandle(try DrawingContext(target: pb))
    } catch {
        recordGraphicsError(error, #function)
        return nil
    }
}

/// The pixel buffer behind a context (+0): the CVPixelBuffer it was made
/// with, the buffer over CGBitmapContextCreate's memory, or a layer's
/// backing store.
@c public func QZBitmapContextGetPixelBuffer(_ ctx: QZCGContextRef?) -> QZCVPixelBufferRef? {
    withContext(ctx, nil) { borrowedHandle($0.target) }
}

/// The first byte of a bitmap context's pixels.
@c public func CGBitmapContextGetData(_ ctx: QZCGContextRef?) -> UnsafeMutableRawPointer? {
    withContext(ctx, nil) { $0.target.baseAddress }
}

/// The width of a bitmap context in pixels (0, with QZErrorInvalidArgument, for a context that is
/// not a bitmap context).
@c public func CGBitmapContextGetWidth(_ ctx: QZCGContextRef?) -> size_t {
    withContext(ctx, 0) { $0.width }
}

/// The height of a bitmap context in pixels (0, with QZErrorInvalidArgument, for a context that is
/// not a bitmap context).
@c public func CGBitmapContextGetHeight(_ ctx: QZCGContextRef?) -> size_t {
    withContext(ctx, 0) { $0.height }
}

/// The number of bytes from the start of one row of a bitmap context's pixels to the next (0 for a
/// context that is not a bitmap context).
@c public func CGBitmapContextGetBytesPerRow(_ ctx: QZCGContextRef?) -> size_t {
    withContext(ctx, 0) { $0.target.bytesPerRow }
}

/// An image of the context's pixels now (+1; later drawing does not change it).
@c public func CGBitmapContextCreateImage(_ ctx: QZCGContextRef?) -> QZCGImageRef? {
    withContext(ctx, nil) { c in
        do throws(GraphicsError) {
            return retainedHandle(try Image.copy(of: c.drawnBuffer))
        } catch {
            recordGraphicsError(error, #function)
            return nil
        }
    }
}

/// Returns `ctx` with one more reference (NULL is returned as is).
@c public func CGContextRetain(_ ctx: QZCGContextRef?) -> QZCGContextRef? {
    retainTyped(ctx, as: DrawingContext.self, #function)
}

/// Drops a reference (NULL is ignored).
@c public func CGContextRelease(_ ctx: QZCGContextRef?) {
    releaseTyped(ctx, as: DrawingContext.self, #function)
}

/// Drawing is finished when each call returns: nothing to flush.
@c public func CGContextFlush(_ ctx: QZCGContextRef?) { withContext(ctx, ()) { _ in } }

/// As CGContextFlush.
@c public func CGContextSynchronize(_ ctx: QZCGContextRef?) { withContext(ctx, ()) { _ in } }

// MARK: - Graphics state

/// Pushes a copy of the graphics state (CTM, clip, colours, line
/// parameters, alpha, blend mode, shadow, ...); the path is not part of it.
@c public func CGContextSaveGState(_ ctx: QZCGContextRef?) {
    changeContext(ctx, #function) { c throws(GraphicsError) in try c.saveState() }
}

/// Restores the last saved state; QZErrorInvalidState when none is saved
/// (or it was saved outside the open transparency layer).
@c public func CGContextRestoreGState(_ ctx: QZCGContextRef?) {
    changeContext(ctx, #function) { c throws(GraphicsError) in try c.restoreState() }
}

/// The current transformation matrix (user space to pixels).
@c public func CGContextGetCTM(_ ctx: QZCGContextRef?) -> CGAffineTransform {
    withContext(ctx, CGAffineTransform.identity) { $0.ctm }
}

/// The transform from user space to device pixels (the CTM).
@c public func CGContextGetUserSpaceToDeviceSpaceTransform(_ ctx: QZCGContextRef?) -> CGAffineTransform {
    withContext(ctx, CGAffineTransform.identity) { $0.ctm }
}

/// Moves user space by (tx, ty), applied before the current transformation. NaN or infinity records
/// QZErrorNotFinite and changes nothing.
@c public func CGContextTranslateCTM(_ ctx: QZCGContextRef?, _ tx: Double, _ ty: Double) {
    guard checkFinite(tx, ty, function: #function) else { return }
    withContext(ctx, ()) { $0.concatenate(CGAffineTransform(a: 1, b: 0, c: 0, d: 1, tx: tx, ty: ty)) }
}

/// Scales user space. A scale of 0 makes the CTM singular: nothing draws
/// until a saved state with an invertible CTM is restored.
@c public func CGContextScaleCTM(_ ctx: QZCGContextRef?, _ sx: Double, _ sy: Double) {
    guard checkFinite(sx, sy, function: #function) else { return }
    withContext(ctx, ()) { $0.concatenate(CGAffineTransform(a: sx, b: 0, c: 0, d: sy, tx: 0, ty: 0)) }
}

/// Rotates user space by `angle` radians (positive turns x towards y).
@c public func CGContextRotateCTM(_ ctx: QZCGContextRef?, _ angle: Double) {
    guard checkFinite(angle, function: #function) else { return }
    withContext(ctx, ()) { $0.concatenate(CGAffineTransform(a: cos(angle), b: sin(angle), c: -sin(angle), d: cos(angle), tx: 0, ty: 0)) }
}

/// Applies `transform` before the current transformation. A non-finite entry records
/// QZErrorNotFinite and changes nothing.
@c public func CGContextConcatCTM(_ ctx: QZCGContextRef?, _ t: CGAffineTransform) {
    guard checkAffine(t, #function) else { return }
    withContext(ctx, ()) { $0.concatenate(t) }
}

/// Multiplies everything drawn afterwards (clamped to 0...1).
@c public func CGContextSetAlpha(_ ctx: QZCGContextRef?, _ alpha: Double) {
    guard checkFinite(alpha, function: #function) else { return }
    withContext(ctx, ()) { $0.setAlpha(alpha) }
}

/// How later drawing combines with the pixels (Apple's CGBlendMode values;
/// QZErrorInvalidArgument for others).
@c public func CGContextSetBlendMode(_ ctx: QZCGContextRef?, _ mode: CGBlendMode) {
    guard let m = BlendMode(rawValue: Int32(bitPattern: mode.rawValue)) else {
        recordError(QZErrorInvalidArgument, #function, "\(Int32(bitPattern: mode.rawValue)) is not a CGBlendMode")
        return
    }
    withContext(ctx, ()) { $0.setBlendMode(m) }
}

/// Turns antialiasing of later drawing on or off (graphics state).
@c public func CGContextSetShouldAntialias(_ ctx: QZCGContextRef?, _ shouldAntialias: Bool) {
    withContext(ctx, ()) { $0.setShouldAntialias(shouldAntialias) }
}

/// Allows antialiasing at all (not part of the graphics state): when false,
/// nothing is antialiased whatever CGContextSetShouldAntialias says.
@c public func CGContextSetAllowsAntialiasing(_ ctx: QZCGContextRef?, _ allowsAntialiasing: Bool) {
    withContext(ctx, ()) { $0.setAllowsAntialiasing(allowsAntialiasing) }
}

/// How images are sampled when drawn scaled (Apple's values; others are
/// QZErrorInvalidArgument).
@c public func CGContextSetInterpolationQuality(_ ctx: QZCGContextRef?, _ quality: CGInterpolationQuality) {
    guard let q = InterpolationQuality(rawValue: Int32(bitPattern: quality.rawValue)) else {
        recordError(QZErrorInvalidArgument, #function, "\(Int32(bitPattern: quality.rawValue)) is not a CGInterpolationQuality")
        return
    }
    withContext(ctx, ()) { $0.setInterpolationQuality(q) }
}

/// The interpolation quality images are drawn with (kCGInterpolationDefault until set).
@c public func CGContextGetInterpolationQuality(_ ctx: QZCGContextRef?) -> CGInterpolationQuality {
    withContext(ctx, CGInterpolationQuality(rawValue: 0)) { CGInterpolationQuality(rawValue: UInt32($0.interpolationQuality.rawValue)) }
}

/// The accuracy of curves, in device pixels (cairo's tolerance; at least 0.01).
@c public func CGContextSetFlatness(_ ctx: QZCGContextRef?, _ flatness: Double) {
    guard checkFinite(flatness, function: #function) else { return }
    guard flatness > 0 else {
        recordError(QZErrorInvalidArgument, #function, "flatness must be positive, got \(flatness)")
        return
    }
    withContext(ctx, ()) { $0.setFlatness(flatness) }
}

// MARK: - Colour

func clampedRGBA(_ r: Double, _ g: Double, _ b: Double, _ a: Double) -> SIMD4<Double> {
    func c(_ v: Double) -> Double { min(max(v, 0), 1) }
    return SIMD4(c(r), c(g), c(b), c(a))
}

/// Sets the fill colour (components clamped to 0...1).
@c public func CGContextSetRGBFillColor(_ ctx: QZCGContextRef?, _ red: Double, _ green: Double, _ blue: Double, _ alpha: Double) {
    guard checkNumbers(red, green, blue, alpha, function: #function) else { return }
    withContext(ctx, ()) { $0.setFillColor(clampedRGBA(red, green, blue, alpha)) }
}

/// Sets the stroke colour from sRGB components (each clamped to 0...1). NaN records
/// QZErrorNotFinite and changes nothing.
@c public func CGContextSetRGBStrokeColor(_ ctx: QZCGContextRef?, _ red: Double, _ green: Double, _ blue: Double, _ alpha: Double) {
    guard checkNumbers(red, green, blue, alpha, function: #function) else { return }
    withContext(ctx, ()) { $0.setStrokeColor(clampedRGBA(red, green, blue, alpha)) }
}

/// Sets the fill colour to a gray level with an alpha (each clamped to 0...1). NaN records
/// QZErrorNotFinite and changes nothing.
@c public func CGContextSetGrayFillColor(_ ctx: QZCGContextRef?, _ gray: Double, _ alpha: Double) {
    guard checkNumbers(gray, alpha, function: #function) else { return }
    withContext(ctx, ()) { $0.setFillColor(clampedRGBA(gray, gray, gray, alpha)) }
}

/// Sets the stroke colour to a gray level with an alpha (each clamped to 0...1). NaN records
/// QZErrorNotFinite and changes nothing.
@c public func CGContextSetGrayStrokeColor(_ ctx: QZCGContextRef?, _ gray: Double, _ alpha: Double) {
    guard checkNumbers(gray, alpha, function: #function) else { return }
    withContext(ctx, ()) { $0.setStrokeColor(clampedRGBA(gray, gray, gray, alpha)) }
}

/// Sets the fill colour from a CGColorRef. NULL or a handle of another type records an error and
/// changes nothing.
@c public func CGContextSetFillColorWithColor(_ ctx: QZCGContextRef?, _ color: QZCGColorRef?) {
    guard let col = object(color, as: Color.self) else { return }
    withContext(ctx, ()) { $0.setFillColor(col.rgba) }
}

/// Sets the stroke colour from a CGColorRef. NULL or a handle of another type records an error and
/// changes nothing.
@c public func CGContextSetStrokeColorWithColor(_ ctx: QZCGContextRef?, _ color: QZCGColorRef?) {
    guard let col = object(color, as: Color.self) else { return }
    withContext(ctx, ()) { $0.setStrokeColor(col.rgba) }
}

/// The colour space of later CGContextSetFillColor calls (the colour
/// becomes opaque black).
@c public func CGContextSetFillColorSpace(_ ctx: QZCGContextRef?, _ space: QZCGColorSpaceRef?) {
    guard let s = object(space, as: ColorSpace.self) else { return }
    withContext(ctx, ()) { $0.setFillColorSpace(s) }
}

/// Sets the colour space that CGContextSetStrokeColor's components are read in, and makes the
/// stroke colour that space's black.
@c public func CGContextSetStrokeColorSpace(_ ctx: QZCGContextRef?, _ space: QZCGColorSpaceRef?) {
    guard let s = object(space, as: ColorSpace.self) else { return }
    withContext(ctx, ()) { $0.setStrokeColorSpace(s) }
}

/// Sets the fill colour from components of the fill colour space (RGB by
/// default) followed by alpha: 4 values for RGB, 2 for gray.
@c public func CGContextSetFillColor(_ ctx: QZCGContextRef?, _ components: UnsafePointer<Double>?) {
    guard let p = requireNonNull(components, "components", #function) else { return }
    withContext(ctx, ()) { c in
        let values = Array(UnsafeBufferPointer(start: p, count: c.fillComponentCount))
        guard values.allSatisfy({ $0.isFinite }) else {
            recordError(QZErrorNotFinite, #function, "colour components must be finite")
            return
        }
        c.setFillComponents(values)
    }
}

/// Sets the stroke colour from components in the stroke colour space (its component count plus
/// alpha, read from `components`). NULL records QZErrorNullArgument.
@c public func CGContextSetStrokeColor(_ ctx: QZCGContextRef?, _ components: UnsafePointer<Double>?) {
    guard let p = requireNonNull(components, "components", #function) else { return }
    withContext(ctx, ()) { c in
        let values = Array(UnsafeBufferPointer(start: p, count: c.strokeComponentCount))
        guard values.allSatisfy({ $0.isFinite }) else {
            recordError(QZErrorNotFinite, #function, "colour components must be finite")
            return
        }
        c.setStrokeComponents(values)
    }
}

// MARK: - Lines

/// The stroke width in user space (default 1); negative widths are
/// QZErrorInvalidArgument.
@c public func CGContextSetLineWidth(_ ctx: QZCGContextRef?, _ width: Double) {
    guard checkFinite(width, function: #function) else { return }
    guard width >= 0 else {
        recordError(QZErrorInvalidArgument, #function, "the line width must not be negative, got \(width)")
        return
    }
    withContext(ctx, ()) { $0.setLineWidth(width) }
}

/// Sets how open ends of stroked lines are drawn: kCGLineCapButt (default), kCGLineCapRound or
/// kCGLineCapSquare. Another value records QZErrorInvalidArgument.
@c public func CGContextSetLineCap(_ ctx: QZCGContextRef?, _ cap: CGLineCap) {
    guard cap.rawValue <= 2 else {
        recordError(QZErrorInvalidArgument, #function, "\(cap.rawValue) is not a CGLineCap")
        return
    }
    withContext(ctx, ()) { $0.setLineCap(Int32(cap.rawValue)) }
}

/// Sets how stroked segments are joined: kCGLineJoinMiter (default), kCGLineJoinRound or
/// kCGLineJoinBevel. Another value records QZErrorInvalidArgument.
@c public func CGContextSetLineJoin(_ ctx: QZCGContextRef?, _ join: CGLineJoin) {
    guard join.rawValue <= 2 else {
        recordError(QZErrorInvalidArgument, #function, "\(join.rawValue) is not a CGLineJoin")
        return
    }
    withContext(ctx, ()) { $0.setLineJoin(Int32(join.rawValue)) }
}

/// The miter limit (default 10): joins whose miter would be longer than
/// limit x width are beveled.
@c public func CGContextSetMiterLimit(_ ctx: QZCGContextRef?, _ limit: Double) {
    guard checkFinite(limit, function: #function) else { return }
    guard limit >= 0 else {
        recordError(QZErrorInvalidArgument, #function, "the miter limit must not be negative, got \(limit)")
        return
    }
    withContext(ctx, ()) { $0.setMiterLimit(limit) }
}

/// Dashes strokes: `count` lengths (on, off, on, ...) in user space,
/// starting `phase` into the pattern. A count of 0 (lengths may then be
/// NULL) makes lines solid. QZErrorNullArgument for NULL lengths with a
/// count, QZErrorInvalidArgument for negative lengths or lengths that are
/// all 0, QZErrorNotFinite for NaN.
@c public func CGContextSetLineDash(_ ctx: QZCGContextRef?, _ phase: Double, _ lengths: UnsafePointer<Double>?, _ count: size_t) {
    guard checkFinite(phase, function: #function) else { return }
    guard let list = cArray(lengths, count, "lengths", #function) else { return }
    guard list.allSatisfy({ $0.isFinite }) else {
        recordError(QZErrorNotFinite, #function, "dash lengths must be finite")
        return
    }
    guard list.allSatisfy({ $0 >= 0 }) else {
        recordError(QZErrorInvalidArgument, #function, "dash lengths must not be negative")
        return
    }
    guard list.isEmpty || list.contains(where: { $0 > 0 }) else {
        recordError(QZErrorInvalidArgument, #function, "dash lengths are all 0")
        return
    }
    withContext(ctx, ()) { $0.setLineDash(phase: phase, lengths: list) }
}

// MARK: - The current path

/// Starts a new, empty path (the old one is dropped).
@c public func CGContextBeginPath(_ ctx: QZCGContextRef?) {
    withContext(ctx, ()) { $0.beginPath() }
}

/// Starts a new subpath at (x, y) in user space. NaN or infinity records QZErrorNotFinite and
/// changes nothing.
@c public func CGContextMoveToPoint(_ ctx: QZCGContextRef?, _ x: Double, _ y: Double) {
    guard checkFinite(x, y, function: #function) else { return }
    changeContext(ctx, #function) { c throws(GraphicsError) in try c.move(to: CGPoint(x: x, y: y)) }
}

/// A line from the current point; QZErrorInvalidState ("no current point")
/// when the path has none.
@c public func CGContextAddLineToPoint(_ ctx: QZCGContextRef?, _ x: Double, _ y: Double) {
    guard checkFinite(x, y, function: #function) else { return }
    changeContext(ctx, #function) { c throws(GraphicsError) in try c.addLine(to: CGPoint(x: x, y: y)) }
}

/// Adds a cubic Bezier curve from the current point to (x, y) with control points (cp1x, cp1y) and
/// (cp2x, cp2y). Without a current point it records QZErrorInvalidState (Core Graphics' "no current
/// point") and does nothing; NaN or infinity records QZErrorNotFinite.
@c public func CGContextAddCurveToPoint(_ ctx: QZCGContextRef?, _ cp1x: Double, _ cp1y: Double, _ cp2x: Double, _ cp2y: Double,
                                       _ x: Double, _ y: Double) {
    guard checkFinite(cp1x, cp1y, cp2x, cp2y, x, y, function: #function) else { return }
    changeContext(ctx, #function) { c throws(GraphicsError) in
        try c.addCurve(to: CGPoint(x: x, y: y), control1: CGPoint(x: cp1x, y: cp1y), control2: CGPoint(x: cp2x, y: cp2y))
    }
}

/// Adds a quadratic Bezier curve from the current point to (x, y) with control point (cpx, cpy).
/// Without a current point it records QZErrorInvalidState and does nothing; NaN or infinity records
/// QZErrorNotFinite.
@c public func CGContextAddQuadCurveToPoint(_ ctx: QZCGContextRef?, _ cpx: Double, _ cpy: Double, _ x: Double, _ y: Double) {
    guard checkFinite(cpx, cpy, x, y, function: #function) else { return }
    changeContext(ctx, #function) { c throws(GraphicsError) in
        try c.addQuadCurve(to: CGPoint(x: x, y: y), control: CGPoint(x: cpx, y: cpy))
    }
}

/// An arc of the circle (x, y, radius) from startAngle to endAngle
/// (radians), preceded by a line from the current point if there is one.
/// `clockwise` non-zero sweeps towards decreasing angles (as CGPathAddArc).
@c public func CGContextAddArc(_ ctx: QZCGContextRef?, _ x: Double, _ y: Double, _ radius: Double,
                              _ startAngle: Double, _ endAngle: Double, _ clockwise: Int32) {
    guard checkFinite(x, y, radius, startAngle, endAngle, function: #function) else { return }
    changeContext(ctx, #function) { c throws(GraphicsError) in
        try c.addArc(center: CGPoint(x: x, y: y), radius: radius, startAngle: startAngle, endAngle: endAngle,
                     clockwise: clockwise != 0)
    }
}

/// PostScript's arct: a line towards (x1, y1), then the arc of `radius`
/// tangent to both legs; QZErrorInvalidState without a current point.
@c public func CGContextAddArcToPoint(_ ctx: QZCGContextRef?, _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double,
                                     _ radius: Double) {
    guard checkFinite(x1, y1, x2, y2, radius, function: #function) else { return }
    changeContext(ctx, #function) { c throws(GraphicsError) in
        try c.addArc(tangent1End: CGPoint(x: x1, y: y1), tangent2End: CGPoint(x: x2, y: y2), radius: radius)
    }
}

/// Adds a closed rectangle subpath. A non-finite rectangle records QZErrorNotFinite and changes
/// nothing.
@c public func CGContextAddRect(_ ctx: QZCGContextRef?, _ rect: CGRect) {
    guard checkRect(rect, #function) else { return }
    changeContext(ctx, #function) { c throws(GraphicsError) in try c.addRect(rect) }
}

/// Adds a closed subpath for each of `count` rectangles. NULL with a non-zero count records
/// QZErrorNullArgument; a non-finite rectangle QZErrorNotFinite; either adds nothing.
@c public func CGContextAddRects(_ ctx: QZCGContextRef?, _ rects: UnsafePointer<CGRect>?, _ count: size_t) {
    guard let list = cArray(rects, count, "rects", #function) else { return }
    for r in list { guard checkRect(r, #function) else { return } }
    changeContext(ctx, #function) { c throws(GraphicsError) in for r in list { try c.addRect(r) } }
}

/// A move to the first point and lines to the others.
@c public func CGContextAddLines(_ ctx: QZCGContextRef?, _ points: UnsafePointer<CGPoint>?, _ count: size_t) {
    guard let list = cArray(points, count, "points", #function) else { return }
    for p in list { guard checkPoint(p, #function) else { return } }
    changeContext(ctx, #function) { c throws(GraphicsError) in try c.addLines(list) }
}

/// Adds a closed ellipse subpath inscribed in `rect`. A non-finite rectangle records
/// QZErrorNotFinite and changes nothing.
@c public func CGContextAddEllipseInRect(_ ctx: QZCGContextRef?, _ rect: CGRect) {
    guard checkRect(rect, #function) else { return }
    changeContext(ctx, #function) { c throws(GraphicsError) in try c.addEllipse(in: rect) }
}

/// Appends `path` (user space), transformed by the CTM.
@c public func CGContextAddPath(_ ctx: QZCGContextRef?, _ path: QZCGPathRef?) {
    guard let p = object(path, as: Path.self) else { return }
    let data = p.data
    changeContext(ctx, #function) { c throws(GraphicsError) in try c.addPath(data) }
}

/// Closes the current subpath with a line back to its start. On an empty
/// path it does nothing.
@c public func CGContextClosePath(_ ctx: QZCGContextRef?) {
    withContext(ctx, ()) { $0.closePath() }
}

/// Whether the context's current path has no elements (true for a bad handle).
@c public func CGContextIsPathEmpty(_ ctx: QZCGContextRef?) -> Bool {
    withContext(ctx, true) { $0.isPathEmpty }
}

/// The current point in user space; CGPointZero when the path is empty.
@c public func CGContextGetPathCurrentPoint(_ ctx: QZCGContextRef?) -> CGPoint {
    withContext(ctx, CGPoint(x: 0, y: 0)) { $0.pathCurrentPoint ?? CGPoint(x: 0, y: 0) }
}

/// The path's bounds in user space (curves included, control points not);
/// CGRectNull when it is empty.
@c public func CGContextGetPathBoundingBox(_ ctx: QZCGContextRef?) -> CGRect {
    withContext(ctx, CGRect.null) { $0.pathBoundingBox }
}

/// Whether painting the path with `mode` would cover `point` (user space).
@c public func CGContextPathContainsPoint(_ ctx: QZCGContextRef?, _ point: CGPoint, _ mode: CGPathDrawingMode) -> Bool {
    guard checkPoint(point, #function) else { return false }
    guard let m = PathDrawingMode(rawValue: Int32(bitPattern: mode.rawValue)) else {
        recordError(QZErrorInvalidArgument, #function, "\(mode.rawValue) is not a CGPathDrawingMode")
        return false
    }
    return withContext(ctx, false) { $0.pathContains(point, mode: m) }
}

/// A copy of the path in user space (+1), or NULL when it is empty. After
/// CGContextReplacePathWithStrokedPath it is still the centre line.
@c public func CGContextCopyPath(_ ctx: QZCGContextRef?) -> QZCGPathRef? {
    withContext(ctx, nil) { c in
        if c.isPathEmpty { return nil }
        return retainedHandle(Path(c.userSpacePath, mutable: false))
    }
}

/// The path becomes the outline of its stroke with the current line width,
/// cap, join, miter limit and dash: filling it paints the stroke, clipping
/// to it clips to the stroke, CGContextPathContainsPoint tests the stroke.
@c public func CGContextReplacePathWithStrokedPath(_ ctx: QZCGContextRef?) {
    withContext(ctx, ()) { $0.replacePathWithStrokedPath() }
}

// MARK: - Painting

/// Fills the path's interior (nonzero winding rule) and clears the path.
@c public func CGContextFillPath(_ ctx: QZCGContextRef?) { withContext(ctx, ()) { $0.drawPath(.fill) } }
/// Fills the path's interior (even-odd rule) and clears the path.
@c public func CGContextEOFillPath(_ ctx: QZCGContextRef?) { withContext(ctx, ()) { $0.drawPath(.eoFill) } }
/// Strokes the path with the line parameters and clears it.
@c public func CGContextStrokePath(_ ctx: QZCGContextRef?) { withContext(ctx, ()) { $0.drawPath(.stroke) } }

/// Paints the path with `mode` (fill, even-odd fill, stroke, or a fill then
/// a stroke) and clears it.
@c public func CGContextDrawPath(_ ctx: QZCGContextRef?, _ mode: CGPathDrawingMode) {
    guard let m = PathDrawingMode(rawValue: Int32(bitPattern: mode.rawValue)) else {
        recordError(QZErrorInvalidArgument, #function, "\(mode.rawValue) is not a CGPathDrawingMode")
        return
    }
    withContext(ctx, ()) { $0.drawPath(m) }
}

/// Paints `rect` (user space) with the fill colour. The path is not touched.
@c public func CGContextFillRect(_ ctx: QZCGContextRef?, _ rect: CGRect) {
    guard checkRect(rect, #function) else { return }
    withContext(ctx, ()) { $0.fill([rect]) }
}

/// Fills each of `count` rectangles with the fill colour (nonzero rule); the current path is not
/// touched. NULL with a non-zero count records QZErrorNullArgument.
@c public func CGContextFillRects(_ ctx: QZCGContextRef?, _ rects: UnsafePointer<CGRect>?, _ count: size_t) {
    guard let list = cArray(rects, count, "rects", #function) else { return }
    for r in list { guard checkRect(r, #function) else { return } }
    withContext(ctx, ()) { $0.fill(list) }
}

/// Strokes `rect` with the line parameters. The path is not touched.
@c public func CGContextStrokeRect(_ ctx: QZCGContextRef?, _ rect: CGRect) {
    guard checkRect(rect, #function) else { return }
    withContext(ctx, ()) { $0.stroke(rect) }
}

/// Strokes `rect` with `width` (the line width in the state is unchanged);
/// a negative width is QZErrorInvalidArgument.
@c public func CGContextStrokeRectWithWidth(_ ctx: QZCGContextRef?, _ rect: CGRect, _ width: Double) {
    guard checkRect(rect, #function), checkFinite(width, function: #function) else { return }
    guard width >= 0 else {
        recordError(QZErrorInvalidArgument, #function, "the line width must not be negative, got \(width)")
        return
    }
    withContext(ctx, ()) { $0.stroke(rect, width: width) }
}

/// Fills the ellipse inscribed in `rect` with the fill colour; the current path is not touched.
@c public func CGContextFillEllipseInRect(_ ctx: QZCGContextRef?, _ rect: CGRect) {
    guard checkRect(rect, #function) else { return }
    withContext(ctx, ()) { $0.fillEllipse(in: rect) }
}

/// Strokes the ellipse inscribed in `rect` with the line parameters; the current path is not
/// touched.
@c public func CGContextStrokeEllipseInRect(_ ctx: QZCGContextRef?, _ rect: CGRect) {
    guard checkRect(rect, #function) else { return }
    withContext(ctx, ()) { $0.strokeEllipse(in: rect) }
}

/// Strokes a line between each pair of points (points[0]-points[1],
/// points[2]-points[3], ...); the current path is replaced by nothing.
@c public func CGContextStrokeLineSegments(_ ctx: QZCGContextRef?, _ points: UnsafePointer<CGPoint>?, _ count: size_t) {
    guard let list = cArray(points, count, "points", #function) else { return }
    for p in list { guard checkPoint(p, #function) else { return } }
    withContext(ctx, ()) { $0.strokeLineSegments(list) }
}

/// Makes `rect` (user space) transparent black inside the clip.
@c public func CGContextClearRect(_ ctx: QZCGContextRef?, _ rect: CGRect) {
    guard checkRect(rect, #function) else { return }
    withContext(ctx, ()) { $0.clear(rect) }
}

// MARK: - Clipping

/// Intersects the clip with the path's interior (nonzero) and clears the path.
@c public func CGContextClip(_ ctx: QZCGContextRef?) { withContext(ctx, ()) { $0.clipToPath(evenOdd: false) } }
/// Intersects the clip with the path's interior (even-odd) and clears the path.
@c public func CGContextEOClip(_ ctx: QZCGContextRef?) { withContext(ctx, ()) { $0.clipToPath(evenOdd: true) } }

/// Intersects the clip with `rect`; the path is not touched.
@c public func CGContextClipToRect(_ ctx: QZCGContextRef?, _ rect: CGRect) {
    guard checkRect(rect, #function) else { return }
    withContext(ctx, ()) { $0.clip(to: [rect]) }
}

/// Intersects the clip with the union of the rectangles.
@c public func CGContextClipToRects(_ ctx: QZCGContextRef?, _ rects: UnsafePointer<CGRect>?, _ count: size_t) {
    guard let list = cArray(rects, count, "rects", #function) else { return }
    for r in list { guard checkRect(r, #function) else { return } }
    withContext(ctx, ()) { $0.clip(to: list) }
}

/// Intersects the clip with `rect` and the mask `mask` makes there (placed
/// as CGContextDrawImage places images): its alpha, or for an image
/// without alpha its gray level (white lets everything through).
@c public func CGContextClipToMask(_ ctx: QZCGContextRef?, _ rect: CGRect, _ mask: QZCGImageRef?) {
    guard checkRect(rect, #function) else { return }
    guard let image = object(mask, as: Image.self) else { return }
    withContext(ctx, ()) { $0.clip(toMask: image, in: rect) }
}

/// The clip's bounds in user space (for a display context: the area being
/// redrawn, in layer coordinates).
@c public func CGContextGetClipBoundingBox(_ ctx: QZCGContextRef?) -> CGRect {
    withContext(ctx, CGRect.null) { $0.clipBoundingBox }
}

// MARK: - Shadows

/// A shadow under everything drawn afterwards: black at 1/3 alpha, moved by
/// `offset` and blurred by `blur`, both in the context's base space (not
/// affected by the CTM; y down, so a positive height moves it down).
@c public func CGContextSetShadow(_ ctx: QZCGContextRef?, _ offset: CGSize, _ blur: Double) {
    guard checkSize(offset, #function), checkFinite(blur, function: #function) else { return }
    withContext(ctx, ()) { $0.setShadow(offset: offset, blur: blur, color: SIMD4(0, 0, 0, 1.0 / 3)) }
}

/// As CGContextSetShadow with `color` (NULL, or a fully transparent colour,
/// turns shadows off).
@c public func CGContextSetShadowWithColor(_ ctx: QZCGContextRef?, _ offset: CGSize, _ blur: Double, _ color: QZCGColorRef?) {
    guard checkSize(offset, #function), checkFinite(blur, function: #function) else { return }
    var rgba: SIMD4<Double>? = nil
    if let color {
        guard let c = object(color, as: Color.self) else { return }
        rgba = c.rgba
    }
    withContext(ctx, ()) { $0.setShadow(offset: offset, blur: blur, color: rgba) }
}

// MARK: - Gradients

func gradientOptions(_ options: UInt32, _ function: StaticString) -> GradientDrawingOptions? {
    guard options & ~3 == 0 else {
        recordError(QZErrorInvalidArgument, function, "options 0x\(String(options, radix: 16)) are not CGGradientDrawingOptions")
        return nil
    }
    return GradientDrawingOptions(rawValue: options)
}

/// Fills the clip with the gradient along start -> end (user space). Before
/// start and after end nothing is painted unless the options say so
/// (kCGGradientDrawsBeforeStartLocation, kCGGradientDrawsAfterEndLocation).
@c public func CGContextDrawLinearGradient(_ ctx: QZCGContextRef?, _ gradient: QZCGGradientRef?, _ startPoint: CGPoint,
                                          _ endPoint: CGPoint, _ options: UInt32) {
    guard checkPoint(startPoint, #function), checkPoint(endPoint, #function) else { return }
    guard let g = object(gradient, as: Gradient.self), let o = gradientOptions(options, #function) else { return }
    withContext(ctx, ()) { $0.drawLinearGradient(g, start: startPoint, end: endPoint, options: o) }
}

/// Paints the gradient between the start and end circles; the options
/// extend it inside the start circle and outside the end circle. Negative
/// radii are QZErrorInvalidArgument.
@c public func CGContextDrawRadialGradient(_ ctx: QZCGContextRef?, _ gradient: QZCGGradientRef?, _ startCenter: CGPoint,
                                          _ startRadius: Double, _ endCenter: CGPoint, _ endRadius: Double, _ options: UInt32) {
    guard checkPoint(startCenter, #function), checkPoint(endCenter, #function),
          checkFinite(startRadius, endRadius, function: #function) else { return }
    guard startRadius >= 0, endRadius >= 0 else {
        recordError(QZErrorInvalidArgument, #function, "radii must not be negative")
        return
    }
    guard let g = object(gradient, as: Gradient.self), let o = gradientOptions(options, #function) else { return }
    withContext(ctx, ()) {
        $0.drawRadialGradient(g, startCenter: startCenter, startRadius: startRadius, endCenter: endCenter,
                              endRadius: endRadius, options: o)
    }
}

// MARK: - Transparency layers

/// Starts a transparency layer: what follows draws into a transparent
/// layer, composited at CGContextEndTransparencyLayer with the alpha, blend
/// mode, shadow and clip in effect now (inside, alpha is 1, the blend mode
/// normal and there is no shadow). `auxiliaryInfo` may be NULL (it is ignored).
@c public func CGContextBeginTransparencyLayer(_ ctx: QZCGContextRef?, _ auxiliaryInfo: CAValueRef?) {
    changeContext(ctx, #function) { c throws(GraphicsError) in try c.beginTransparencyLayer(rect: nil) }
}

/// As CGContextBeginTransparencyLayer, limited to `rect` (user space).
@c public func CGContextBeginTransparencyLayerWithRect(_ ctx: QZCGContextRef?, _ rect: CGRect, _ auxiliaryInfo: CAValueRef?) {
    guard checkRect(rect, #function) else { return }
    changeContext(ctx, #function) { c throws(GraphicsError) in try c.beginTransparencyLayer(rect: rect) }
}

/// Composites the innermost transparency layer; QZErrorInvalidState when
/// none is open.
@c public func CGContextEndTransparencyLayer(_ ctx: QZCGContextRef?) {
    changeContext(ctx, #function) { c throws(GraphicsError) in try c.endTransparencyLayer() }
}

// MARK: - Images

/// Draws `image` scaled into `rect` (user space), sampled as the
/// interpolation quality says. As in Core Graphics, the image's first row
/// lies along the rectangle's maxY edge: in a y-down context (these
/// contexts, like UIKit's) an image drawn without flipping the CTM appears
/// upside down; flip (translate by the rect's maxY + minY, scale y by -1)
/// to draw it upright, as UIKit code does.
@c public func CGContextDrawImage(_ ctx: QZCGContextRef?, _ rect: CGRect, _ image: QZCGImageRef?) {
    guard checkRect(rect, #function) else { return }
    guard let i = object(image, as: Image.self) else { return }
    withContext(ctx, ()) { $0.drawImage(i, in: rect) }
}

/// Fills the clip with copies of `image`, each the size of `rect`, one of
/// them at `rect` (placed as CGContextDrawImage places images).
@c public func CGContextDrawTiledImage(_ ctx: QZCGContextRef?, _ rect: CGRect, _ image: QZCGImageRef?) {
    guard checkRect(rect, #function) else { return }
    guard let i = object(image, as: Image.self) else { return }
    guard rect.width > 0, rect.height > 0 else {
        recordError(QZErrorInvalidArgument, #function, "the tile rectangle is empty")
        return
    }
    withContext(ctx, ()) { $0.drawTiledImage(i, tile: rect) }
}
