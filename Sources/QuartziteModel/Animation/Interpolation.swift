import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import Glibc

// Arithmetic on animated values: interpolation (lerp), addition (additive
// and cumulative animations, byValue) and subtraction (byValue with toValue),
// for every animatable type. Types that cannot be interpolated (booleans,
// strings, objects) switch halfway.

extension Value {
    /// The zero of `sample`'s type (what a property with no value yet
    /// animates from or to), or nil for types without one.
    package static func zero(like sample: Value) -> Value? {
        switch sample.storage {
        case .number: return Value(.number(0))
        case .point: return Value(.point(CGPoint(x: 0, y: 0)))
        case .size: return Value(.size(CGSize(width: 0, height: 0)))
        case .rect: return Value(.rect(.zero))
        case .transform3D, .affineTransform: return Value(.transform3D(.identity))
        default: return nil
        }
    }

    /// The value a fraction `t` of the way from `a` to `b`.
    package static func interpolate(_ a: Value, _ b: Value, _ t: Double) -> Value {
        switch (a.storage, b.storage) {
        case let (.number(x), .number(y)): return Value(.number(x + (y - x) * t))
        case let (.point(p), .point(q)): return Value(.point(CGPoint(x: p.x + (q.x - p.x) * t, y: p.y + (q.y - p.y) * t)))
        case let (.size(p), .size(q)):
            return Value(.size(CGSize(width: p.width + (q.width - p.width) * t, height: p.height + (q.height - p.height) * t)))
        case let (.rect(p), .rect(q)):
            return Value(.rect(CGRect(x: p.origin.x + (q.origin.x - p.origin.x) * t, y: p.origin.y + (q.origin.y - p.origin.y) * t,
                                      width: p.size.width + (q.size.width - p.size.width) * t,
                                      height: p.size.height + (q.size.height - p.size.height) * t)))
        case let (.color(c), .color(d)): return Value(.color(Color.interpolate(c, d, t)))
        case let (.transform3D(m), .transform3D(n)): return Value(.transform3D(CATransform3D.interpolate(m, n, t)))
        case let (.affineTransform(m), .affineTransform(n)):
            return Value(.transform3D(CATransform3D.interpolate(CATransform3D(affine: m), CATransform3D(affine: n), t)))
        case let (.transform3D(m), .affineTransform(n)): return Value(.transform3D(CATransform3D.interpolate(m, CATransform3D(affine: n), t)))
        case let (.affineTransform(m), .transform3D(n)): return Value(.transform3D(CATransform3D.interpolate(CATransform3D(affine: m), n, t)))
        case let (.array(xs), .array(ys)) where xs.count == ys.count:
            return Value(.array(zip(xs, ys).map { interpolate($0, $1, t) }))
        case let (.dictionary(x), .dictionary(y)) where x.count == y.count && zip(x.keys, y.keys).allSatisfy({ $0.string == $1.string }):
            // Dictionaries with the same keys (a filter and its inputs, say)
            // interpolate entry by entry; strings among them (its name) jump.
            var d = ValueDictionary()
            for (k, v) in zip(x.keys, zip(x.values, y.values)) { d.set(interpolate(v.0, v.1, t), for: k.string) }
            return Value(.dictionary(d))
        case let (.object(x as Path), .object(y as Path)):
            // Paths with the same elements in the same order morph point by point.
            if let p = Path.interpolate(x, y, t) { return Value(.object(p)) }
            return t < 0.5 ? a : b
        default:
            return t < 0.5 ? a : b
        }
    }

    /// a + b: sums for numbers and geometry, component sums for colours,
    /// concatenation for transforms (b applied first, then a), element-wise for arrays.
    package static func add(_ a: Value, _ b: Value) -> Value {
        switch (a.storage, b.storage) {
        case let (.number(x), .number(y)): return Value(.number(x + y))
        case let (.point(p), .point(q)): return Value(.point(CGPoint(x: p.x + q.x, y: p.y + q.y)))
        case let (.size(p), .size(q)): return Value(.size(CGSize(width: p.width + q.width, height: p.height + q.height)))
        case let (.rect(p), .rect(q)):
            return Value(.rect(CGRect(x: p.origin.x + q.origin.x, y: p.origin.y + q.origin.y,
                                      width: p.size.width + q.size.width, height: p.size.height + q.size.height)))
        case let (.color(c), .color(d)):
            return Value(.color(Color(space: .sRGB, components: Array((0..<4).map { c.rgba[$0] + d.rgba[$0] }))))
        case (.transform3D, _), (.affineTransform, _):
            guard let m = a.transform3D, let n = b.transform3D else { return b }
            return Value(.transform3D(n.concatenating(m)))
        case let (.array(xs), .array(ys)) where xs.count == ys.count:
            return Value(.array(zip(xs, ys).map { add($0, $1) }))
        default:
            return b
        }
    }

    /// a - b, the inverse of `add` (for toValue with byValue).
    package static func subtract(_ a: Value, _ b: Value) -> Value {
        switch (a.storage, b.storage) {
        case let (.number(x), .number(y)): return Value(.number(x - y))
        case let (.point(p), .point(q)): return Value(.point(CGPoint(x: p.x - q.x, y: p.y - q.y)))
        case let (.size(p), .size(q)): return Value(.size(CGSize(width: p.width - q.width, height: p.height - q.height)))
        case let (.rect(p), .rect(q)):
            return Value(.rect(CGRect(x: p.origin.x - q.origin.x, y: p.origin.y - q.origin.y,
                                      width: p.size.width - q.size.width, height: p.size.height - q.size.height)))
        case let (.color(c), .color(d)):
            return Value(.color(Color(space: .sRGB, components: Array((0..<4).map { c.rgba[$0] - d.rgba[$0] }))))
        case (.transform3D, _), (.affineTransform, _):
            guard let m = a.transform3D, let n = b.transform3D, let inv = n.inverse else { return a }
            return Value(.transform3D(inv.concatenating(m)))
        case let (.array(xs), .array(ys)) where xs.count == ys.count:
            return Value(.array(zip(xs, ys).map { subtract($0, $1) }))
        default:
            return a
        }
    }

    /// `a` added to itself `n` times (cumulative repeats); the zero of its type for n = 0.
    package static func repeated(_ a: Value, _ n: Int) -> Value? {
        guard n > 0 else { return nil }
        if let x = a.number, case .number = a.storage { return Value(.number(x * Double(n))) }
        var result = a
        for _ in 1..<Swift.min(n, 10_000) { result = add(result, a) }
        return result
    }

    package var transform3D: CATransform3D? {
        switch storage {
        case .transform3D(let t): return t
        case .affineTransform(let t): return CATransform3D(affine: t)
        default: return nil
        }
    }
}

extension Color {
    /// Interpolates premultiplied components (so a fade to transparent does not
    /// pass through the transparent colour's hue), in sRGB.
    package static func interpolate(_ a: Color, _ b: Color, _ t: Double) -> Color {
        let p = a.rgba, q = b.rgba
        let pa = SIMD4(p.x * p.w, p.y * p.w, p.z * p.w, p.w)
        let qa = SIMD4(q.x * q.w, q.y * q.w, q.z * q.w, q.w)
        let r = pa + (qa - pa) * t
        if r.w <= 0 { return Color(space: .sRGB, components: [0, 0, 0, 0]) }
        return Color(space: .sRGB, components: [r.x / r.w, r.y / r.w, r.z / r.w, r.w])
    }
}

/// A 3D transform taken apart: perspective, translation, scale, skew and a
/// rotation quaternion, such that recomposing gives the matrix back.
package struct DecomposedTransform {
    package var perspective: SIMD4<Double>
    package var translation: SIMD3<Double>
    package var scale: SIMD3<Double>
    package var skew: SIMD3<Double>          // xy, xz, yz
    package var quaternion: SIMD4<Double>    // x, y, z, w

    package init?(_ m: CATransform3D) {
        guard m.m44 != 0, m.isFinite else { return nil }
        var n = m
        let k = 1 / m.m44
        n = CATransform3D(rows: m.row1 * k, m.row2 * k, m.row3 * k, m.row4 * k)
        // Perspective: M = N * P, where N has the plain last column.
        var plain = n
        plain.m14 = 0; plain.m24 = 0; plain.m34 = 0; plain.m44 = 1
        guard let inverse = plain.inverse else { return nil }
        if n.m14 != 0 || n.m24 != 0 || n.m34 != 0 {
            let column = SIMD4(n.m14, n.m24, n.m34, n.m44)
            perspective = SIMD4((inverse.row1 * column).sum(), (inverse.row2 * column).sum(),
                                (inverse.row3 * column).sum(), (inverse.row4 * column).sum())
        } else {
            perspective = SIMD4(0, 0, 0, 1)
        }
        translation = SIMD3(n.m41, n.m42, n.m43)
        var r0 = SIMD3(n.m11, n.m12, n.m13), r1 = SIMD3(n.m21, n.m22, n.m23), r2 = SIMD3(n.m31, n.m32, n.m33)
        func length(_ v: SIMD3<Double>) -> Double { (v * v).sum().squareRoot() }
        func dot(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double { (a * b).sum() }
        var sx = length(r0)
        guard sx > 0 else { return nil }
        r0 /= sx
        var xy = dot(r0, r1)
        r1 -= xy * r0
        var sy = length(r1)
        guard sy > 0 else { return nil }
        r1 /= sy
        xy /= sy
        var xz = dot(r0, r2)
        r2 -= xz * r0
        var yz = dot(r1, r2)
        r2 -= yz * r1
        var sz = length(r2)
        guard sz > 0 else { return nil }
        r2 /= sz
        xz /= sz
        yz /= sz
        // A reflection: flip everything so the rows form a rotation.
        let cross = SIMD3(r1.y * r2.z - r1.z * r2.y, r1.z * r2.x - r1.x * r2.z, r1.x * r2.y - r1.y * r2.x)
        if dot(r0, cross) < 0 {
            sx = -sx; sy = -sy; sz = -sz
            r0 = -r0; r1 = -r1; r2 = -r2
        }
        scale = SIMD3(sx, sy, sz)
        skew = SIMD3(xy, xz, yz)
        quaternion = DecomposedTransform.quaternion(rows: r0, r1, r2)
    }

    /// The unit quaternion of a rotation given by its rows (row-vector
    /// convention: p' = p * R), by Shepperd's method on R's transpose.
    package static func quaternion(rows r0: SIMD3<Double>, _ r1: SIMD3<Double>, _ r2: SIMD3<Double>) -> SIMD4<Double> {
        // Column-convention matrix C = R^T: C[i][j] = R[j][i].
        let c00 = r0.x, c01 = r1.x, c02 = r2.x
        let c10 = r0.y, c11 = r1.y, c12 = r2.y
        let c20 = r0.z, c21 = r1.z, c22 = r2.z
        let trace = c00 + c11 + c22
        var q: SIMD4<Double>
        if trace > 0 {
            let s = (trace + 1).squareRoot() * 2
            q = SIMD4((c21 - c12) / s, (c02 - c20) / s, (c10 - c01) / s, s / 4)
        } else if c00 > c11 && c00 > c22 {
            let s = (1 + c00 - c11 - c22).squareRoot() * 2
            q = SIMD4(s / 4, (c01 + c10) / s, (c02 + c20) / s, (c21 - c12) / s)
        } else if c11 > c22 {
            let s = (1 + c11 - c00 - c22).squareRoot() * 2
            q = SIMD4((c01 + c10) / s, s / 4, (c12 + c21) / s, (c02 - c20) / s)
        } else {
            let s = (1 + c22 - c00 - c11).squareRoot() * 2
            q = SIMD4((c02 + c20) / s, (c12 + c21) / s, s / 4, (c10 - c01) / s)
        }
        return q / (q * q).sum().squareRoot()
    }

    package var matrix: CATransform3D {
        let (x, y, z, w) = (quaternion.x, quaternion.y, quaternion.z, quaternion.w)
        // Rotation rows (the transpose of the column-convention matrix).
        let u0 = SIMD3(1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w))
        let u1 = SIMD3(2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w))
        let u2 = SIMD3(2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y))
        let r0 = scale.x * u0
        let r1 = scale.y * (u1 + skew.x * u0)
        let r2 = scale.z * (u2 + skew.y * u0 + skew.z * u1)
        let n = CATransform3D(m11: r0.x, m12: r0.y, m13: r0.z, m14: 0, m21: r1.x, m22: r1.y, m23: r1.z, m24: 0,
                              m31: r2.x, m32: r2.y, m33: r2.z, m34: 0,
                              m41: translation.x, m42: translation.y, m43: translation.z, m44: 1)
        if perspective == SIMD4(0, 0, 0, 1) { return n }
        var p = CATransform3D.identity
        p.m14 = perspective.x; p.m24 = perspective.y; p.m34 = perspective.z; p.m44 = perspective.w
        return n.concatenating(p)
    }

    /// Spherical interpolation of the rotation (the short way), linear for the rest.
    package static func interpolate(_ a: DecomposedTransform, _ b: DecomposedTransform, _ t: Double) -> DecomposedTransform {
        var q2 = b.quaternion
        let rotation = Slerp(from: a.quaternion, to: &q2)
        return interpolate(a, b, shortWay: q2, t, rotation)
    }

    /// What a slerp between two fixed quaternions computes once (an animation
    /// resolves it when its plan is made; a frame then needs no `acos` and
    /// one `sin` fewer): whether the quaternions are nearly parallel (then
    /// normalised linear interpolation), else the angle between them and its sine.
    package struct Slerp {
        package let theta: Double
        package let sinTheta: Double
        package let nearlyParallel: Bool

        /// `q2` becomes the end quaternion on the short way (negated when the
        /// two are more than a half turn apart).
        package init(from q1: SIMD4<Double>, to q2: inout SIMD4<Double>) {
            var d = (q1 * q2).sum()
            if d < 0 { q2 = -q2; d = -d }
            nearlyParallel = d > 0.9995
            theta = nearlyParallel ? 0 : acos(Swift.min(d, 1))
            sinTheta = nearlyParallel ? 0 : sin(theta)
        }
    }

    /// `interpolate(_:_:_:)` with the rotation prepared: `q2` is `b`'s
    /// quaternion on the short way and `rotation` its Slerp (same operations,
    /// same results).
    @inline(__always)
    package static func interpolate(_ a: DecomposedTransform, _ b: DecomposedTransform, shortWay q2: SIMD4<Double>, _ t: Double,
                            _ rotation: Slerp) -> DecomposedTransform {
        var r = a
        r.perspective = a.perspective + (b.perspective - a.perspective) * t
        r.translation = a.translation + (b.translation - a.translation) * t
        r.scale = a.scale + (b.scale - a.scale) * t
        r.skew = a.skew + (b.skew - a.skew) * t
        if rotation.nearlyParallel {
            let q = a.quaternion + (q2 - a.quaternion) * t
            r.quaternion = q / (q * q).sum().squareRoot()
        } else {
            let theta = rotation.theta, s = rotation.sinTheta
            r.quaternion = a.quaternion * (sin((1 - t) * theta) / s) + q2 * (sin(t * theta) / s)
        }
        return r
    }
}

extension CATransform3D {
    /// Interpolates by decomposition (rotation slerped the short way); entry
    /// by entry when either matrix cannot be decomposed.
    package static func interpolate(_ a: CATransform3D, _ b: CATransform3D, _ t: Double) -> CATransform3D {
        if let da = DecomposedTransform(a), let db = DecomposedTransform(b) {
            return DecomposedTransform.interpolate(da, db, t).matrix
        }
        return CATransform3D(rows: a.row1 + (b.row1 - a.row1) * t, a.row2 + (b.row2 - a.row2) * t,
                             a.row3 + (b.row3 - a.row3) * t, a.row4 + (b.row4 - a.row4) * t)
    }
}

extension Path {
    /// The path a fraction `t` of the way from `a` to `b`, when both have the
    /// same element kinds in the same order; nil otherwise.
    package static func interpolate(_ a: Path, _ b: Path, _ t: Double) -> Path? {
        let da = a.read { $0 }, db = b.read { $0 }
        guard da.kinds == db.kinds, da.points.count == db.points.count else { return nil }
        var elements: [PathElement] = []
        for i in 0..<da.count {
            let ea = da.element(at: i), eb = db.element(at: i)
            let pts = zip(ea.points, eb.points).map { CGPoint(x: $0.x + ($1.x - $0.x) * t, y: $0.y + ($1.y - $0.y) * t) }
            switch ea {
            case .moveTo: elements.append(.moveTo(pts[0]))
            case .lineTo: elements.append(.lineTo(pts[0]))
            case .quadCurveTo: elements.append(.quadCurveTo(pts[0], pts[1]))
            case .curveTo: elements.append(.curveTo(pts[0], pts[1], pts[2]))
            case .closeSubpath: elements.append(.closeSubpath)
            }
        }
        guard let data = try? PathData(elements) else { return nil }
        return Path(data, mutable: false)
    }
}
