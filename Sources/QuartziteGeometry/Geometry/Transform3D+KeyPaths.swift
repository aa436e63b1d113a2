import CQuartzite
import QuartziteCore
import Glibc

// The transform field key paths of the KVC extensions (Table C-2):
// rotation(.x/.y/.z), scale(.x/.y/.z), translation(.x/.y/.z). Reading
// decomposes the matrix into scale, Euler rotation (x, then y, then z) and
// translation; writing replaces one component and recomposes, keeping the
// perspective column. Skew is not represented and is lost on a write.

package struct TransformComponents {
    package var scale: (Double, Double, Double)
    package var rotation: (Double, Double, Double)     // about x, y, z (radians)
    package var translation: (Double, Double, Double)

    package init(_ t: CATransform3D) {
        var r1 = SIMD3(t.m11, t.m12, t.m13), r2 = SIMD3(t.m21, t.m22, t.m23), r3 = SIMD3(t.m31, t.m32, t.m33)
        func length(_ v: SIMD3<Double>) -> Double { (v * v).sum().squareRoot() }
        var sx = length(r1)
        let sy = length(r2), sz = length(r3)
        // A reflection shows as a negative determinant: give it to x.
        let det = r1.x * (r2.y * r3.z - r2.z * r3.y) - r1.y * (r2.x * r3.z - r2.z * r3.x) + r1.z * (r2.x * r3.y - r2.y * r3.x)
        if det < 0 { sx = -sx }
        r1 = sx != 0 ? r1 / sx : SIMD3(1, 0, 0)
        r2 = sy != 0 ? r2 / sy : SIMD3(0, 1, 0)
        r3 = sz != 0 ? r3 / sz : SIMD3(0, 0, 1)
        scale = (sx, sy, sz)
        // R = Rx(a) * Ry(b) * Rz(c): R13 = -sin b, R12/R11 = tan c, R23/R33 = tan a.
        let sinB = Swift.max(-1, Swift.min(1, -r1.z))
        let b = asin(sinB)
        if abs(sinB) < 1 - 1e-12 {
            rotation = (atan2(r2.z, r3.z), b, atan2(r1.y, r1.x))
        } else {
            // Gimbal lock: fold the z rotation into x.
            rotation = (atan2(r2.x * sinB, r2.y), b, 0)
        }
        translation = (t.m41, t.m42, t.m43)
    }

    /// Recomposes scale * rotation, then translation, over `original`'s
    /// perspective column.
    package func transform(keepingColumnOf original: CATransform3D) -> CATransform3D {
        let rx = CATransform3D(rotationAngle: rotation.0, x: 1, y: 0, z: 0)
        let ry = CATransform3D(rotationAngle: rotation.1, x: 0, y: 1, z: 0)
        let rz = CATransform3D(rotationAngle: rotation.2, x: 0, y: 0, z: 1)
        var m = rx.concatenating(ry).concatenating(rz).scaledBy(x: scale.0, y: scale.1, z: scale.2)
        m.m41 = translation.0; m.m42 = translation.1; m.m43 = translation.2
        m.m14 = original.m14; m.m24 = original.m24; m.m34 = original.m34; m.m44 = original.m44
        return m
    }
}

extension CATransform3D {
    /// The value at a field key path ("rotation.z", "scale", "translation", ...),
    /// or nil for an unknown path.
    package func value(atFieldPath path: [Substring]) -> Value? {
        let c = TransformComponents(self)
        switch path.map(String.init) {
        case ["rotation"], ["rotation", "z"]: return Value(.number(c.rotation.2))
        case ["rotation", "x"]: return Value(.number(c.rotation.0))
        case ["rotation", "y"]: return Value(.number(c.rotation.1))
        case ["scale"]: return Value(.number((c.scale.0 + c.scale.1 + c.scale.2) / 3))
        case ["scale", "x"]: return Value(.number(c.scale.0))
        case ["scale", "y"]: return Value(.number(c.scale.1))
        case ["scale", "z"]: return Value(.number(c.scale.2))
        case ["translation"]: return Value(.size(CGSize(width: c.translation.0, height: c.translation.1)))
        case ["translation", "x"]: return Value(.number(c.translation.0))
        case ["translation", "y"]: return Value(.number(c.translation.1))
        case ["translation", "z"]: return Value(.number(c.translation.2))
        default: return nil
        }
    }

    /// The transform with one field replaced, or nil for an unknown path or a
    /// value of the wrong type.
    package func setting(fieldPath path: [Substring], to value: Value) -> CATransform3D? {
        var c = TransformComponents(self)
        let keys = path.map(String.init)
        if keys == ["translation"] {
            guard case .size(let s) = value.storage, s.width.isFinite, s.height.isFinite else { return nil }
            c.translation.0 = s.width
            c.translation.1 = s.height
            return c.transform(keepingColumnOf: self)
        }
        guard let n = value.number, n.isFinite else { return nil }
        switch keys {
        case ["rotation"], ["rotation", "z"]: c.rotation.2 = n
        case ["rotation", "x"]: c.rotation.0 = n
        case ["rotation", "y"]: c.rotation.1 = n
        case ["scale"]: c.scale = (n, n, n)
        case ["scale", "x"]: c.scale.0 = n
        case ["scale", "y"]: c.scale.1 = n
        case ["scale", "z"]: c.scale.2 = n
        case ["translation", "x"]: c.translation.0 = n
        case ["translation", "y"]: c.translation.1 = n
        case ["translation", "z"]: c.translation.2 = n
        default: return nil
        }
        return c.transform(keepingColumnOf: self)
    }
}
