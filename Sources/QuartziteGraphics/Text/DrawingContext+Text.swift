import CCairo
import CPango
import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo

// Drawing laid-out text into a CGContext. Text is painted like any other
// operation (through `paint`: alpha, blend mode, shadow and mask clips
// apply); its glyphs are drawn by cairo from the fonts' outlines at the
// device's resolution, so the same layout is sharper at contentsScale 2.
//
// Core Text draws as on Apple platforms: glyphs upright in a y-up user
// space, a line at the text position (transformed by the text matrix), a
// frame's first line at the top (maxY) of its rectangle. In Quartzite's
// y-down contexts that text appears upside down unless the CTM is flipped
// first (translate by the height, scale y by -1), as iOS code does.

extension DrawingContext {
    /// CGContextSetTextPosition: the text matrix's translation.
    public func setTextPosition(_ p: CGPoint) {
        textMatrix.tx = p.x
        textMatrix.ty = p.y
    }

    public var textPosition: CGPoint { CGPoint(x: textMatrix.tx, y: textMatrix.ty) }

    /// Draws `layout` with `placement` mapping its coordinates (points, y
    /// down from its top) to user space. Runs without a colour of their
    /// own take `color`. Callers hold the text lock.
    package func draw(_ layout: TextLayout, placement: CGAffineTransform, alignment: TextAlignment = .natural,
              width: Double = 0, color: SIMD4<Double>, singleLine: Bool = false, lineLimit: Int = Int.max) {
        paint(restoresState: true) { alpha in
            // (The matrix is put back here, cheaper than a cairo_save; paint
            // puts back the source.)
            var saved = cairo_matrix_t()
            cairo_get_matrix(cr, &saved)
            var m = cairoMatrix(placement)
            cairo_transform(cr, &m)
            cairo_new_path(cr)
            // Runs with colours of their own ignore the source: fold the
            // alpha in through a group.
            let grouped = alpha < 1
            if grouped { cairo_push_group(cr) }
            cairo_set_source_rgba(cr, color.x, color.y, color.z, color.w * (grouped ? 1 : alpha))
            var x1 = 0.0, y1 = 0.0, x2 = 0.0, y2 = 0.0
            cairo_clip_extents(cr, &x1, &y1, &x2, &y2)
            if singleLine {
                if let line = pango_layout_get_line_readonly(layout.layout, 0) {
                    cairo_move_to(cr, 0, 0)
                    pango_cairo_show_layout_line(cr, line)
                    TextSystem.shared.statistics.draws &+= 1
                }
            } else {
                layout.draw(cr, alignment: alignment, width: width,
                            visible: CGRect(x: x1, y: y1, width: x2 - x1, height: y2 - y1), lineLimit: lineLimit)
            }
            if grouped {
                cairo_pop_group_to_source(cr)
                cairo_paint_with_alpha(cr, alpha)
            }
            cairo_new_path(cr)
            cairo_set_matrix(cr, &saved)
        }
    }

    /// CTLineDraw: the line's origin at the text position, glyphs through
    /// the text matrix, y up; the text position then moves to the line's end.
    public func draw(_ line: Line) {
        withTextLock {
            let t = textMatrix
            // Layout space (y down) -> glyph space (y up) -> text matrix -> user space.
            let placement = CGAffineTransform(a: t.a, b: t.b, c: -t.c, d: -t.d, tx: t.tx, ty: t.ty)
            draw(line.layout, placement: placement, color: state.fillColorForText, singleLine: true)
            let advance = line.typographicBounds.width
            textMatrix.tx += t.a * advance
            textMatrix.ty += t.b * advance
        }
    }

    /// CTFrameDraw: every line that fits, from the top of the frame's rectangle.
    public func draw(_ frame: TextFrame) {
        withTextLock {
            let r = frame.rect
            let placement = CGAffineTransform(a: 1, b: 0, c: 0, d: -1, tx: r.minX, ty: r.maxY)
            guard frame.visibleLineCount > 0 else { return }
            // Only the lines that fit in the rectangle.
            draw(frame.layout, placement: placement, alignment: .natural, width: r.width,
                 color: state.fillColorForText, lineLimit: frame.visibleLineCount)
        }
    }
}

extension GraphicsState {
    /// The colour of runs that take it from the context
    /// (kCTForegroundColorFromContextAttributeName): the fill colour.
    package var fillColorForText: SIMD4<Double> { fillColor }
}
