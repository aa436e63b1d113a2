import CQuartzite
import QuartziteCore

// Distances along a path, for paced keyframe animation (kCAAnimationPaced)
// and CAKeyframeAnimation's path: the total length, the length of each
// element, and the point and direction at a given distance. Curve lengths are
// integrated with Gauss-Legendre quadrature on adaptively split pieces, so
// they are exact to about 1e-12 relative, not approximated by chords.

/// Nodes and weights of 8-point Gauss-Legendre quadrature on [-1, 1]
/// (exact for polynomials up to degree 15).
private let gaussNodes: [Double] = [0.1834346424956498, 0.5255324099163290, 0.7966664774136267, 0.9602898564975363]
private let gaussWeights: [Double] = [0.3626837833783620, 0.3137066458778873, 0.2223810344533745, 0.1012285362903763]

extension PathSegment {
    /// |dB/dt| integrated over [t0, t1].
    package func arcLength(from t0: Double, to t1: Double) -> Double {
        if case .line(let a, let b) = self {
            let dx = b.x - a.x, dy = b.y - a.y
            return (dx * dx + dy * dy).squareRoot() * (t1 - t0)
        }
        let half = (t1 - t0) / 2, mid = (t0 + t1) / 2
        var sum = 0.0
        for i in 0..<4 {
            for sign in [-1.0, 1.0] {
                let d = derivative(at: mid + sign * half * gaussNodes[i])
                sum += gaussWeights[i] * (d.x * d.x + d.y * d.y).squareRoot()
            }
        }
        return sum * half
    }
}

/// The lengths of a path and positions along it. Made once from a snapshot
/// of the path's contents (Path.measure caches it).
public final class PathMeasure {
    package struct Piece {
        package var segment: PathSegment
        package var t0: Double
        package var t1: Double
        /// Distance from the path's start to the piece's start.
        package var offset: Double
        package var length: Double
    }

    /// Pieces of positive length in path order.
    package let pieces: [Piece]
    /// The first point of the path (for a path with no length).
    package let firstPoint: CGPoint?
    /// The sum of the lengths of every line and curve, closing lines
    /// included; the jumps of move elements do not count.
    public let length: Double
    /// The length of each element, by element index: 0 for a move, the
    /// closing line's length for a close.
    public let elementLengths: [Double]

    public init(_ data: PathData) {
        var pieces: [Piece] = []
        var elementLengths = [Double](repeating: 0, count: data.count)
        var total = 0.0
        data.walk(begin: { _ in }, segment: { s, element in
            var add: [(Double, Double, Double)] = []   // (t0, t1, length)
            if case .line = s {
                add.append((0, 1, s.arcLength(from: 0, to: 1)))
            } else {
                let initial = s.flatteningSteps(tolerance: 1, limit: 16)
                let n = Swift.max(initial, 4)
                // Pieces far shorter than the curve need no accuracy of their own.
                let floor = s.arcLength(from: 0, to: 1) * 1e-6
                var budget = 4096
                for i in 0..<n {
                    PathMeasure.integrate(s, Double(i) / Double(n), Double(i + 1) / Double(n), depth: 0,
                                          floor: floor, budget: &budget, into: &add)
                }
            }
            for (t0, t1, l) in add {
                elementLengths[element] += l
                if l > 0 && l.isFinite {
                    pieces.append(Piece(segment: s, t0: t0, t1: t1, offset: total, length: l))
                    total += l
                }
            }
        }, end: { _ in })
        self.pieces = pieces
        self.elementLengths = elementLengths
        length = total
        firstPoint = data.points.first
    }

    /// Splits [t0, t1] until the quadrature of the whole agrees with that of
    /// its halves (to 1e-13 of the larger of the piece and `floor`), then
    /// records the halves. At most `budget` splits per curve and 24 levels.
    private static func integrate(_ s: PathSegment, _ t0: Double, _ t1: Double, depth: Int, floor: Double,
                                  budget: inout Int, into out: inout [(Double, Double, Double)]) {
        let mid = (t0 + t1) / 2
        let whole = s.arcLength(from: t0, to: t1)
        let left = s.arcLength(from: t0, to: mid), right = s.arcLength(from: mid, to: t1)
        let settled = abs(left + right - whole) <= 1e-13 * Swift.max(whole, floor, 1e-300)
        if settled || depth >= 24 || budget <= 0 || !whole.isFinite {
            out.append((t0, mid, left))
            out.append((mid, t1, right))
            return
        }
        budget -= 1
        integrate(s, t0, mid, depth: depth + 1, floor: floor, budget: &budget, into: &out)
        integrate(s, mid, t1, depth: depth + 1, floor: floor, budget: &budget, into: &out)
    }

    /// The point at `distance` along the path (clamped to 0...length) and
    /// the unit tangent there (the direction of travel; (0, 0) where the
    /// path has no length). Nil for an empty path.
    public func position(atDistance distance: Double) -> (point: CGPoint, tangent: CGPoint)? {
        guard let last = pieces.last else {
            return firstPoint.map { ($0, CGPoint(x: 0, y: 0)) }
        }
        let d = distance.isNaN ? 0 : Swift.min(Swift.max(distance, 0), length)
        // The last piece starting at or before d.
        var lo = 0, hi = pieces.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if pieces[mid].offset <= d { lo = mid } else { hi = mid - 1 }
        }
        let piece = d >= length ? last : pieces[lo]
        let target = Swift.min(Swift.max(d - piece.offset, 0), piece.length)
        let t = parameter(in: piece, atLength: target)
        let point = piece.segment.point(at: t)
        var tangent = piece.segment.derivative(at: t)
        var norm = (tangent.x * tangent.x + tangent.y * tangent.y).squareRoot()
        if !(norm > 0) || !norm.isFinite {
            // A cusp or a degenerate control point: the piece's chord.
            let a = piece.segment.point(at: piece.t0), b = piece.segment.point(at: piece.t1)
            tangent = CGPoint(x: b.x - a.x, y: b.y - a.y)
            norm = (tangent.x * tangent.x + tangent.y * tangent.y).squareRoot()
        }
        if norm > 0 && norm.isFinite {
            tangent = CGPoint(x: tangent.x / norm, y: tangent.y / norm)
        } else {
            tangent = CGPoint(x: 0, y: 0)
        }
        return (point, tangent)
    }

    /// The parameter t in the piece where the arc length from its start is
    /// `target`: Newton steps on the arc length, kept inside a shrinking
    /// bracket (bisection when a step would leave it).
    package func parameter(in piece: Piece, atLength target: Double) -> Double {
        if case .line = piece.segment {
            return piece.t0 + (piece.t1 - piece.t0) * (target / piece.length)
        }
        var lo = piece.t0, hi = piece.t1
        var t = piece.t0 + (piece.t1 - piece.t0) * (target / piece.length)
        for _ in 0..<50 {
            let f = piece.segment.arcLength(from: piece.t0, to: t) - target
            if abs(f) <= 1e-13 * Swift.max(piece.length, 1e-300) { break }
            if f > 0 { hi = t } else { lo = t }
            let d = piece.segment.derivative(at: t)
            let speed = (d.x * d.x + d.y * d.y).squareRoot()
            var next = speed > 0 ? t - f / speed : (lo + hi) / 2
            if !(next > lo && next < hi) { next = (lo + hi) / 2 }
            if next == t { break }
            t = next
        }
        return t
    }
}
