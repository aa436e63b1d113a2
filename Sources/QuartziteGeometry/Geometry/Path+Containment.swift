import CQuartzite
import QuartziteCore

// Filling a path: which points it paints (CGPathContainsPoint), and the
// polylines that approximate it (for the renderer).

/// One subpath flattened to straight lines.
public struct Polyline {
    /// The vertices in order; a closed subpath ends with its first point again.
    public var points: [CGPoint]
    public var isClosed: Bool
}

extension PathData {
    /// The path as polylines whose vertices lie on the path and whose chords
    /// stay within `tolerance` of each curve. A tolerance that is not
    /// positive and finite is taken as 1e-6 of the path's size.
    /// At most about `maximumFlattenedPoints` points come out: when the
    /// curves would need more (huge curves, or millions of them), each curve
    /// gets an equal share of the budget, coarser than `tolerance`.
    public func flattened(tolerance: Double) -> [Polyline] {
        let tol = tolerance > 0 && tolerance.isFinite ? tolerance : defaultTolerance
        // The steps each curve would take, and a per-curve cap that keeps
        // the total within the budget.
        var wanted = 0, curves = 0
        walk(begin: { _ in }, segment: { s, _ in
            if case .line = s { wanted &+= 1; return }
            curves += 1
            wanted &+= s.flatteningSteps(tolerance: tol)
        }, end: { _ in })
        let cap = wanted <= PathData.maximumFlattenedPoints || curves == 0 ? Int.max
            : Swift.max(1, (PathData.maximumFlattenedPoints - (count - curves)) / curves)
        var out: [Polyline] = []
        var current: [CGPoint] = []
        walk(begin: { p in current = [p] }, segment: { s, _ in
            let n = Swift.min(s.flatteningSteps(tolerance: tol), cap)
            for i in 1..<n { current.append(s.point(at: Double(i) / Double(n))) }
            current.append(s.end)
        }, end: { closed in
            out.append(Polyline(points: current, isClosed: closed))
            current = []
        })
        return out
    }

    /// 1e-6 of the larger side of the bounding box (or 1e-12 for a path
    /// without extent).
    package var defaultTolerance: Double {
        let box = boundingBox
        if box.isNull { return 1e-12 }
        let size = Swift.max(box.width, box.height)
        return size > 0 && size.isFinite ? size * 1e-6 : 1e-12
    }

    /// True when filling the path paints `point`: the non-zero winding rule,
    /// or the even-odd rule when `evenOdd`. Open subpaths count as closed
    /// (filling closes them). Curves are flattened to within 1e-6 of the
    /// path's size where they matter. Points on a left or top edge (towards
    /// smaller coordinates) are inside and on a right or bottom edge are
    /// outside, as for CGRectContainsPoint.
    public func contains(_ point: CGPoint, evenOdd: Bool) -> Bool {
        guard !isEmpty, point.isFinite else { return false }
        let box = boundingBox
        if point.x < box.minX || point.x >= box.maxX || point.y < box.minY || point.y >= box.maxY { return false }
        let tol = defaultTolerance
        var winding = 0
        var start = CGPoint(x: 0, y: 0), last = start
        walk(begin: { p in start = p; last = p }, segment: { s, _ in
            last = s.end
            if case .line(let a, let b) = s {
                winding += crossing(a, b, point)
                return
            }
            let (x0, y0, x1, y1) = s.hull
            // The ray from `point` towards +x cannot meet the curve, or meets
            // it exactly as often (signed) as its chord: no need to flatten.
            if point.y < y0 || point.y >= y1 || point.x >= x1 { return }
            if point.x < x0 {
                winding += crossing(s.start, s.end, point)
                return
            }
            // Control points inside a finite box bound |B''| by about 6 times
            // its size, so 1e-6 of the size never needs more than ~2100 steps.
            let n = s.flatteningSteps(tolerance: tol, limit: 4096)
            var a = s.start
            for i in 1...n {
                let b = i == n ? s.end : s.point(at: Double(i) / Double(n))
                winding += crossing(a, b, point)
                a = b
            }
        }, end: { closed in
            if !closed { winding += crossing(last, start, point) }
        })
        return evenOdd ? winding & 1 != 0 : winding != 0
    }
}

/// The signed crossing of the segment a→b with the ray from p towards +x:
/// +1 going up (increasing y), -1 going down, 0 when it misses. Half-open in
/// y so a vertex shared by two edges is counted once.
@inline(__always)
package func crossing(_ a: CGPoint, _ b: CGPoint, _ p: CGPoint) -> Int {
    let aBelow = a.y <= p.y, bBelow = b.y <= p.y
    if aBelow == bBelow { return 0 }
    let x = a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x)
    if x > p.x { return aBelow ? 1 : -1 }
    return 0
}
