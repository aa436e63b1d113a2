import CQuartzite
import QuartziteCore

// What a path covers: its segments (with the implicit starts and closing
// lines made explicit), its two bounding boxes, and whether it is a
// rectangle.

/// A drawn piece of a path: a line, or a quadratic or cubic Bézier curve,
/// with its start point made explicit.
public enum PathSegment {
    case line(CGPoint, CGPoint)
    case quad(CGPoint, CGPoint, CGPoint)
    case cubic(CGPoint, CGPoint, CGPoint, CGPoint)

    public var start: CGPoint {
        switch self {
        case .line(let a, _), .quad(let a, _, _), .cubic(let a, _, _, _): return a
        }
    }

    public var end: CGPoint {
        switch self {
        case .line(_, let b), .quad(_, _, let b), .cubic(_, _, _, let b): return b
        }
    }

    /// The point at parameter t in 0...1.
    @inline(__always)
    public func point(at t: Double) -> CGPoint {
        let mt = 1 - t
        switch self {
        case .line(let a, let b):
            return CGPoint(x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t)
        case .quad(let a, let c, let b):
            let w0 = mt * mt, w1 = 2 * mt * t, w2 = t * t
            return CGPoint(x: w0 * a.x + w1 * c.x + w2 * b.x, y: w0 * a.y + w1 * c.y + w2 * b.y)
        case .cubic(let a, let c1, let c2, let b):
            let w0 = mt * mt * mt, w1 = 3 * mt * mt * t, w2 = 3 * mt * t * t, w3 = t * t * t
            return CGPoint(x: w0 * a.x + w1 * c1.x + w2 * c2.x + w3 * b.x,
                           y: w0 * a.y + w1 * c1.y + w2 * c2.y + w3 * b.y)
        }
    }

    /// The derivative dB/dt at t.
    @inline(__always)
    public func derivative(at t: Double) -> CGPoint {
        let mt = 1 - t
        switch self {
        case .line(let a, let b):
            return CGPoint(x: b.x - a.x, y: b.y - a.y)
        case .quad(let a, let c, let b):
            return CGPoint(x: 2 * (mt * (c.x - a.x) + t * (b.x - c.x)), y: 2 * (mt * (c.y - a.y) + t * (b.y - c.y)))
        case .cubic(let a, let c1, let c2, let b):
            let w0 = 3 * mt * mt, w1 = 6 * mt * t, w2 = 3 * t * t
            return CGPoint(x: w0 * (c1.x - a.x) + w1 * (c2.x - c1.x) + w2 * (b.x - c2.x),
                           y: w0 * (c1.y - a.y) + w1 * (c2.y - c1.y) + w2 * (b.y - c2.y))
        }
    }

    /// Control-point extent: (minX, minY, maxX, maxY).
    package var hull: (Double, Double, Double, Double) {
        switch self {
        case .line(let a, let b):
            return (Swift.min(a.x, b.x), Swift.min(a.y, b.y), Swift.max(a.x, b.x), Swift.max(a.y, b.y))
        case .quad(let a, let c, let b):
            return (Swift.min(a.x, c.x, b.x), Swift.min(a.y, c.y, b.y), Swift.max(a.x, c.x, b.x), Swift.max(a.y, c.y, b.y))
        case .cubic(let a, let c1, let c2, let b):
            return (Swift.min(a.x, c1.x, c2.x, b.x), Swift.min(a.y, c1.y, c2.y, b.y),
                    Swift.max(a.x, c1.x, c2.x, b.x), Swift.max(a.y, c1.y, c2.y, b.y))
        }
    }

    /// The number of equal parameter steps after which the chords stay
    /// within `tolerance` of the curve (from the bound |B''| / 8n² on the
    /// distance between a curve and its chord), between 1 and `limit`.
    public func flatteningSteps(tolerance: Double, limit: Int = 1 << 16) -> Int {
        let bound: Double
        switch self {
        case .line:
            return 1
        case .quad(let a, let c, let b):
            // |B''| = 2 |a - 2c + b|: n ≥ sqrt(|a - 2c + b| / (4 tol)).
            let dx = a.x - 2 * c.x + b.x, dy = a.y - 2 * c.y + b.y
            bound = ((dx * dx + dy * dy).squareRoot() / (4 * tolerance)).squareRoot()
        case .cubic(let a, let c1, let c2, let b):
            // |B''| ≤ 6 max|second differences|: n ≥ sqrt(0.75 max / tol).
            let d1x = a.x - 2 * c1.x + c2.x, d1y = a.y - 2 * c1.y + c2.y
            let d2x = c1.x - 2 * c2.x + b.x, d2y = c1.y - 2 * c2.y + b.y
            let m = Swift.max((d1x * d1x + d1y * d1y).squareRoot(), (d2x * d2x + d2y * d2y).squareRoot())
            bound = (0.75 * m / tolerance).squareRoot()
        }
        guard bound.isFinite else { return limit }   // NaN or infinite: as fine as allowed
        return Int(Swift.min(Swift.max(bound.rounded(.up), 1), Double(limit)))
    }

    /// The parameters in (0, 1) where x or y has an extremum.
    package func extremaParameters() -> [Double] {
        var ts: [Double] = []
        switch self {
        case .line:
            break
        case .quad(let a, let c, let b):
            for (p0, p1, p2) in [(a.x, c.x, b.x), (a.y, c.y, b.y)] {
                let den = p0 - 2 * p1 + p2
                if den != 0 {
                    let t = (p0 - p1) / den
                    if t > 0 && t < 1 { ts.append(t) }
                }
            }
        case .cubic(let a, let c1, let c2, let b):
            for (p0, p1, p2, p3) in [(a.x, c1.x, c2.x, b.x), (a.y, c1.y, c2.y, b.y)] {
                // B'(t) / 3 = qa t² + qb t + qc.
                let qa = -p0 + 3 * p1 - 3 * p2 + p3
                let qb = 2 * (p0 - 2 * p1 + p2)
                let qc = p1 - p0
                for t in quadraticRoots(qa, qb, qc) where t > 0 && t < 1 { ts.append(t) }
            }
        }
        return ts
    }
}

/// Real roots of a t² + b t + c (any degree down to none), computed without
/// cancellation.
package func quadraticRoots(_ a: Double, _ b: Double, _ c: Double) -> [Double] {
    let scale = Swift.max(abs(a), abs(b), abs(c))
    if scale == 0 || !scale.isFinite { return [] }
    if abs(a) <= scale * 1e-12 {
        return b != 0 ? [-c / b] : []
    }
    let disc = b * b - 4 * a * c
    if disc < 0 { return [] }
    let q = -0.5 * (b + (b < 0 ? -1 : 1) * disc.squareRoot())
    var roots = [q / a]
    if q != 0 { roots.append(c / q) }
    return roots
}

extension PathData {
    /// Walks the path as subpaths: `begin` at each subpath's start, `segment`
    /// for each line or curve (a close gives the line back to the start) with
    /// the index of the element it comes from, and `end` when a subpath ends
    /// (closed or not). A line or curve after a close starts a new subpath
    /// at the closed one's start.
    public func walk(begin: (CGPoint) -> Void, segment: (PathSegment, Int) -> Void, end: (_ closed: Bool) -> Void) {
        var open = false
        var start = CGPoint(x: 0, y: 0), current = start
        for i in 0..<count {
            let o = Int(firstPoints[i])
            let kind = kinds[i]
            if kind == 0 {
                if open { end(false) }
                start = points[o]
                current = start
                open = true
                begin(start)
                continue
            }
            if kind == 4 {
                if open {
                    segment(.line(current, start), i)
                    current = start
                    end(true)
                    open = false
                }
                continue
            }
            if !open {
                open = true
                start = current
                begin(start)
            }
            let s: PathSegment
            switch kind {
            case 1: s = .line(current, points[o])
            case 2: s = .quad(current, points[o], points[o + 1])
            default: s = .cubic(current, points[o], points[o + 1], points[o + 2])
            }
            segment(s, i)
            current = s.end
        }
        if open { end(false) }
    }

    /// Every line and curve, in order (closing lines included).
    public var segments: [PathSegment] {
        var out: [PathSegment] = []
        walk(begin: { _ in }, segment: { s, _ in out.append(s) }, end: { _ in })
        return out
    }

    // MARK: - Bounding boxes

    /// The smallest rectangle holding every point of the path, control
    /// points included (CGPathGetBoundingBox); CGRectNull when empty.
    public var boundingBox: CGRect {
        guard let first = points.first else { return .null }
        var x0 = first.x, y0 = first.y, x1 = x0, y1 = y0
        for p in points {
            x0 = Swift.min(x0, p.x); x1 = Swift.max(x1, p.x)
            y0 = Swift.min(y0, p.y); y1 = Swift.max(y1, p.y)
        }
        return CGRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// The smallest rectangle holding the path itself: end points and the
    /// extrema of the curves, not their control points
    /// (CGPathGetPathBoundingBox); CGRectNull when empty. Move points count.
    public var pathBoundingBox: CGRect {
        guard let first = points.first else { return .null }
        var x0 = first.x, y0 = first.y, x1 = x0, y1 = y0
        func include(_ p: CGPoint) {
            x0 = Swift.min(x0, p.x); x1 = Swift.max(x1, p.x)
            y0 = Swift.min(y0, p.y); y1 = Swift.max(y1, p.y)
        }
        walk(begin: include, segment: { s, _ in
            include(s.end)
            for t in s.extremaParameters() { include(s.point(at: t)) }
        }, end: { _ in })
        return CGRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    // MARK: - Shape tests

    /// The rectangle the path traces, if it is one closed axis-aligned
    /// rectangle: a move and three lines with a close, or four lines back to
    /// the start (with or without a close). Returns it standardized.
    public var rect: CGRect? {
        let n = count
        guard n >= 4, n <= 6, kinds[0] == 0 else { return nil }
        var corners = [points[Int(firstPoints[0])]]
        var closed = false
        for i in 1..<n {
            switch kinds[i] {
            case 1 where !closed: corners.append(points[Int(firstPoints[i])])
            case 4 where i == n - 1: closed = true
            default: return nil
            }
        }
        if corners.count == 5 {
            guard corners[4].x == corners[0].x, corners[4].y == corners[0].y else { return nil }
            corners.removeLast()
        } else if corners.count != 4 || !closed {
            return nil
        }
        let (a, b, c, d) = (corners[0], corners[1], corners[2], corners[3])
        let horizontalFirst = a.y == b.y && b.x == c.x && c.y == d.y && d.x == a.x
        let verticalFirst = a.x == b.x && b.y == c.y && c.x == d.x && d.y == a.y
        guard horizontalFirst || verticalFirst else { return nil }
        return CGRect(x: Swift.min(a.x, c.x), y: Swift.min(a.y, c.y), width: abs(c.x - a.x), height: abs(c.y - a.y))
    }
}
