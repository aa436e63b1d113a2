import CQuartzite
import QuartziteCore
import Glibc

// The convenience shapes of CGPath.h, built as elements in user space and
// then transformed: rectangles, ellipses, rounded rectangles and arcs.
// Angles are measured from the positive x axis towards the positive y axis
// (counter-clockwise when y points up, as Core Graphics describes them).

/// The distance of a cubic Bézier's control points from its ends that best
/// approximates a quarter of a circle of radius 1 (4/3 (√2 - 1)).
public let pathEllipseKappa = 0.5522847498

extension PathData {
    // MARK: - Shapes as elements

    /// A rectangle: move to (minX, minY), lines to (maxX, minY), (maxX, maxY)
    /// and (minX, maxY), close (Apple's documented order for CGPathAddRect).
    public static func rectElements(_ rect: CGRect) -> [PathElement] {
        let r = rect.standardized
        return [.moveTo(CGPoint(x: r.minX, y: r.minY)), .lineTo(CGPoint(x: r.maxX, y: r.minY)),
                .lineTo(CGPoint(x: r.maxX, y: r.maxY)), .lineTo(CGPoint(x: r.minX, y: r.maxY)), .closeSubpath]
    }

    /// An ellipse inscribed in `rect`: four cubic quadrants starting at
    /// (maxX, midY) and running through (midX, maxY), (minX, midY) and
    /// (midX, minY) (increasing angle), then a close.
    public static func ellipseElements(in rect: CGRect) -> [PathElement] {
        let r = rect.standardized
        let cx = r.midX, cy = r.midY
        let ox = r.width / 2 * pathEllipseKappa, oy = r.height / 2 * pathEllipseKappa
        let x0 = r.minX, x1 = r.maxX, y0 = r.minY, y1 = r.maxY
        return [
            .moveTo(CGPoint(x: x1, y: cy)),
            .curveTo(CGPoint(x: x1, y: cy + oy), CGPoint(x: cx + ox, y: y1), CGPoint(x: cx, y: y1)),
            .curveTo(CGPoint(x: cx - ox, y: y1), CGPoint(x: x0, y: cy + oy), CGPoint(x: x0, y: cy)),
            .curveTo(CGPoint(x: x0, y: cy - oy), CGPoint(x: cx - ox, y: y0), CGPoint(x: cx, y: y0)),
            .curveTo(CGPoint(x: cx + ox, y: y0), CGPoint(x: x1, y: cy - oy), CGPoint(x: x1, y: cy)),
            .closeSubpath,
        ]
    }

    /// Checks Core Graphics' preconditions for a rounded rectangle (it
    /// asserts them): corner sizes not negative, at most half the width and
    /// half the height.
    public static func checkRoundedRect(_ rect: CGRect, cornerWidth: Double, cornerHeight: Double) -> PathError? {
        let r = rect.standardized
        if cornerWidth < 0 || cornerHeight < 0 {
            return .invalidArgument("corner sizes must not be negative, got \(cornerWidth) x \(cornerHeight)")
        }
        if 2 * cornerWidth > r.width || 2 * cornerHeight > r.height {
            return .invalidArgument("corner size \(cornerWidth) x \(cornerHeight) exceeds half of the rectangle's size \(r.width) x \(r.height)")
        }
        return nil
    }

    /// A rounded rectangle (arguments already checked): starts at
    /// (minX + cornerWidth, minY) and runs towards maxX like the rectangle,
    /// each corner a quarter ellipse of radii cornerWidth x cornerHeight. A
    /// zero corner size gives the plain rectangle.
    public static func roundedRectElements(_ rect: CGRect, cornerWidth cw: Double, cornerHeight ch: Double) -> [PathElement] {
        if cw == 0 || ch == 0 { return rectElements(rect) }
        let r = rect.standardized
        let x0 = r.minX, x1 = r.maxX, y0 = r.minY, y1 = r.maxY
        let ox = cw * pathEllipseKappa, oy = ch * pathEllipseKappa
        func p(_ x: Double, _ y: Double) -> CGPoint { CGPoint(x: x, y: y) }
        return [
            .moveTo(p(x0 + cw, y0)),
            .lineTo(p(x1 - cw, y0)),
            .curveTo(p(x1 - cw + ox, y0), p(x1, y0 + ch - oy), p(x1, y0 + ch)),
            .lineTo(p(x1, y1 - ch)),
            .curveTo(p(x1, y1 - ch + oy), p(x1 - cw + ox, y1), p(x1 - cw, y1)),
            .lineTo(p(x0 + cw, y1)),
            .curveTo(p(x0 + cw - ox, y1), p(x0, y1 - ch + oy), p(x0, y1 - ch)),
            .lineTo(p(x0, y0 + ch)),
            .curveTo(p(x0, y0 + ch - oy), p(x0 + cw - ox, y0), p(x0 + cw, y0)),
            .closeSubpath,
        ]
    }

    // MARK: - Arcs

    /// The signed sweep of CGPathAddArc from `start` to `end`: clockwise
    /// (true) sweeps towards decreasing angles, counter-clockwise towards
    /// increasing ones. The sweep is reduced modulo 2π, except that a
    /// difference of at least 2π in the arc's direction is a full circle. So
    /// 0 → 2π counter-clockwise is a full circle, 0 → 2π clockwise is empty,
    /// and 2π → 0 clockwise is a full circle (the cases CGPath.h spells out).
    public static func arcSweep(from start: Double, to end: Double, clockwise: Bool) -> Double {
        let twoPi = 2 * Double.pi
        let difference = clockwise ? start - end : end - start
        var sweep: Double
        if difference >= twoPi {
            sweep = twoPi
        } else {
            sweep = difference.truncatingRemainder(dividingBy: twoPi)
            if sweep < 0 { sweep += twoPi }
            if sweep > twoPi { sweep = twoPi }
        }
        return clockwise ? -sweep : sweep
    }

    /// An arc of the circle (center, radius) from `startAngle` through the
    /// signed `sweep` (|sweep| ≤ 2π), as cubic Béziers of at most 90° each.
    /// It begins with a line to the arc's start when `connect` (the path has
    /// a current point), else a move. `endAngle`, when given, places the last
    /// point exactly (it equals startAngle + sweep modulo 2π).
    public static func arcElements(center c: CGPoint, radius: Double, startAngle: Double, sweep: Double,
                                   endAngle: Double? = nil, connect: Bool) -> [PathElement] {
        let (s0, c0) = sinCos(startAngle)
        let p0 = CGPoint(x: c.x + radius * c0, y: c.y + radius * s0)
        var out: [PathElement] = [connect ? .lineTo(p0) : .moveTo(p0)]
        if sweep == 0 || radius == 0 || !sweep.isFinite { return out }
        let fullTurn = abs(sweep) >= 2 * Double.pi
        let quarters = (abs(sweep) / (Double.pi / 2) - 1e-9).rounded(.up)
        let n = Int(Swift.min(Swift.max(quarters, 1), 4))
        let step = sweep / Double(n)
        let k = 4.0 / 3.0 * tan(step / 4) * radius
        var (sa, ca, pa) = (s0, c0, p0)
        out.reserveCapacity(n + 1)
        for i in 1...n {
            var (sb, cb) = sinCos(i == n ? startAngle + sweep : startAngle + step * Double(i))
            if i == n {
                if fullTurn {
                    (sb, cb) = (s0, c0)
                } else if let endAngle {
                    (sb, cb) = sinCos(endAngle)
                }
            }
            let pb = i == n && fullTurn ? p0 : CGPoint(x: c.x + radius * cb, y: c.y + radius * sb)
            out.append(.curveTo(CGPoint(x: pa.x - k * sa, y: pa.y + k * ca),
                                CGPoint(x: pb.x + k * sb, y: pb.y - k * cb), pb))
            (sa, ca, pa) = (sb, cb, pb)
        }
        return out
    }

    // MARK: - Adding shapes

    /// Appends arc elements that begin with a line to the arc's start,
    /// leaving that line out when the current point is already exactly there
    /// (a zero-length line would add a pause to keyframe animations that
    /// follow the path).
    private mutating func appendJoined(_ elements: [PathElement], transform: CGAffineTransform?) throws(PathError) {
        var elements = elements
        if case .lineTo(let start)? = elements.first, let current = currentPoint {
            let p = transform.map { start.applying($0) } ?? start
            if p.x == current.x && p.y == current.y { elements.removeFirst() }
        }
        try append(elements, transform: transform)
    }

    public mutating func addRect(_ rect: CGRect, transform: CGAffineTransform? = nil) throws(PathError) {
        try append(PathData.rectElements(rect), transform: transform)
    }

    public mutating func addEllipse(in rect: CGRect, transform: CGAffineTransform? = nil) throws(PathError) {
        try append(PathData.ellipseElements(in: rect), transform: transform)
    }

    public mutating func addRoundedRect(_ rect: CGRect, cornerWidth: Double, cornerHeight: Double,
                                        transform: CGAffineTransform? = nil) throws(PathError) {
        if let e = PathData.checkRoundedRect(rect, cornerWidth: cornerWidth, cornerHeight: cornerHeight) { throw e }
        try append(PathData.roundedRectElements(rect, cornerWidth: cornerWidth, cornerHeight: cornerHeight),
                   transform: transform)
    }

    /// CGPathAddArc: a line from the current point (if any, and unless it is
    /// the arc's start) to the arc's start, then the arc. `clockwise` sweeps
    /// towards decreasing angles.
    public mutating func addArc(center: CGPoint, radius: Double, startAngle: Double, endAngle: Double,
                                clockwise: Bool, transform: CGAffineTransform? = nil) throws(PathError) {
        guard radius >= 0 else { throw .invalidArgument("radius must not be negative, got \(radius)") }
        let sweep = PathData.arcSweep(from: startAngle, to: endAngle, clockwise: clockwise)
        try appendJoined(PathData.arcElements(center: center, radius: radius, startAngle: startAngle, sweep: sweep,
                                              endAngle: endAngle, connect: currentPoint != nil), transform: transform)
    }

    /// CGPathAddRelativeArc: like addArc with the sweep given directly
    /// (positive: increasing angles). Sweeps beyond a full turn are clamped
    /// to ±2π.
    public mutating func addRelativeArc(center: CGPoint, radius: Double, startAngle: Double, delta: Double,
                                        transform: CGAffineTransform? = nil) throws(PathError) {
        guard radius >= 0 else { throw .invalidArgument("radius must not be negative, got \(radius)") }
        let sweep = Swift.min(Swift.max(delta, -2 * Double.pi), 2 * Double.pi)
        try appendJoined(PathData.arcElements(center: center, radius: radius, startAngle: startAngle, sweep: sweep,
                                              connect: currentPoint != nil), transform: transform)
    }

    /// CGPathAddArcToPoint (PostScript's arct): a line from the current point
    /// to where the circle of `radius` touches the line current→p1, then the
    /// arc to where it touches p1→p2, which becomes the current point. When
    /// the three points are collinear (or coincide), or the radius is zero,
    /// it adds a line to p1 instead. With a transform, the current point is
    /// taken back to user space through its inverse (a singular transform
    /// adds the line to p1).
    public mutating func addArc(tangent1End p1: CGPoint, tangent2End p2: CGPoint, radius: Double,
                                transform: CGAffineTransform? = nil) throws(PathError) {
        guard let current = currentPoint else { throw .noCurrentPoint }
        guard radius >= 0 else { throw .invalidArgument("radius must not be negative, got \(radius)") }
        var p0 = current
        if let transform {
            guard let inverse = transform.inverse else {
                try append([.lineTo(p1)], transform: transform)
                return
            }
            p0 = current.applying(inverse)
        }
        try appendJoined(PathData.tangentArcElements(from: p0, p1, p2, radius: radius), transform: transform)
    }

    package static func tangentArcElements(from p0: CGPoint, _ p1: CGPoint, _ p2: CGPoint, radius r: Double) -> [PathElement] {
        let v1 = CGPoint(x: p0.x - p1.x, y: p0.y - p1.y), v2 = CGPoint(x: p2.x - p1.x, y: p2.y - p1.y)
        let l1 = (v1.x * v1.x + v1.y * v1.y).squareRoot(), l2 = (v2.x * v2.x + v2.y * v2.y).squareRoot()
        let cross = v1.x * v2.y - v1.y * v2.x
        guard r > 0, l1 > 0, l2 > 0, cross != 0, l1.isFinite, l2.isFinite else { return [.lineTo(p1)] }
        let u1 = CGPoint(x: v1.x / l1, y: v1.y / l1), u2 = CGPoint(x: v2.x / l2, y: v2.y / l2)
        // The angle at p1 between the two legs, in (0, π).
        let theta = acos(Swift.min(Swift.max(u1.x * u2.x + u1.y * u2.y, -1), 1))
        let d = r / tan(theta / 2)
        let t1 = CGPoint(x: p1.x + u1.x * d, y: p1.y + u1.y * d)
        let t2 = CGPoint(x: p1.x + u2.x * d, y: p1.y + u2.y * d)
        let bx = u1.x + u2.x, by = u1.y + u2.y
        let bl = (bx * bx + by * by).squareRoot()
        let h = r / sin(theta / 2)
        let center = CGPoint(x: p1.x + bx / bl * h, y: p1.y + by / bl * h)
        guard t1.isFinite, t2.isFinite, center.isFinite, bl > 0 else { return [.lineTo(p1)] }
        let a0 = atan2(t1.y - center.y, t1.x - center.x)
        let a1 = atan2(t2.y - center.y, t2.x - center.x)
        // Turning left (p0→p1→p2 counter-clockwise when y is up) sweeps
        // towards increasing angles.
        let sweep = (-cross > 0 ? 1.0 : -1.0) * (Double.pi - theta)
        var out = arcElements(center: center, radius: r, startAngle: a0, sweep: sweep, endAngle: a1, connect: true)
        // Land exactly on the tangent points.
        out[0] = .lineTo(t1)
        if case .curveTo(let c1, let c2, _) = out[out.count - 1] { out[out.count - 1] = .curveTo(c1, c2, t2) }
        return out
    }
}
