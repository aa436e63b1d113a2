import CQuartzite

// A 3x3 projective map of the plane: what a layer's 4x4 transform chain does
// to points of its plane (z = 0), with z dropped. The model converts points
// between layers with it and the renderer maps layer rectangles to target
// pixels with it, so it lives below both.

/// A 3x3 projective map of the plane, row-vector convention: (x, y, 1) * H.
@usableFromInline package struct Homography {
    @usableFromInline package var m: (Double, Double, Double, Double, Double, Double, Double, Double, Double)

    @inlinable package static var identity: Homography { Homography(m: (1, 0, 0, 0, 1, 0, 0, 0, 1)) }

    /// The plane-to-plane part of a 4x4 transform acting on points with z = 0.
    @inlinable package init(_ t: CATransform3D) {
        m = (t.m11, t.m12, t.m14, t.m21, t.m22, t.m24, t.m41, t.m42, t.m44)
    }

    @inlinable package init(m: (Double, Double, Double, Double, Double, Double, Double, Double, Double)) { self.m = m }

    @inlinable package func apply(_ p: CGPoint) -> CGPoint {
        let x = p.x * m.0 + p.y * m.3 + m.6
        let y = p.x * m.1 + p.y * m.4 + m.7
        let w = p.x * m.2 + p.y * m.5 + m.8
        return CGPoint(x: x / w, y: y / w)
    }

    /// self, then other.
    @inlinable package func then(_ o: Homography) -> Homography {
        let a = m, b = o.m
        return Homography(m: (a.0 * b.0 + a.1 * b.3 + a.2 * b.6, a.0 * b.1 + a.1 * b.4 + a.2 * b.7, a.0 * b.2 + a.1 * b.5 + a.2 * b.8,
                              a.3 * b.0 + a.4 * b.3 + a.5 * b.6, a.3 * b.1 + a.4 * b.4 + a.5 * b.7, a.3 * b.2 + a.4 * b.5 + a.5 * b.8,
                              a.6 * b.0 + a.7 * b.3 + a.8 * b.6, a.6 * b.1 + a.7 * b.4 + a.8 * b.7, a.6 * b.2 + a.7 * b.5 + a.8 * b.8))
    }

    @inlinable package var inverse: Homography? {
        let (a, b, c, d, e, f, g, h, i) = m
        let c0 = e * i - f * h, c1 = f * g - d * i, c2 = d * h - e * g
        let det = a * c0 + b * c1 + c * c2
        guard det != 0, det.isFinite else { return nil }
        let r = 1 / det
        return Homography(m: (c0 * r, (c * h - b * i) * r, (b * f - c * e) * r,
                              c1 * r, (a * i - c * g) * r, (c * d - a * f) * r,
                              c2 * r, (b * g - a * h) * r, (a * e - b * d) * r))
    }
}
