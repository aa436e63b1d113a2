import CCairo
import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo

// Apple's CGContext over pixels, drawn by cairo. A context draws into a
// pixel buffer: a CVPixelBuffer (QZBitmapContextCreateWithPixelBuffer), the
// memory of CGBitmapContextCreate, or a layer's backing store (the display
// cycle). cairo's CAIRO_FORMAT_ARGB32 image surfaces are premultiplied BGRA
// in memory on little-endian machines, the bytes of kCVPixelFormatType_32BGRA,
// so such buffers are drawn into in place; a buffer of another chunky RGB
// format is drawn through a BGRA copy written back after every operation.
//
// cairo keeps what it shares with Core Graphics in its own graphics state
// (CTM, clip, line width, cap, join, miter limit, dash, antialiasing,
// tolerance); Core Graphics' other state (fill and stroke colours, alpha,
// blend mode, shadow, interpolation quality, mask clips) is kept here and
// saved and restored alongside it. The current path is kept here too, in
// device space (points are transformed by the CTM when they are added, as
// Core Graphics does), built by the same code as CGPath, and handed to cairo
// when something is painted or clipped with it.

/// Why a drawing call did nothing (the export layer records it).
public enum GraphicsError: Error, Equatable {
    case noCurrentPoint
    case notFinite(String)
    case invalidArgument(String)
    case invalidState(String)
    case outOfMemory(String)
}

/// A shadow (CGContextSetShadowWithColor): offset and blur in the context's
/// base space, colour as straight RGBA.
package struct ContextShadow {
    package var offset: CGSize
    package var blur: Double
    package var color: SIMD4<Double>
}

/// A clip made from an image or a stroked path (CGContextClipToMask): an
/// A8 surface the size of the device, in device pixels. Shared between saved
/// states (immutable once made).
package final class ClipMask {
    package let surface: OpaquePointer
    package init(surface: OpaquePointer) { self.surface = surface }
    deinit { cairo_surface_destroy(surface) }
}

/// Core Graphics state that cairo does not keep.
package struct GraphicsState {
    package var ctm = CGAffineTransform.identity
    /// Straight (unpremultiplied) RGBA.
    package var fillColor = SIMD4<Double>(0, 0, 0, 1)
    package var strokeColor = SIMD4<Double>(0, 0, 0, 1)
    package var fillSpace = ColorSpace.Model.rgb
    package var strokeSpace = ColorSpace.Model.rgb
    package var alpha = 1.0
    package var blendMode = BlendMode.normal
    package var shadow: ContextShadow?
    package var interpolationQuality = InterpolationQuality.default
    package var shouldAntialias = true
    package var clipMask: ClipMask?
}

/// The stroke parameters captured by CGContextReplacePathWithStrokedPath.
package struct StrokeStyle {
    package var width: Double
    package var cap: cairo_line_cap_t
    package var join: cairo_line_join_t
    package var miterLimit: Double
    package var dashes: [Double]
    package var phase: Double
    /// The CTM the outline was made under (the pen's shape).
    package var ctm: CGAffineTransform
}

/// An open transparency layer (CGContextBeginTransparencyLayer): the state
/// it composites with at its end, and how many saved states it began above.
package struct TransparencyLayer {
    package let state: GraphicsState
    package let savedDepth: Int
    package let clippedToRect: Bool
}

public final class DrawingContext: QZObject, Handle {
    /// The pixels drawn into (retained).
    public let target: PixelBuffer
    /// The BGRA buffer cairo draws into when `target` is of another format.
    package let converted: PixelBuffer?
    package let surface: OpaquePointer
    package let cr: OpaquePointer
    public let width: Int
    public let height: Int
    /// The CTM the context started with: user space of the base space
    /// (shadow offsets and blur are measured there).
    package let baseCTM: CGAffineTransform
    package var state = GraphicsState()
    package var savedStates: [GraphicsState] = []
    package var layers: [TransparencyLayer] = []
    /// The current path, in device space.
    package var path = PathData()
    /// Set by CGContextReplacePathWithStrokedPath: `path` stands for the
    /// outline of its stroke with these parameters.
    package var strokedOutline: StrokeStyle?
    /// CGContextSetAllowsAntialiasing (not part of the graphics state).
    package var allowsAntialiasing = true
    /// CGContextSetTextMatrix / SetTextPosition (not part of the graphics
    /// state, as in Core Graphics): glyph space to user space, y up.
    package var textMatrix = CGAffineTransform.identity
    /// A context only one thread ever sees (a CATiledLayer tile being drawn
    /// on a worker): its calls skip the model lock, so that tiles draw in
    /// parallel. (Set before its handle is given out.)
    package var drawnByOneThread = false

    @inlinable package static var handleKind: ObjectKind { .context }
    @inlinable package static func accepts(_ tag: UInt32) -> Bool { tag == tagMagic | UInt32(ObjectKind.context.rawValue) }

    /// A context drawing into `pb`, whose user space maps to pixels through
    /// `baseCTM`. Throws for formats cairo cannot draw (through a copy or
    /// not) and when cairo cannot make its surface.
    public init(target pb: PixelBuffer, baseCTM: CGAffineTransform = .identity) throws(GraphicsError) {
        target = pb
        width = pb.width
        height = pb.height
        self.baseCTM = baseCTM
        var drawn = pb
        var copy: PixelBuffer? = nil
        let direct = pb.pixelFormat == UInt32(kCVPixelFormatType_32BGRA) && !pb.isPlanar && pb.baseAddress != nil
            && pb.bytesPerRow % 4 == 0 && pb.bytesPerRow >= pb.width * 4 && pb.bytesPerRow <= Int(Int32.max)
        if !direct {
            do {
                let c = try PixelBuffer.create(width: pb.width, height: pb.height,
                                               pixelFormat: UInt32(kCVPixelFormatType_32BGRA), attributes: nil)
                try pb.convert(to: c)
                copy = c
                drawn = c
            } catch {
                throw .invalidArgument("pixel format '\(fourCharCodeString(pb.pixelFormat))' cannot be drawn into (\(error.message))")
            }
        }
        converted = copy
        guard let base = drawn.baseAddress else { throw .invalidArgument("the pixel buffer has no pixels") }
        let s = cairo_image_surface_create_for_data(base.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_ARGB32,
                                                    Int32(drawn.width), Int32(drawn.height), Int32(drawn.bytesPerRow))!
        guard cairo_surface_status(s) == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(s)
            throw .outOfMemory("cairo could not make a surface of \(pb.width) x \(pb.height) pixels")
        }
        let c = cairo_create(s)!
        guard cairo_status(c) == CAIRO_STATUS_SUCCESS else {
            cairo_destroy(c)
            cairo_surface_destroy(s)
            throw .outOfMemory("cairo could not make a context")
        }
        surface = s
        cr = c
        super.init(kind: .context)
        state.ctm = baseCTM
        syncMatrix()
    }

    deinit {
        cairo_destroy(cr)
        cairo_surface_destroy(surface)
    }

    // MARK: - Pixels

    /// After cairo drew: a BGRA copy goes back to the target, and the
    /// target's seed moves (caches of its pixels are stale).
    package func didDraw() {
        cairo_surface_flush(surface)
        if let converted { try? converted.convert(to: target) }
        target.pixelsChanged()
    }

    /// The BGRA pixels cairo draws into (the target or its copy).
    package var drawnBuffer: PixelBuffer { converted ?? target }

    // MARK: - Graphics state

    /// CGContextSaveGState.
    public func saveState() throws(GraphicsError) {
        guard savedStates.count < 4096 else { throw .invalidState("too many saved states") }
        savedStates.append(state)
        cairo_save(cr)
    }

    /// CGContextRestoreGState.
    public func restoreState() throws(GraphicsError) {
        guard !savedStates.isEmpty else { throw .invalidState("no saved graphics state") }
        if let layer = layers.last, savedStates.count <= layer.savedDepth {
            throw .invalidState("the state was saved outside the open transparency layer (end the layer first)")
        }
        state = savedStates.removeLast()
        cairo_restore(cr)
    }

    /// True when the CTM can draw (a singular one draws nothing: cairo
    /// refuses non-invertible matrices).
    package var ctmIsInvertible: Bool {
        let t = state.ctm
        let det = t.a * t.d - t.b * t.c
        return det != 0 && det.isFinite && t.tx.isFinite && t.ty.isFinite
    }

    /// Hands the CTM to cairo (kept at the last invertible one otherwise).
    package func syncMatrix() {
        guard ctmIsInvertible else { return }
        var m = cairoMatrix(state.ctm)
        cairo_set_matrix(cr, &m)
    }

    /// CGContextConcatCTM: `t` applies before the current transformation.
    public func concatenate(_ t: CGAffineTransform) {
        state.ctm = t.concatenating(state.ctm)
        syncMatrix()
    }

    /// Replaces the CTM (for the display cycle and tests).
    public func setCTM(_ t: CGAffineTransform) {
        state.ctm = t
        syncMatrix()
    }

    public var ctm: CGAffineTransform { state.ctm }

    /// CGContextGetClipBoundingBox: the clip's bounds in user space.
    public var clipBoundingBox: CGRect {
        guard ctmIsInvertible else { return .null }
        var x1 = 0.0, y1 = 0.0, x2 = 0.0, y2 = 0.0
        cairo_clip_extents(cr, &x1, &y1, &x2, &y2)
        if x2 <= x1 || y2 <= y1 { return .null }
        return CGRect(x: x1, y: y1, width: x2 - x1, height: y2 - y1)
    }

    /// Clips to `r` in device pixels (the display cycle's dirty area).
    package func clipToDeviceRect(_ r: CGRect) {
        cairo_save(cr)
        cairo_identity_matrix(cr)
        cairo_new_path(cr)
        safeRectangle(cr, r.minX, r.minY, r.width, r.height)
        cairo_restore(cr)
        // (The path survives the restore: clip with the context's own matrix.)
        cairo_clip(cr)
    }

    /// Clears the pixels inside the clip to transparent black (the display
    /// cycle, before a non-opaque layer redraws its dirty area), or fills
    /// them with `color` (premultiplied BGRA order irrelevant: RGBA given).
    package func clearClip(to color: SIMD4<Double>? = nil) {
        cairo_save(cr)
        if let color {
            cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE)
            cairo_set_source_rgba(cr, color.x, color.y, color.z, color.w)
        } else {
            cairo_set_operator(cr, CAIRO_OPERATOR_CLEAR)
        }
        cairo_paint(cr)
        cairo_restore(cr)
        didDraw()
    }
}

@inline(__always)
package func cairoMatrix(_ t: CGAffineTransform) -> cairo_matrix_t {
    cairo_matrix_t(xx: t.a, yx: t.b, xy: t.c, yy: t.d, x0: t.tx, y0: t.ty)
}
