import CQuartzite
import QuartziteCore

// CGAffineTransform [a b 0; c d 0; tx ty 1], row vectors: x' = a x + c y + tx.

extension CGAffineTransform {
    @inlinable public static var identity: CGAffineTransform { CGAffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0) }

    @inlinable public init(translationX tx: Double, y ty: Double) {
        self.init(a: 1, b: 0, c: 0, d: 1, tx: tx, ty: ty)
    }
    @inlinable public init(scaleX sx: Double, y sy: Double) {
        self.init(a: sx, b: 0, c: 0, d: sy, tx: 0, ty: 0)
    }
    @inlinable public init(rotationAngle angle: Double) {
        let (s, c) = sinCos(angle)
        self.init(a: c, b: s, c: -s, d: c, tx: 0, ty: 0)
    }

    @inlinable public var hasNaN: Bool { a.isNaN || b.isNaN || c.isNaN || d.isNaN || tx.isNaN || ty.isNaN }
    @inlinable public var isFinite: Bool { a.isFinite && b.isFinite && c.isFinite && d.isFinite && tx.isFinite && ty.isFinite }

    /// `self * other`: apply self first, then other (Apple's CGAffineTransformConcat).
    @inlinable public func concatenating(_ t: CGAffineTransform) -> CGAffineTransform {
        CGAffineTransform(a: a * t.a + b * t.c, b: a * t.b + b * t.d,
                          c: c * t.a + d * t.c, d: c * t.b + d * t.d,
                          tx: tx * t.a + ty * t.c + t.tx, ty: tx * t.b + ty * t.d + t.ty)
    }
    @inlinable public func translatedBy(x: Double, y: Double) -> CGAffineTransform {
        CGAffineTransform(translationX: x, y: y).concatenating(self)
    }
    @inlinable public func scaledBy(x: Double, y: Double) -> CGAffineTransform {
        CGAffineTransform(scaleX: x, y: y).concatenating(self)
    }
    @inlinable public func rotated(by angle: Double) -> CGAffineTransform {
        CGAffineTransform(rotationAngle: angle).concatenating(self)
    }

    /// The inverse, or nil when the transform is singular.
    @inlinable public var inverse: CGAffineTransform? {
        let det = a * d - b * c
        guard det != 0, det.isFinite else { return nil }
        let ia = d / det, ib = -b / det, ic = -c / det, id = a / det
        return CGAffineTransform(a: ia, b: ib, c: ic, d: id,
                                 tx: -(tx * ia + ty * ic), ty: -(tx * ib + ty * id))
    }

    @inlinable public var isIdentity: Bool { a == 1 && b == 0 && c == 0 && d == 1 && tx == 0 && ty == 0 }

    @inlinable public func isEqual(to t: CGAffineTransform) -> Bool {
        a == t.a && b == t.b && c == t.c && d == t.d && tx == t.tx && ty == t.ty
    }
}

extension CGPoint {
    @inlinable public func applying(_ t: CGAffineTransform) -> CGPoint {
        CGPoint(x: t.a * x + t.c * y + t.tx, y: t.b * x + t.d * y + t.ty)
    }
}

extension CGSize {
    /// Sizes are vectors: the translation does not apply.
    @inlinable public func applying(_ t: CGAffineTransform) -> CGSize {
        CGSize(width: t.a * width + t.c * height, height: t.b * width + t.d * height)
    }
}

extension CGRect {
    /// The bounding box of the transformed corners; the null rectangle stays null.
    @inlinable public func applying(_ t: CGAffineTransform) -> CGRect {
        if isNull { return .null }
        let r = standardized
        let corners = [CGPoint(x: r.minX, y: r.minY), CGPoint(x: r.maxX, y: r.minY),
                       CGPoint(x: r.minX, y: r.maxY), CGPoint(x: r.maxX, y: r.maxY)].map { $0.applying(t) }
        var x0 = corners[0].x, x1 = x0, y0 = corners[0].y, y1 = y0
        for p in corners.dropFirst() {
            x0 = Swift.min(x0, p.x); x1 = Swift.max(x1, p.x)
            y0 = Swift.min(y0, p.y); y1 = Swift.max(y1, p.y)
        }
        return CGRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}

/// sin and cos of an angle, exact at multiples of π/2 (so that a quarter turn
/// gives exactly 0 and ±1, as users comparing matrices expect).
@inline(__always)
@inlinable package func sinCos(_ angle: Double) -> (Double, Double) {
    let quarter = angle / (Double.pi / 2)
    // Integer round trip instead of libm's round(): this runs on every rotation.
    if abs(quarter) < 1e15 {
        let turns = Int64(quarter)
        if Double(turns) == quarter {
            switch turns & 3 {
            case 0: return (0, 1)
            case 1: return (1, 0)
            case 2: return (0, -1)
            default: return (-1, 0)
            }
        }
    }
    var s = 0.0, c = 0.0
    sincos(angle, &s, &c)
    return (s, c)
}
