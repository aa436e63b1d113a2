import CCairo
import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import Glibc

/// CAGradientLayer's gradient as pixels: what the renderers draw for a
/// gradient layer (the draw list carries it as an image operation).
/// Axial and radial gradients are cairo's linear and radial patterns (an
/// ellipse is the unit circle under a scaling pattern matrix); cairo has no
/// conic pattern, so a conic gradient is evaluated per pixel here and
/// painted through cairo like the others. The paint is clipped to the
/// rounded bounds (cornerRadius), as a gradient layer's gradient is.
package enum LayerGradientRaster {
    package enum Kind: UInt8 { case axial = 0, radial = 1, conic = 2 }

    /// Colours (straight sRGBA) at locations in 0...1, non-decreasing.
    package typealias Stop = (location: Double, rgba: SIMD4<Double>)

    /// The gradient of unit-square points `start` and `end` over a
    /// `width` x `height` pixel bitmap, premultiplied BGRA; nil when the size
    /// is empty or too large, or cairo fails.
    package static func render(stops: [Stop], kind: Kind, start: CGPoint, end: CGPoint, width: Int, height: Int,
                               cornerRadius: Double) -> PixelBuffer? {
        guard !stops.isEmpty else { return nil }
        return cairoBitmap(width: width, height: height) { cr in
            let w = Double(width), h = Double(height)
            // The rounded bounds.
            let r = Swift.max(0, Swift.min(cornerRadius.isFinite ? cornerRadius : 0, w / 2, h / 2))
            if r > 0 {
                cairo_new_sub_path(cr)
                cairo_arc(cr, w - r, r, r, -Double.pi / 2, 0)
                cairo_arc(cr, w - r, h - r, r, 0, Double.pi / 2)
                cairo_arc(cr, r, h - r, r, Double.pi / 2, Double.pi)
                cairo_arc(cr, r, r, r, Double.pi, 3 * Double.pi / 2)
                cairo_close_path(cr)
            } else {
                cairo_rectangle(cr, 0, 0, w, h)
            }
            let sx = start.x * w, sy = start.y * h, ex = end.x * w, ey = end.y * h
            var conicSurface: OpaquePointer?
            defer { if let conicSurface { cairo_surface_destroy(conicSurface) } }
            let pattern: OpaquePointer
            switch kind {
            case .axial:
                if sx == ex && sy == ey {
                    // No direction: the last colour (what the padded gradient shows on both sides).
                    pattern = cairo_pattern_create_rgba(stops[stops.count - 1].rgba.x, stops[stops.count - 1].rgba.y,
                                                        stops[stops.count - 1].rgba.z, stops[stops.count - 1].rgba.w)!
                } else {
                    pattern = cairo_pattern_create_linear(sx, sy, ex, ey)!
                    addStops(stops, to: pattern)
                }
            case .radial:
                let rx = abs(ex - sx), ry = abs(ey - sy)
                if rx <= 0 || ry <= 0 {
                    pattern = cairo_pattern_create_rgba(stops[stops.count - 1].rgba.x, stops[stops.count - 1].rgba.y,
                                                        stops[stops.count - 1].rgba.z, stops[stops.count - 1].rgba.w)!
                } else {
                    pattern = cairo_pattern_create_radial(0, 0, 0, 0, 0, 1)!
                    addStops(stops, to: pattern)
                    // Pattern space is the unit circle; user space the ellipse.
                    var m = cairo_matrix_t()
                    cairo_matrix_init(&m, 1 / rx, 0, 0, 1 / ry, -sx / rx, -sy / ry)
                    cairo_pattern_set_matrix(pattern, &m)
                }
            case .conic:
                guard let s = conicPixels(stops: stops, cx: sx, cy: sy, ex: ex, ey: ey, width: width, height: height) else {
                    return false
                }
                conicSurface = s
                pattern = cairo_pattern_create_for_surface(s)!
            }
            defer { cairo_pattern_destroy(pattern) }
            cairo_pattern_set_extend(pattern, CAIRO_EXTEND_PAD)
            cairo_set_source(cr, pattern)
            cairo_fill(cr)
            return true
        }
    }

    private static func addStops(_ stops: [Stop], to pattern: OpaquePointer) {
        for s in stops { cairo_pattern_add_color_stop_rgba(pattern, s.location, s.rgba.x, s.rgba.y, s.rgba.z, s.rgba.w) }
    }

    /// The colour at `t` in 0...1 (straight colour, interpolated linearly
    /// between the stops around it; padded beyond the first and last).
    package static func color(at t: Double, _ stops: [Stop]) -> SIMD4<Double> {
        if t <= stops[0].location { return stops[0].rgba }
        for i in 1..<stops.count where t <= stops[i].location {
            let a = stops[i - 1], b = stops[i]
            let span = b.location - a.location
            let f = span > 0 ? (t - a.location) / span : 1
            return a.rgba + (b.rgba - a.rgba) * f
        }
        return stops[stops.count - 1].rgba
    }

    /// A conic gradient around (cx, cy) whose first colour points at (ex,
    /// ey), sweeping clockwise on screen (y grows downwards), at pixel centres.
    private static func conicPixels(stops: [Stop], cx: Double, cy: Double, ex: Double, ey: Double,
                                    width: Int, height: Int) -> OpaquePointer? {
        let s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height))!
        guard cairo_surface_status(s) == CAIRO_STATUS_SUCCESS, let data = cairo_image_surface_get_data(s) else {
            cairo_surface_destroy(s)
            return nil
        }
        let stride = Int(cairo_image_surface_get_stride(s))
        let a0 = (ex == cx && ey == cy) ? 0 : atan2(ey - cy, ex - cx)
        for y in 0..<height {
            let row = UnsafeMutableRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
            let py = Double(y) + 0.5 - cy
            for x in 0..<width {
                var a = atan2(py, Double(x) + 0.5 - cx) - a0
                a = a.truncatingRemainder(dividingBy: 2 * Double.pi)
                if a < 0 { a += 2 * Double.pi }
                let c = color(at: a / (2 * Double.pi), stops)
                let alpha = Swift.min(Swift.max(c.w, 0), 1)
                func channel(_ v: Double) -> UInt32 { UInt32((Swift.min(Swift.max(v, 0), 1) * alpha * 255).rounded()) }
                row[x] = UInt32((alpha * 255).rounded()) << 24 | channel(c.x) << 16 | channel(c.y) << 8 | channel(c.z)
            }
        }
        cairo_surface_mark_dirty(s)
        return s
    }
}
