import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel
import QuartziteRender

// The Core Animation Function Reference, with Apple's semantics: row vectors
// (p' = p * M), translation in m41..m43, and "t' = op * t" for the modifying
// functions. Non-finite arguments record QZErrorNotFinite; constructors then
// return the identity and modifiers their input unchanged.
//
// Threads: pure functions of their arguments; any thread.


/// True when t is exactly the identity.
@c public func CATransform3DIsIdentity(_ t: CATransform3D) -> Bool {
    t.isIdentity
}

/// True when the two transforms are exactly equal, entry by entry.
@c public func CATransform3DEqualToTransform(_ a: CATransform3D, _ b: CATransform3D) -> Bool {
    a.isEqual(to: b)
}

/// Returns [1 0 0 0; 0 1 0 0; 0 0 1 0; tx ty tz 1].
@c public func CATransform3DMakeTranslation(_ tx: Double, _ ty: Double, _ tz: Double) -> CATransform3D {
    checkFinite(tx, ty, tz, function: #function) ? CATransform3D(translationX: tx, y: ty, z: tz) : .identity
}

/// Returns [sx 0 0 0; 0 sy 0 0; 0 0 sz 0; 0 0 0 1].
@c public func CATransform3DMakeScale(_ sx: Double, _ sy: Double, _ sz: Double) -> CATransform3D {
    checkFinite(sx, sy, sz, function: #function) ? CATransform3D(scaleX: sx, y: sy, z: sz) : .identity
}

/// Returns a rotation by `angle` radians about the vector (x, y, z); about z,
/// m11 = cos, m12 = sin, m21 = -sin, m22 = cos. **Edge cases:** a zero-length
/// vector gives the identity (no error); quarter turns are exact.
@c public func CATransform3DMakeRotation(_ angle: Double, _ x: Double, _ y: Double, _ z: Double) -> CATransform3D {
    checkFinite(angle, x, y, z, function: #function) ? CATransform3D(rotationAngle: angle, x: x, y: y, z: z) : .identity
}

/// Returns translate(tx, ty, tz) * t: the translation happens before t.
@c public func CATransform3DTranslate(_ t: CATransform3D, _ tx: Double, _ ty: Double, _ tz: Double) -> CATransform3D {
    checkTransform(t, #function) && checkFinite(tx, ty, tz, function: #function) ? t.translatedBy(x: tx, y: ty, z: tz) : t
}

/// Returns scale(sx, sy, sz) * t.
@c public func CATransform3DScale(_ t: CATransform3D, _ sx: Double, _ sy: Double, _ sz: Double) -> CATransform3D {
    checkTransform(t, #function) && checkFinite(sx, sy, sz, function: #function) ? t.scaledBy(x: sx, y: sy, z: sz) : t
}

/// Returns rotation(angle, x, y, z) * t. **Edge cases:** Apple leaves a
/// zero-length vector undefined; Quartzite returns t unchanged.
@c public func CATransform3DRotate(_ t: CATransform3D, _ angle: Double, _ x: Double, _ y: Double, _ z: Double) -> CATransform3D {
    checkTransform(t, #function) && checkFinite(angle, x, y, z, function: #function) ? t.rotated(by: angle, x: x, y: y, z: z) : t
}

/// Returns a * b: a is applied first, then b. Non-finite input (detected in
/// the product) records QZErrorNotFinite and returns a.
// C export: CATransform3D CATransform3DConcat(CATransform3D a, CATransform3D b);
// Written in C (Sources/CQuartzite/transform_concat.c), which can choose an
// AVX body when the CPU has one; the same bits as a.concatenating(b). This
// is the same function for Swift callers of the module.
public func CATransform3DConcat(_ a: CATransform3D, _ b: CATransform3D) -> CATransform3D {
    qz_internal_concat(a, b)
}

/// Returns the inverse of t, or t unchanged when t has no inverse (no error:
/// that is Apple's documented behaviour).
@c public func CATransform3DInvert(_ t: CATransform3D) -> CATransform3D {
    var r = t
    if t.invert(into: &r) { return r }
    // Slow path: tell a non-finite input apart from a singular matrix.
    _ = checkTransform(t, #function)
    return t
}

/// Returns the 3D transform with the same effect as the affine transform m.
@c public func CATransform3DMakeAffineTransform(_ m: CGAffineTransform) -> CATransform3D {
    checkAffine(m, #function) ? CATransform3D(affine: m) : .identity
}

/// True when t can be exactly represented by an affine transform (it only
/// acts in the x-y plane and has no perspective).
@c public func CATransform3DIsAffine(_ t: CATransform3D) -> Bool {
    t.isAffine
}

/// Returns (a, b, c, d, tx, ty) = (m11, m12, m21, m22, m41, m42). When t is not
/// affine that is the x-y part of t (Apple leaves the result undefined).
@c public func CATransform3DGetAffineTransform(_ t: CATransform3D) -> CGAffineTransform {
    t.affine
}
