import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics

/// A pacing curve (Apple's CAMediaTimingFunction): a cubic Bezier from (0, 0)
/// through control points c1 and c2 to (1, 1), mapping input time x in [0, 1]
/// to output progress y. Immutable, so it is shared freely between threads.
public final class TimingFunction: QZObject, Handle {
    public let c1: (x: Float, y: Float)
    public let c2: (x: Float, y: Float)
    /// The predefined name it was made from, if any.
    public let name: String?

    @inlinable package static var handleKind: ObjectKind { .timingFunction }
    @inlinable package static func accepts(_ tag: UInt32) -> Bool { tag == tagMagic | UInt32(ObjectKind.timingFunction.rawValue) }

    public init(c1x: Float, c1y: Float, c2x: Float, c2y: Float, name: String? = nil) {
        c1 = (c1x, c1y)
        c2 = (c2x, c2y)
        self.name = name
        curve = TimingCurve(c1: (c1x, c1y), c2: (c2x, c2y))
        super.init(kind: .timingFunction)
    }

    /// Apple's predefined curves.
    public static func named(_ name: String) -> TimingFunction? {
        switch name {
        case "linear": return linear
        case "easeIn": return easeIn
        case "easeOut": return easeOut
        case "easeInEaseOut": return easeInEaseOut
        case "default": return systemDefault
        default: return nil
        }
    }

    public static let linear = TimingFunction(c1x: 0, c1y: 0, c2x: 1, c2y: 1, name: "linear")
    public static let easeIn = TimingFunction(c1x: 0.42, c1y: 0, c2x: 1, c2y: 1, name: "easeIn")
    public static let easeOut = TimingFunction(c1x: 0, c1y: 0, c2x: 0.58, c2y: 1, name: "easeOut")
    public static let easeInEaseOut = TimingFunction(c1x: 0.42, c1y: 0, c2x: 0.58, c2y: 1, name: "easeInEaseOut")
    public static let systemDefault = TimingFunction(c1x: 0.25, c1y: 0.1, c2x: 0.25, c2y: 1, name: "default")

    /// Control point `index` (0: (0, 0), 1: c1, 2: c2, 3: (1, 1)).
    public func controlPoint(_ index: Int) -> (x: Float, y: Float)? {
        switch index {
        case 0: return (0, 0)
        case 1: return c1
        case 2: return c2
        case 3: return (1, 1)
        default: return nil
        }
    }

    public var isLinear: Bool { c1.x == c1.y && c2.x == c2.y }

    /// The curve in polynomial form, for solving (computed once).
    package let curve: TimingCurve

    /// The output progress for input time `x` (clamped to [0, 1]): see `TimingCurve.solve`.
    public func solve(_ x: Double) -> Double { curve.solve(x) }
}

/// A timing function's cubic Bezier in polynomial form, x(t) = ((ax t + bx) t + cx) t
/// and the same for y, so that evaluation needs neither the object nor its Float
/// control points. A value type: presentation keeps one per animation.
package struct TimingCurve {
    package let isLinear: Bool
    package let cx: Double, bx: Double, ax: Double
    package let cy: Double, by: Double, ay: Double

    package init(c1: (x: Float, y: Float), c2: (x: Float, y: Float)) {
        isLinear = c1.x == c1.y && c2.x == c2.y
        let p1x = Double(c1.x), p2x = Double(c2.x), p1y = Double(c1.y), p2y = Double(c2.y)
        // B(t) = 3(1-t)^2 t p1 + 3(1-t) t^2 p2 + t^3, as a polynomial c t + b t^2 + a t^3.
        cx = 3 * p1x
        bx = 3 * (p2x - p1x) - cx
        ax = 1 - cx - bx
        cy = 3 * p1y
        by = 3 * (p2y - p1y) - cy
        ay = 1 - cy - by
    }

    /// The output progress for input time `x` (clamped to [0, 1]): x is solved
    /// for the curve parameter (Newton's method, then bisection if it stalls),
    /// and y is evaluated there. Accurate to well below 1e-6.
    @inline(__always)
    package func solve(_ x: Double) -> Double {
        if !(x > 0) { return 0 }
        if x >= 1 { return 1 }
        if isLinear { return x }
        return solveCurve(x)
    }

    private func solveCurve(_ x: Double) -> Double {
        let cx = cx, bxq = bx, axc = ax, cy = cy, byq = by, ayc = ay
        func curveX(_ t: Double) -> Double { ((axc * t + bxq) * t + cx) * t }
        func slopeX(_ t: Double) -> Double { (3 * axc * t + 2 * bxq) * t + cx }
        func curveY(_ t: Double) -> Double { ((ayc * t + byq) * t + cy) * t }
        // Newton's method, trusted only where x(t) is not flat: there a small
        // error in x means a small error in t, hence in y.
        var t = x
        for _ in 0..<8 {
            let d = slopeX(t)
            if abs(d) < 1e-3 { break }
            let step = (curveX(t) - x) / d
            t -= step
            if abs(step) < 1e-12, t >= 0, t <= 1 { return curveY(t) }
        }
        // Bisection on t (x(t) is monotonic for control x in [0, 1]), to a
        // bracket narrow enough that y is exact to double precision scale.
        var lo = 0.0, hi = 1.0
        while hi - lo > 1e-13 {
            let mid = (lo + hi) / 2
            if curveX(mid) < x { lo = mid } else { hi = mid }
        }
        t = (lo + hi) / 2
        return curveY(t)
    }
}
