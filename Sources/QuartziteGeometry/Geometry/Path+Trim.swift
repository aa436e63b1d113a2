import CQuartzite
import QuartziteCore

// The part of a path between two distances along it (CAShapeLayer's
// strokeStart and strokeEnd): the pieces of PathMeasure that overlap the
// range, each cut exactly at its parameters (de Casteljau), in runs of
// connected segments (a move starts a new run).

extension PathSegment {
    /// The same curve restricted to parameters [u0, u1] (0 ≤ u0 ≤ u1 ≤ 1).
    package func restricted(_ u0: Double, _ u1: Double) -> PathSegment {
        func lerp(_ a: CGPoint, _ b: CGPoint, _ t: Double) -> CGPoint {
            CGPoint(x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t)
        }
        switch self {
        case .line:
            return .line(point(at: u0), point(at: u1))
        case .quad(let a, let c, let b):
            // Left part [0, u1], then its right part from u0 / u1.
            let ac = lerp(a, c, u1), cb = lerp(c, b, u1), m = lerp(ac, cb, u1)
            let s = u1 > 0 ? u0 / u1 : 0
            let p0 = a, p1 = ac, p2 = m
            let q01 = lerp(p0, p1, s), q12 = lerp(p1, p2, s), start = lerp(q01, q12, s)
            return .quad(start, q12, p2)
        case .cubic(let a, let c1, let c2, let b):
            let ab = lerp(a, c1, u1), bc = lerp(c1, c2, u1), cd = lerp(c2, b, u1)
            let abc = lerp(ab, bc, u1), bcd = lerp(bc, cd, u1), m = lerp(abc, bcd, u1)
            let p0 = a, p1 = ab, p2 = abc, p3 = m
            let s = u1 > 0 ? u0 / u1 : 0
            let q01 = lerp(p0, p1, s), q12 = lerp(p1, p2, s), q23 = lerp(p2, p3, s)
            let r0 = lerp(q01, q12, s), r1 = lerp(q12, q23, s), start = lerp(r0, r1, s)
            return .cubic(start, r1, q23, p3)
        }
    }
}

extension PathMeasure {
    /// The path between distances `from` and `to` (clamped to 0...length;
    /// empty when `to` ≤ `from`), as runs of connected segments.
    package func trimmed(from: Double, to: Double) -> [[PathSegment]] {
        let a = Swift.max(0, from.isNaN ? 0 : from), b = Swift.min(length, to.isNaN ? 0 : to)
        guard b > a else { return [] }
        var runs: [[PathSegment]] = []
        var run: [PathSegment] = []
        var previous: Piece?
        for piece in pieces {
            let p0 = piece.offset, p1 = piece.offset + piece.length
            guard p1 > a, p0 < b else { continue }
            let u0 = p0 >= a ? piece.t0 : parameter(in: piece, atLength: a - p0)
            let u1 = p1 <= b ? piece.t1 : parameter(in: piece, atLength: b - p0)
            let s = piece.segment.restricted(u0, u1)
            // Connected: the next piece of the same curve, or the next element
            // starting where the last one ended (the path's own points, so
            // compared exactly); anything else follows a move.
            if let q = previous, !run.isEmpty {
                let sameCurve = piece.t0 > 0 && q.t1 == piece.t0
                let nextElement = piece.t0 == 0 && q.t1 == 1 && q.segment.end.x == piece.segment.start.x
                    && q.segment.end.y == piece.segment.start.y
                if !(sameCurve || nextElement) {
                    runs.append(run)
                    run = []
                }
            }
            run.append(s)
            previous = piece
        }
        if !run.isEmpty { runs.append(run) }
        return runs
    }
}
