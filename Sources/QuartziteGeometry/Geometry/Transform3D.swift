import CQuartzite
import QuartziteCore
import Glibc

// CATransform3D: 4x4, row-vector convention (p' = p * M), translation in
// m41..m43. `a * b` applies a first, then b.

extension CATransform3D {
    @inlinable public static var identity: CATransform3D {
        CATransform3D(m11: 1, m12: 0, m13: 0, m14: 0, m21: 0, m22: 1, m23: 0, m24: 0,
                      m31: 0, m32: 0, m33: 1, m34: 0, m41: 0, m42: 0, m43: 0, m44: 1)
    }

    @inline(__always)
    @inlinable package init(rows r1: SIMD4<Double>, _ r2: SIMD4<Double>, _ r3: SIMD4<Double>, _ r4: SIMD4<Double>) {
        self.init(m11: r1.x, m12: r1.y, m13: r1.z, m14: r1.w, m21: r2.x, m22: r2.y, m23: r2.z, m24: r2.w,
                  m31: r3.x, m32: r3.y, m33: r3.z, m34: r3.w, m41: r4.x, m42: r4.y, m43: r4.z, m44: r4.w)
    }

    @inline(__always) @inlinable package var row1: SIMD4<Double> { SIMD4(m11, m12, m13, m14) }
    @inline(__always) @inlinable package var row2: SIMD4<Double> { SIMD4(m21, m22, m23, m24) }
    @inline(__always) @inlinable package var row3: SIMD4<Double> { SIMD4(m31, m32, m33, m34) }
    @inline(__always) @inlinable package var row4: SIMD4<Double> { SIMD4(m41, m42, m43, m44) }

    @inlinable public init(translationX tx: Double, y ty: Double, z tz: Double) {
        self = .identity
        m41 = tx; m42 = ty; m43 = tz
    }

    @inlinable public init(scaleX sx: Double, y sy: Double, z sz: Double) {
        self = .identity
        m11 = sx; m22 = sy; m33 = sz
    }

    /// Rotation by `angle` radians about the axis (x, y, z), counter-clockwise
    /// when looking down the axis towards the origin; identity for a zero axis.
    @inlinable public init(rotationAngle angle: Double, x: Double, y: Double, z: Double) {
        let length = (x * x + y * y + z * z).squareRoot()
        guard length > 0, length.isFinite else { self = .identity; return }
        let (s, c) = sinCos(angle)
        let (ux, uy, uz) = (x / length, y / length, z / length)
        let t = 1 - c
        self.init(m11: c + ux * ux * t, m12: ux * uy * t + uz * s, m13: ux * uz * t - uy * s, m14: 0,
                  m21: ux * uy * t - uz * s, m22: c + uy * uy * t, m23: uy * uz * t + ux * s, m24: 0,
                  m31: ux * uz * t + uy * s, m32: uy * uz * t - ux * s, m33: c + uz * uz * t, m34: 0,
                  m41: 0, m42: 0, m43: 0, m44: 1)
    }

    @inlinable public init(affine t: CGAffineTransform) {
        self = .identity
        m11 = t.a; m12 = t.b; m21 = t.c; m22 = t.d; m41 = t.tx; m42 = t.ty
    }

    /// `self * b`: apply self, then b (Apple's CATransform3DConcat(a, b)).
    @inline(__always)
    @inlinable public func concatenating(_ b: CATransform3D) -> CATransform3D {
        let b1 = b.row1, b2 = b.row2, b3 = b.row3, b4 = b.row4
        let r1 = m11 * b1 + m12 * b2 + m13 * b3 + m14 * b4
        let r2 = m21 * b1 + m22 * b2 + m23 * b3 + m24 * b4
        let r3 = m31 * b1 + m32 * b2 + m33 * b3 + m34 * b4
        let r4 = m41 * b1 + m42 * b2 + m43 * b3 + m44 * b4
        return CATransform3D(rows: r1, r2, r3, r4)
    }

    @inlinable public func translatedBy(x: Double, y: Double, z: Double) -> CATransform3D {
        // translate * self: only the last row changes.
        var t = self
        let r4 = x * row1 + y * row2 + z * row3 + row4
        t.m41 = r4.x; t.m42 = r4.y; t.m43 = r4.z; t.m44 = r4.w
        return t
    }

    @inlinable public func scaledBy(x: Double, y: Double, z: Double) -> CATransform3D {
        // scale * self: rows 1-3 scale.
        let r1 = x * row1, r2 = y * row2, r3 = z * row3
        return CATransform3D(rows: r1, r2, r3, row4)
    }

    @inlinable public func rotated(by angle: Double, x: Double, y: Double, z: Double) -> CATransform3D {
        CATransform3D(rotationAngle: angle, x: x, y: y, z: z).concatenating(self)
    }

    /// True when no entry is NaN or infinite.
    @inline(__always)
    @inlinable public var isFinite: Bool {
        // x * 0 is 0 for finite x and NaN otherwise; one NaN poisons the sum.
        let s = row1 * 0 + row2 * 0 + row3 * 0 + row4 * 0
        return (s.x + s.y + s.z + s.w) == 0
    }

    /// The inverse, or nil when the matrix is singular or not finite.
    @inlinable public var inverse: CATransform3D? {
        var r = CATransform3D.identity
        return invert(into: &r) ? r : nil
    }

    /// Writes the inverse into `r` and returns true, or returns false when the
    /// matrix is singular, not finite, or its inverse overflows. A non-finite
    /// entry always makes the determinant non-finite, so one check covers it.
    @inline(__always)
    @inlinable public func invert(into r: inout CATransform3D) -> Bool {
        // Cofactor expansion using 2x2 sub-determinants of the top and bottom halves.
        let s0 = m11 * m22 - m21 * m12, s1 = m11 * m23 - m21 * m13, s2 = m11 * m24 - m21 * m14
        let s3 = m12 * m23 - m22 * m13, s4 = m12 * m24 - m22 * m14, s5 = m13 * m24 - m23 * m14
        let c5 = m33 * m44 - m43 * m34, c4 = m32 * m44 - m42 * m34, c3 = m32 * m43 - m42 * m33
        let c2 = m31 * m44 - m41 * m34, c1 = m31 * m43 - m41 * m33, c0 = m31 * m42 - m41 * m32
        let det = s0 * c5 - s1 * c4 + s2 * c3 + s3 * c2 - s4 * c1 + s5 * c0
        guard det != 0, det.isFinite else { return false }
        let inv = 1 / det
        r.m11 = (m22 * c5 - m23 * c4 + m24 * c3) * inv
        r.m12 = (-m12 * c5 + m13 * c4 - m14 * c3) * inv
        r.m13 = (m42 * s5 - m43 * s4 + m44 * s3) * inv
        r.m14 = (-m32 * s5 + m33 * s4 - m34 * s3) * inv
        r.m21 = (-m21 * c5 + m23 * c2 - m24 * c1) * inv
        r.m22 = (m11 * c5 - m13 * c2 + m14 * c1) * inv
        r.m23 = (-m41 * s5 + m43 * s2 - m44 * s1) * inv
        r.m24 = (m31 * s5 - m33 * s2 + m34 * s1) * inv
        r.m31 = (m21 * c4 - m22 * c2 + m24 * c0) * inv
        r.m32 = (-m11 * c4 + m12 * c2 - m14 * c0) * inv
        r.m33 = (m41 * s4 - m42 * s2 + m44 * s0) * inv
        r.m34 = (-m31 * s4 + m32 * s2 - m34 * s0) * inv
        r.m41 = (-m21 * c3 + m22 * c1 - m23 * c0) * inv
        r.m42 = (m11 * c3 - m12 * c1 + m13 * c0) * inv
        r.m43 = (-m41 * s3 + m42 * s1 - m43 * s0) * inv
        r.m44 = (m31 * s3 - m32 * s1 + m33 * s0) * inv
        return r.isFinite
    }

    /// (Entry by entry, first to last: a transform that is not the identity
    /// usually differs in its first entries, and the test stops there.)
    @inlinable public var isIdentity: Bool {
        m11 == 1 && m12 == 0 && m13 == 0 && m14 == 0 && m21 == 0 && m22 == 1 && m23 == 0 && m24 == 0
            && m31 == 0 && m32 == 0 && m33 == 1 && m34 == 0 && m41 == 0 && m42 == 0 && m43 == 0 && m44 == 1
    }

    /// Exact, entry-by-entry equality (NaN is never equal).
    @inlinable public func isEqual(to b: CATransform3D) -> Bool {
        row1 == b.row1 && row2 == b.row2 && row3 == b.row3 && row4 == b.row4
    }

    /// True when the matrix only acts in the x-y plane, so an affine transform
    /// represents it exactly.
    @inlinable public var isAffine: Bool {
        m13 == 0 && m14 == 0 && m23 == 0 && m24 == 0 && m31 == 0 && m32 == 0 && m33 == 1
            && m34 == 0 && m43 == 0 && m44 == 1
    }

    @inlinable public var affine: CGAffineTransform {
        CGAffineTransform(a: m11, b: m12, c: m21, d: m22, tx: m41, ty: m42)
    }
}
