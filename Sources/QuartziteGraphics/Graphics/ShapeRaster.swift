import CCairo
import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo

/// CAShapeLayer's shape as pixels, drawn with cairo: the path filled (with
/// its rule), then the part of it between strokeStart and strokeEnd stroked
/// with the line's width, caps, joins, miter limit and dashes. The renderers
/// draw the bitmap as an image operation covering `rect` (layer space).
package enum ShapeRaster {
    package struct Style {
        package var fill: SIMD4<Double>?
        package var evenOdd = false
        package var stroke: SIMD4<Double>?
        package var strokeStart = 0.0
        package var strokeEnd = 1.0
        package var lineWidth = 1.0
        package var miterLimit = 10.0
        /// 0 butt, 1 round, 2 square (CGLineCap's order).
        package var cap: UInt8 = 0
        /// 0 miter, 1 round, 2 bevel (CGLineJoin's order).
        package var join: UInt8 = 0
        package var dashes: [Double]?
        package var dashPhase = 0.0
        package init() {}
    }

    /// How far the stroke may reach beyond the path (half the width, times
    /// the miter limit for miter joins, square caps' diagonal).
    package static func strokeOutset(_ s: Style) -> Double {
        guard s.stroke != nil, s.lineWidth > 0 else { return 0 }
        let half = s.lineWidth / 2
        return half * Swift.max(s.join == 0 ? Swift.max(s.miterLimit, 1) : 1, s.cap == 2 ? 1.5 : 1) + 1
    }

    /// The path in layer space `rect` drawn into a `width` x `height`
    /// bitmap (premultiplied BGRA), or nil when there is nothing to draw.
    package static func render(_ path: Path, style s: Style, rect: CGRect, width: Int, height: Int) -> PixelBuffer? {
        guard rect.width > 0, rect.height > 0 else { return nil }
        return cairoBitmap(width: width, height: height) { cr in
            // Layer space to the bitmap's pixels.
            cairo_scale(cr, Double(width) / rect.width, Double(height) / rect.height)
            cairo_translate(cr, -rect.minX, -rect.minY)
            let data = path.data
            if let f = s.fill, f.w > 0 {
                appendPath(cr, data)
                cairo_set_fill_rule(cr, s.evenOdd ? CAIRO_FILL_RULE_EVEN_ODD : CAIRO_FILL_RULE_WINDING)
                cairo_set_source_rgba(cr, f.x, f.y, f.z, f.w)
                cairo_fill(cr)
            }
            let start = Swift.min(Swift.max(s.strokeStart.isNaN ? 0 : s.strokeStart, 0), 1)
            let end = Swift.min(Swift.max(s.strokeEnd.isNaN ? 1 : s.strokeEnd, 0), 1)
            if let c = s.stroke, c.w > 0, s.lineWidth > 0, s.lineWidth.isFinite, end > start {
                if start <= 0 && end >= 1 {
                    appendPath(cr, data)            // whole: closed subpaths join at their start
                } else {
                    let m = path.measure
                    for run in m.trimmed(from: start * m.length, to: end * m.length) {
                        appendSegments(cr, run)
                    }
                }
                cairo_set_line_width(cr, s.lineWidth)
                cairo_set_miter_limit(cr, Swift.max(s.miterLimit.isFinite ? s.miterLimit : 10, 1))
                cairo_set_line_cap(cr, [CAIRO_LINE_CAP_BUTT, CAIRO_LINE_CAP_ROUND, CAIRO_LINE_CAP_SQUARE][Int(Swift.min(s.cap, 2))])
                cairo_set_line_join(cr, [CAIRO_LINE_JOIN_MITER, CAIRO_LINE_JOIN_ROUND, CAIRO_LINE_JOIN_BEVEL][Int(Swift.min(s.join, 2))])
                if var d = s.dashes {
                    // An odd count repeats (as Core Graphics does); phase as given.
                    if d.count % 2 == 1 { d += d }
                    cairo_set_dash(cr, d, Int32(d.count), s.dashPhase.isFinite ? s.dashPhase : 0)
                }
                cairo_set_source_rgba(cr, c.x, c.y, c.z, c.w)
                withSafeStroke(cr) { cairo_stroke(cr) }
            }
            cairo_new_path(cr)
            return true
        }
    }

    private static func appendPath(_ cr: OpaquePointer, _ data: PathData) {
        data.walk(begin: { p in safeMoveTo(cr, p.x, p.y) }, segment: { s, _ in
            appendSegment(cr, s)
        }, end: { closed in if closed { cairo_close_path(cr) } })
    }

    private static func appendSegments(_ cr: OpaquePointer, _ run: [PathSegment]) {
        guard let first = run.first else { return }
        safeMoveTo(cr, first.start.x, first.start.y)
        for s in run { appendSegment(cr, s) }
    }

    private static func appendSegment(_ cr: OpaquePointer, _ s: PathSegment) {
        switch s {
        case .line(_, let b):
            safeLineTo(cr, b.x, b.y)
        case .quad(let a, let c, let b):
            safeCurveTo(cr, a.x + 2 / 3 * (c.x - a.x), a.y + 2 / 3 * (c.y - a.y),
                        b.x + 2 / 3 * (c.x - b.x), b.y + 2 / 3 * (c.y - b.y), b.x, b.y)
        case .cubic(_, let c1, let c2, let b):
            safeCurveTo(cr, c1.x, c1.y, c2.x, c2.y, b.x, b.y)
        }
    }
}
