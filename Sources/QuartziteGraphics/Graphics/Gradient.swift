import CCairo
import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo

/// Apple's CGGradientRef: colours at locations in 0...1, drawn by cairo's
/// linear and radial patterns.
public final class Gradient: QZObject, Handle {
    /// Sorted by location; colours straight RGBA.
    public let stops: [(location: Double, color: SIMD4<Double>)]

    @inlinable package static var handleKind: ObjectKind { .gradient }
    @inlinable package static func accepts(_ tag: UInt32) -> Bool { tag == tagMagic | UInt32(ObjectKind.gradient.rawValue) }

    /// `locations` nil spaces the colours evenly from 0 to 1. Locations are
    /// clamped to 0...1 and sorted (stably).
    public init(colors: [SIMD4<Double>], locations: [Double]?) {
        let n = colors.count
        var list: [(Double, SIMD4<Double>)] = []
        for i in 0..<n {
            let l = locations.map { $0[i] } ?? (n == 1 ? 0 : Double(i) / Double(n - 1))
            list.append((Swift.min(Swift.max(l, 0), 1), colors[i]))
        }
        stops = list.enumerated().sorted { a, b in a.element.0 < b.element.0 || (a.element.0 == b.element.0 && a.offset < b.offset) }
            .map { (location: $0.element.0, color: $0.element.1) }
        super.init(kind: .gradient)
    }

    package func addStops(to pattern: OpaquePointer) {
        for s in stops {
            cairo_pattern_add_color_stop_rgba(pattern, s.location, s.color.x, s.color.y, s.color.z, s.color.w)
        }
    }
}

/// Apple's CGGradientDrawingOptions.
public struct GradientDrawingOptions: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let drawsBeforeStartLocation = GradientDrawingOptions(rawValue: 1)
    public static let drawsAfterEndLocation = GradientDrawingOptions(rawValue: 2)
}

extension DrawingContext {
    /// A length past everything the clip can show, in user space (for the
    /// half-planes that limit an unextended gradient).
    private func farDistance(from p: CGPoint) -> Double {
        var x1 = 0.0, y1 = 0.0, x2 = 0.0, y2 = 0.0
        cairo_clip_extents(cr, &x1, &y1, &x2, &y2)
        var d = 1.0
        for (x, y) in [(x1, y1), (x2, y1), (x1, y2), (x2, y2)] {
            d = Swift.max(d, ((x - p.x) * (x - p.x) + (y - p.y) * (y - p.y)).squareRoot())
        }
        return d * 2 + 1
    }

    /// CGContextDrawLinearGradient: fills the clip with the gradient from
    /// `start` to `end` (user space); beyond them only where the options say.
    public func drawLinearGradient(_ g: Gradient, start: CGPoint, end: CGPoint, options: GradientDrawingOptions) {
        guard ctmIsInvertible, !g.stops.isEmpty else { return }
        let dx = end.x - start.x, dy = end.y - start.y
        let length = (dx * dx + dy * dy).squareRoot()
        guard length > 0, length.isFinite else { return }
        let pattern = cairo_pattern_create_linear(start.x, start.y, end.x, end.y)!
        defer { cairo_pattern_destroy(pattern) }
        g.addStops(to: pattern)
        cairo_pattern_set_extend(pattern, CAIRO_EXTEND_PAD)
        // The band the gradient may paint: between the perpendiculars at
        // start and end, opened on the sides the options extend.
        let far = farDistance(from: start) + length
        let ux = dx / length, uy = dy / length   // along
        let nx = -uy, ny = ux                  // across
        let a0 = options.contains(.drawsBeforeStartLocation) ? -far : 0
        let a1 = options.contains(.drawsAfterEndLocation) ? length + far : length
        let band = { [cr] in
            cairo_new_path(cr)
            safeMoveTo(cr, start.x + ux * a0 + nx * far, start.y + uy * a0 + ny * far)
            safeLineTo(cr, start.x + ux * a1 + nx * far, start.y + uy * a1 + ny * far)
            safeLineTo(cr, start.x + ux * a1 - nx * far, start.y + uy * a1 - ny * far)
            safeLineTo(cr, start.x + ux * a0 - nx * far, start.y + uy * a0 - ny * far)
            cairo_close_path(cr)
        }
        paint { a in
            band()
            cairo_set_fill_rule(cr, CAIRO_FILL_RULE_WINDING)
            cairo_set_source(cr, pattern)
            cairo_clip(cr)
            cairo_paint_with_alpha(cr, a)
        }
    }

    /// CGContextDrawRadialGradient: the gradient between the circles
    /// (startCenter, startRadius) and (endCenter, endRadius). Without
    /// options only the cone between them is painted; drawsBeforeStart adds
    /// the start colour inside the start circle, drawsAfterEnd the end colour
    /// outside the end circle (exact for nested circles, the usual case).
    public func drawRadialGradient(_ g: Gradient, startCenter: CGPoint, startRadius: Double, endCenter: CGPoint,
                                   endRadius: Double, options: GradientDrawingOptions) {
        guard ctmIsInvertible, !g.stops.isEmpty else { return }
        let pattern = cairo_pattern_create_radial(startCenter.x, startCenter.y, startRadius, endCenter.x, endCenter.y, endRadius)!
        defer { cairo_pattern_destroy(pattern) }
        g.addStops(to: pattern)
        let before = options.contains(.drawsBeforeStartLocation), after = options.contains(.drawsAfterEndLocation)
        cairo_pattern_set_extend(pattern, before || after ? CAIRO_EXTEND_PAD : CAIRO_EXTEND_NONE)
        let far = farDistance(from: endCenter) + farDistance(from: startCenter)
        paint { a in
            cairo_set_source(cr, pattern)
            if before != after {
                cairo_new_path(cr)
                if before {
                    // Everything up to the end circle.
                    safeArc(cr, endCenter.x, endCenter.y, endRadius, 0, 2 * Double.pi)
                    cairo_set_fill_rule(cr, CAIRO_FILL_RULE_WINDING)
                } else {
                    // Everything outside the start circle.
                    safeRectangle(cr, startCenter.x - far, startCenter.y - far, 2 * far, 2 * far)
                    cairo_new_sub_path(cr)
                    safeArc(cr, startCenter.x, startCenter.y, startRadius, 0, 2 * Double.pi)
                    cairo_set_fill_rule(cr, CAIRO_FILL_RULE_EVEN_ODD)
                }
                cairo_clip(cr)
            }
            cairo_paint_with_alpha(cr, a)
        }
    }

    // MARK: - Images

    /// A pattern showing `image` in `rect` (user space) as Core Graphics
    /// does: the image's first row along the rectangle's maxY edge, which is
    /// its bottom edge in a y-down context (so images drawn without flipping
    /// the CTM appear upside down there, exactly as in UIKit's contexts).
    package func imagePattern(_ image: Image, in rect: CGRect) -> OpaquePointer? {
        let r = rect.standardized
        guard r.width > 0, r.height > 0, r.width.isFinite, r.height.isFinite, let surface = image.surface else { return nil }
        let pattern = cairo_pattern_create_for_surface(surface)!
        let sx = Double(image.width) / r.width, sy = Double(image.height) / r.height
        var m = cairo_matrix_t(xx: sx, yx: 0, xy: 0, yy: -sy, x0: -r.minX * sx, y0: r.maxY * sy)
        cairo_pattern_set_matrix(pattern, &m)
        let filter = image.shouldInterpolate ? state.interpolationQuality.cairoFilter : CAIRO_FILTER_NEAREST
        cairo_pattern_set_filter(pattern, filter)
        return pattern
    }

    /// CGContextDrawImage.
    public func drawImage(_ image: Image, in rect: CGRect) {
        guard ctmIsInvertible, let pattern = imagePattern(image, in: rect) else { return }
        defer { cairo_pattern_destroy(pattern) }
        cairo_pattern_set_extend(pattern, CAIRO_EXTEND_PAD)
        let r = rect.standardized
        cairo_new_path(cr)
        safeRectangle(cr, r.minX, r.minY, r.width, r.height)
        paint(clipShape: { cairo_clip_preserve(self.cr) }) { a in
            cairo_set_source(cr, pattern)
            cairo_clip(cr)
            cairo_paint_with_alpha(cr, a)
        }
        cairo_new_path(cr)
    }

    /// CGContextDrawTiledImage: the image repeated over the clip, each tile
    /// the size of `rect`, one of them at `rect`.
    public func drawTiledImage(_ image: Image, tile rect: CGRect) {
        guard ctmIsInvertible, let pattern = imagePattern(image, in: rect) else { return }
        defer { cairo_pattern_destroy(pattern) }
        cairo_pattern_set_extend(pattern, CAIRO_EXTEND_REPEAT)
        paint { a in
            cairo_set_source(cr, pattern)
            cairo_paint_with_alpha(cr, a)
        }
    }

    /// CGContextClipToMask: intersects the clip with `rect` and with the
    /// mask the image makes there (placed as CGContextDrawImage places
    /// images). The mask is the image's alpha, or for an image without
    /// alpha its gray level (white lets everything through).
    public func clip(toMask image: Image, in rect: CGRect) {
        guard ctmIsInvertible else { return }
        let r = rect.standardized
        guard r.width > 0, r.height > 0 else {
            clip(to: [CGRect(x: 0, y: 0, width: 0, height: 0)])
            return
        }
        // The image's coverage as an A8 surface.
        let w = image.width, h = image.height
        let a8 = cairo_image_surface_create(CAIRO_FORMAT_A8, Int32(w), Int32(h))!
        defer { cairo_surface_destroy(a8) }
        guard cairo_surface_status(a8) == CAIRO_STATUS_SUCCESS, let m = cairo_image_surface_get_data(a8) else {
            // (An image too large for cairo: clip everything away rather than draw unclipped.)
            clip(to: [CGRect(x: 0, y: 0, width: 0, height: 0)])
            return
        }
        let stride = Int(cairo_image_surface_get_stride(a8))
        let useAlpha = !image.isOpaque
        for y in 0..<h {
            let src = image.pixels.row(0, y)
            for x in 0..<w {
                let p = src.load(fromByteOffset: 4 * x, as: UInt32.self)
                if useAlpha {
                    m[y * stride + x] = UInt8(p >> 24)
                } else {
                    let b = Double(p & 0xFF), g = Double((p >> 8) & 0xFF), rr = Double((p >> 16) & 0xFF)
                    m[y * stride + x] = UInt8(Swift.min(255, (0.299 * rr + 0.587 * g + 0.114 * b).rounded()))
                }
            }
        }
        cairo_surface_mark_dirty(a8)
        let ctm = state.ctm
        let sx = Double(w) / r.width, sy = Double(h) / r.height
        let filter = state.interpolationQuality.cairoFilter
        intersectClipMask { mcr in
            var t = cairoMatrix(ctm)
            cairo_set_matrix(mcr, &t)
            let pattern = cairo_pattern_create_for_surface(a8)!
            var pm = cairo_matrix_t(xx: sx, yx: 0, xy: 0, yy: -sy, x0: -r.minX * sx, y0: r.maxY * sy)
            cairo_pattern_set_matrix(pattern, &pm)
            cairo_pattern_set_extend(pattern, CAIRO_EXTEND_PAD)
            cairo_pattern_set_filter(pattern, filter)
            cairo_new_path(mcr)
            safeRectangle(mcr, r.minX, r.minY, r.width, r.height)
            cairo_clip(mcr)
            cairo_mask(mcr, pattern)
            cairo_pattern_destroy(pattern)
        }
        clip(to: [r])
    }
}
