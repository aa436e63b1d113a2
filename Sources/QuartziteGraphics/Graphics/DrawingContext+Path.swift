import CCairo
import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo

// The context's current path (CGContextBeginPath ... CGContextClosePath):
// built by CGPath's own code (PathData) with each point transformed by the
// CTM of the moment, so a path is where it was drawn even if the CTM changes
// before it is painted, as in Core Graphics. Painting and clipping consume it.

extension DrawingContext {
    /// Runs a PathData change on the current path (a stroked outline made
    /// by ReplacePathWithStrokedPath is forgotten by any change).
    /// (PathData's changes are all or nothing: the path is changed in place.)
    package func changePath(_ body: (inout PathData, CGAffineTransform) throws(PathError) -> Void) throws(GraphicsError) {
        do throws(PathError) {
            try body(&path, state.ctm)
        } catch {
            throw GraphicsError(error)
        }
        strokedOutline = nil
    }

    public func beginPath() {
        path = PathData()
        strokedOutline = nil
    }

    public func move(to p: CGPoint) throws(GraphicsError) {
        try changePath { (d, t) throws(PathError) in try d.append([.moveTo(p)], transform: t) }
    }

    public func addLine(to p: CGPoint) throws(GraphicsError) {
        try changePath { (d, t) throws(PathError) in try d.append([.lineTo(p)], transform: t) }
    }

    public func addCurve(to p: CGPoint, control1: CGPoint, control2: CGPoint) throws(GraphicsError) {
        try changePath { (d, t) throws(PathError) in try d.append([.curveTo(control1, control2, p)], transform: t) }
    }

    public func addQuadCurve(to p: CGPoint, control: CGPoint) throws(GraphicsError) {
        try changePath { (d, t) throws(PathError) in try d.append([.quadCurveTo(control, p)], transform: t) }
    }

    public func closePath() {
        try? changePath { (d, _) throws(PathError) in try d.append([.closeSubpath]) }
    }

    public func addRect(_ r: CGRect) throws(GraphicsError) {
        try changePath { (d, t) throws(PathError) in try d.addRect(r, transform: t) }
    }

    public func addEllipse(in r: CGRect) throws(GraphicsError) {
        try changePath { (d, t) throws(PathError) in try d.addEllipse(in: r, transform: t) }
    }

    public func addArc(center: CGPoint, radius: Double, startAngle: Double, endAngle: Double, clockwise: Bool) throws(GraphicsError) {
        try changePath { (d, t) throws(PathError) in
            try d.addArc(center: center, radius: radius, startAngle: startAngle, endAngle: endAngle, clockwise: clockwise, transform: t)
        }
    }

    public func addArc(tangent1End p1: CGPoint, tangent2End p2: CGPoint, radius: Double) throws(GraphicsError) {
        try changePath { (d, t) throws(PathError) in try d.addArc(tangent1End: p1, tangent2End: p2, radius: radius, transform: t) }
    }

    public func addLines(_ points: [CGPoint]) throws(GraphicsError) {
        guard let first = points.first else { return }
        var elements: [PathElement] = [.moveTo(first)]
        for p in points.dropFirst() { elements.append(.lineTo(p)) }
        try changePath { (d, t) throws(PathError) in try d.append(elements, transform: t) }
    }

    /// CGContextAddPath: `other` (user space) transformed by the CTM.
    public func addPath(_ other: PathData) throws(GraphicsError) {
        try changePath { (d, t) throws(PathError) in try d.append(contentsOf: other, transform: t) }
    }

    public var isPathEmpty: Bool { path.isEmpty }

    /// The current point in user space (CGPointZero when there is none, as Apple returns).
    public var pathCurrentPoint: CGPoint? {
        guard let p = path.currentPoint, let inverse = state.ctm.inverse else { return nil }
        return p.applying(inverse)
    }

    /// The path in user space (CGContextCopyPath).
    public var userSpacePath: PathData {
        guard let inverse = state.ctm.inverse, !path.isEmpty else { return path }
        return (try? PathData(path.elements, transform: inverse)) ?? PathData()
    }

    /// CGContextGetPathBoundingBox: the bounds of the path (curves included,
    /// control points not) in user space; CGRectNull for an empty path. A
    /// stroked outline's bounds include the stroke.
    public var pathBoundingBox: CGRect {
        if path.isEmpty { return .null }
        if strokedOutline != nil, ctmIsInvertible {
            loadPath()
            var x1 = 0.0, y1 = 0.0, x2 = 0.0, y2 = 0.0
            withStrokeStyle { withSafeStroke(cr) { cairo_stroke_extents(cr, &x1, &y1, &x2, &y2) } }
            cairo_new_path(cr)
            return CGRect(x: x1, y: y1, width: x2 - x1, height: y2 - y1)
        }
        return userSpacePath.pathBoundingBox
    }

    /// CGContextPathContainsPoint with a CGPathDrawingMode: fill modes test
    /// the interior (nonzero or even-odd), stroke modes the stroke too.
    public func pathContains(_ p: CGPoint, mode: PathDrawingMode) -> Bool {
        if path.isEmpty { return false }
        let device = p.applying(state.ctm)
        guard device.isFinite, ctmIsInvertible else { return false }
        if let outline = strokedOutline {
            // (In the user space the outline was made in.)
            guard let q = outline.ctm.inverse.map({ device.applying($0) }) else { return false }
            loadPath()
            let inside = withStrokeStyle { withSafeStroke(cr) { cairo_in_stroke(cr, q.x, q.y) != 0 } }
            cairo_new_path(cr)
            return inside
        }
        if mode.fills && path.contains(device, evenOdd: mode.evenOdd) { return true }
        guard mode.strokes else { return false }
        loadPath()
        let inside = withSafeStroke(cr) { cairo_in_stroke(cr, p.x, p.y) != 0 }
        cairo_new_path(cr)
        return inside
    }

    /// CGContextReplacePathWithStrokedPath: the path now stands for the
    /// outline of its stroke with the current line parameters (filling it
    /// paints the stroke, clipping to it clips to the stroke). cairo has no
    /// call that returns that outline as a path, so CGContextCopyPath still
    /// returns the centre line.
    public func replacePathWithStrokedPath() {
        guard !path.isEmpty else { return }
        strokedOutline = currentStrokeStyle()
    }

    package func currentStrokeStyle() -> StrokeStyle {
        let count = Int(cairo_get_dash_count(cr))
        var dashes = [Double](repeating: 0, count: count)
        var phase = 0.0
        if count > 0 { dashes.withUnsafeMutableBufferPointer { cairo_get_dash(cr, $0.baseAddress, &phase) } }
        return StrokeStyle(width: cairo_get_line_width(cr), cap: cairo_get_line_cap(cr), join: cairo_get_line_join(cr),
                           miterLimit: cairo_get_miter_limit(cr), dashes: dashes, phase: phase, ctm: state.ctm)
    }

    /// Runs `body` with cairo's stroke parameters set to the captured
    /// outline's (when the path is one), restoring them afterwards.
    package func withStrokeStyle<R>(_ body: () -> R) -> R {
        guard let s = strokedOutline else { return body() }
        cairo_save(cr)
        var m = cairoMatrix(s.ctm)
        cairo_set_matrix(cr, &m)
        cairo_set_line_width(cr, s.width)
        cairo_set_line_cap(cr, s.cap)
        cairo_set_line_join(cr, s.join)
        cairo_set_miter_limit(cr, s.miterLimit)
        s.dashes.withUnsafeBufferPointer { cairo_set_dash(cr, $0.baseAddress, Int32($0.count), s.phase) }
        let r = body()
        cairo_restore(cr)
        return r
    }

    /// Hands the current path (device space) to cairo, replacing cairo's.
    package func loadPath() {
        cairo_new_path(cr)
        emit(path, deviceSpace: true)
    }

    /// Appends `data` to cairo's path: device coordinates (deviceSpace) or
    /// user coordinates of the current CTM.
    package func emit(_ data: PathData, deviceSpace: Bool) {
        if deviceSpace {
            cairo_save(cr)
            cairo_identity_matrix(cr)
        }
        let kinds = data.kinds, first = data.firstPoints, pts = data.points
        var current = CGPoint(x: 0, y: 0), start = current
        for i in 0..<kinds.count {
            let o = Int(first[i])
            switch kinds[i] {
            case 0:
                let p = pts[o]
                safeMoveTo(cr, p.x, p.y)
                current = p; start = p
            case 1:
                let p = pts[o]
                safeLineTo(cr, p.x, p.y)
                current = p
            case 2:
                // A quadratic is the cubic with controls 2/3 of the way to its control point.
                let c = pts[o], p = pts[o + 1]
                safeCurveTo(cr, current.x + 2 / 3 * (c.x - current.x), current.y + 2 / 3 * (c.y - current.y),
                               p.x + 2 / 3 * (c.x - p.x), p.y + 2 / 3 * (c.y - p.y), p.x, p.y)
                current = p
            case 3:
                let c1 = pts[o], c2 = pts[o + 1], p = pts[o + 2]
                safeCurveTo(cr, c1.x, c1.y, c2.x, c2.y, p.x, p.y)
                current = p
            default:
                cairo_close_path(cr)
                current = start
            }
        }
        if deviceSpace { cairo_restore(cr) }
    }
}

/// Apple's CGPathDrawingMode.
public enum PathDrawingMode: Int32, Sendable {
    case fill = 0, eoFill = 1, stroke = 2, fillStroke = 3, eoFillStroke = 4

    package var fills: Bool { self != .stroke }
    package var strokes: Bool { self == .stroke || self == .fillStroke || self == .eoFillStroke }
    package var evenOdd: Bool { self == .eoFill || self == .eoFillStroke }
}

extension GraphicsError {
    package init(_ e: PathError) {
        switch e {
        case .noCurrentPoint: self = .noCurrentPoint
        case .notFinite: self = .notFinite("a point is NaN or infinite")
        case .invalidArgument(let s): self = .invalidArgument(s)
        case .tooLarge: self = .outOfMemory("the path would exceed 2^32 points")
        }
    }
}

extension PathData {
    /// `elements` transformed (a convenience for copies between spaces).
    package init(_ elements: [PathElement], transform: CGAffineTransform) throws(PathError) {
        self.init()
        try append(elements, transform: transform)
    }
}
