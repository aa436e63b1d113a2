import CCairo

// cairo keeps device coordinates in 24.8 fixed point: beyond about ±8
// million pixels they wrap, and parts of cairo (its tessellator, its
// clipper) crash on the wrapped values. Every point the drawing code hands
// to cairo passes through these, which clamp it to ±2^22 device pixels, far
// outside any surface it can draw into; NaN becomes 0. A point inside the
// limit, the common case, goes to cairo unchanged.

package let cairoDeviceLimit = 4_194_304.0

/// `(x, y)` in cairo's user space, moved (if need be) so that its device
/// coordinates are within ±cairoDeviceLimit.
@inline(__always)
package func cairoSafePoint(_ cr: OpaquePointer, _ x: Double, _ y: Double) -> (Double, Double) {
    var dx = x, dy = y
    cairo_user_to_device(cr, &dx, &dy)
    if dx.magnitude <= cairoDeviceLimit && dy.magnitude <= cairoDeviceLimit { return (x, y) }   // (false for NaN)
    return cairoClampedPoint(cr, dx, dy)
}

@inline(never)
package func cairoClampedPoint(_ cr: OpaquePointer, _ deviceX: Double, _ deviceY: Double) -> (Double, Double) {
    var x = deviceX.isNaN ? 0 : min(max(deviceX, -cairoDeviceLimit), cairoDeviceLimit)
    var y = deviceY.isNaN ? 0 : min(max(deviceY, -cairoDeviceLimit), cairoDeviceLimit)
    cairo_device_to_user(cr, &x, &y)
    return (x, y)
}

package func safeMoveTo(_ cr: OpaquePointer, _ x: Double, _ y: Double) {
    let p = cairoSafePoint(cr, x, y)
    cairo_move_to(cr, p.0, p.1)
}

package func safeLineTo(_ cr: OpaquePointer, _ x: Double, _ y: Double) {
    let p = cairoSafePoint(cr, x, y)
    cairo_line_to(cr, p.0, p.1)
}

package func safeCurveTo(_ cr: OpaquePointer, _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, _ x3: Double, _ y3: Double) {
    let a = cairoSafePoint(cr, x1, y1), b = cairoSafePoint(cr, x2, y2), c = cairoSafePoint(cr, x3, y3)
    cairo_curve_to(cr, a.0, a.1, b.0, b.1, c.0, c.1)
}

/// cairo_rectangle's closed subpath (x, y, width, height in user space).
package func safeRectangle(_ cr: OpaquePointer, _ x: Double, _ y: Double, _ width: Double, _ height: Double) {
    safeMoveTo(cr, x, y)
    safeLineTo(cr, x + width, y)
    safeLineTo(cr, x + width, y + height)
    safeLineTo(cr, x, y + height)
    cairo_close_path(cr)
}

/// cairo_arc, for a centre and radius that keep it within the limit
/// (otherwise the circle's bounding square, clamped).
package func safeArc(_ cr: OpaquePointer, _ x: Double, _ y: Double, _ radius: Double, _ angle1: Double, _ angle2: Double) {
    var x1 = x - radius, y1 = y - radius, x2 = x + radius, y2 = y + radius
    cairo_user_to_device(cr, &x1, &y1)
    cairo_user_to_device(cr, &x2, &y2)
    let inside = [x1, y1, x2, y2].allSatisfy { $0.magnitude <= cairoDeviceLimit }
    if inside {
        cairo_arc(cr, x, y, radius, angle1, angle2)
    } else {
        safeRectangle(cr, x - radius, y - radius, 2 * radius, 2 * radius)
    }
}

// cairo strokes with a pen polygon whose vertex count grows with the square
// root of the line's device width over the tolerance: a width of 10^15
// device pixels never finishes. Strokes wider than 10^5 device pixels get a
// tolerance proportional to their width (at most 256 pen vertices) and a
// width capped just short of twice the coordinate limit, which already
// covers every point cairo is handed. (Short of it: a point at the limit
// plus half of twice the limit is 2^23 pixels, which cairo's fixed point
// wraps to its most negative value, and cairo_stroke_extents then crashed.)

/// Runs `body` (a cairo stroke, its extents or a hit test) with the line
/// width and tolerance made safe for cairo; the common case runs it as is.
@inline(__always)
func withSafeStroke<R>(_ cr: OpaquePointer, _ body: () -> R) -> R {
    var ux = 1.0, uy = 0.0, vx = 0.0, vy = 1.0
    cairo_user_to_device_distance(cr, &ux, &uy)
    cairo_user_to_device_distance(cr, &vx, &vy)
    let scale = max((ux * ux + uy * uy).squareRoot(), (vx * vx + vy * vy).squareRoot())
    let width = cairo_get_line_width(cr)
    let device = width * scale
    if cairo_get_dash_count(cr) > 0 && dashesWouldNotFinish(cr) {
        // Drawn undashed (see dashesWouldNotFinish).
        cairo_save(cr)
        defer { cairo_restore(cr) }
        cairo_set_dash(cr, nil, 0, 0)
        return device <= 100_000 ? body() : withWideStroke(cr, width: width, scale: scale, body)
    }
    if device <= 100_000 { return body() }   // (false for NaN)
    return withWideStroke(cr, width: width, scale: scale, body)
}

/// Dashes per stroke beyond which a stroke is drawn undashed.
package let maxDashesPerStroke = 100_000.0

/// cairo steps through dashes by each device segment's length in user space.
/// Under an extreme CTM (a shear of 2^53, say) the segments that clamping
/// laid along the coordinate limit map back to astronomical user lengths,
/// and the dash count with them: cairo would never finish. True when the
/// current path (flattened, in user space) holds more than
/// maxDashesPerStroke periods of the dash pattern.
@inline(never)
func dashesWouldNotFinish(_ cr: OpaquePointer) -> Bool {
    let n = Int(cairo_get_dash_count(cr))
    var dashes = [Double](repeating: 0, count: n)
    var offset = 0.0
    dashes.withUnsafeMutableBufferPointer { cairo_get_dash(cr, $0.baseAddress, &offset) }
    let period = dashes.reduce(0, +) * (n % 2 == 1 ? 2 : 1)
    guard period > 0, period.isFinite else { return true }
    guard let path = cairo_copy_path_flat(cr) else { return false }
    defer { cairo_path_destroy(path) }
    guard path.pointee.status == CAIRO_STATUS_SUCCESS, let data = path.pointee.data else { return false }
    var length = 0.0
    var last = (0.0, 0.0), start = (0.0, 0.0)
    var i = 0
    let count = Int(path.pointee.num_data)
    while i < count {
        let header = data[i].header
        let points = Int(header.length)
        if points <= 0 { break }
        switch header.type {
        case CAIRO_PATH_MOVE_TO where points > 1:
            last = (data[i + 1].point.x, data[i + 1].point.y); start = last
        case CAIRO_PATH_LINE_TO where points > 1:
            let p = (data[i + 1].point.x, data[i + 1].point.y)
            length += ((p.0 - last.0) * (p.0 - last.0) + (p.1 - last.1) * (p.1 - last.1)).squareRoot()
            last = p
        case CAIRO_PATH_CLOSE_PATH:
            length += ((start.0 - last.0) * (start.0 - last.0) + (start.1 - last.1) * (start.1 - last.1)).squareRoot()
            last = start
        default: break
        }
        if !(length / period <= maxDashesPerStroke) { return true }   // (true for NaN and infinity)
        i += points
    }
    return false
}

@inline(never)
func withWideStroke<R>(_ cr: OpaquePointer, width: Double, scale: Double, _ body: () -> R) -> R {
    cairo_save(cr)
    defer { cairo_restore(cr) }
    let cap = 2 * cairoDeviceLimit - 16
    var device = width * scale
    if !(device <= cap) && scale > 0 && scale.isFinite {
        cairo_set_line_width(cr, cap / scale)
        device = cap
    }
    if device.isFinite {
        // At most 256 pen vertices: the pen's chord error at that count.
        cairo_set_tolerance(cr, max(cairo_get_tolerance(cr), device / 2 * 7.6e-5))
    }
    return body()
}
