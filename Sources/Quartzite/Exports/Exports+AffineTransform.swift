import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel
import QuartziteRender

// CGAffineTransform functions with Core Graphics' semantics: row vectors,
// x' = a*x + c*y + tx, y' = b*x + d*y + ty. Non-finite arguments record
// QZErrorNotFinite; constructors then return the identity and modifiers their
// input unchanged.
//
// Threads: pure functions of their arguments; any thread.


/// Returns the transform [a b 0; c d 0; tx ty 1].
@c public func CGAffineTransformMake(_ a: Double, _ b: Double, _ c: Double, _ d: Double, _ tx: Double, _ ty: Double) -> CGAffineTransform {
    checkFinite(a, b, c, d, tx, ty, function: #function) ? CGAffineTransform(a: a, b: b, c: c, d: d, tx: tx, ty: ty) : .identity
}

/// Returns a translation by (tx, ty).
@c public func CGAffineTransformMakeTranslation(_ tx: Double, _ ty: Double) -> CGAffineTransform {
    checkFinite(tx, ty, function: #function) ? CGAffineTransform(translationX: tx, y: ty) : .identity
}

/// Returns a scale by (sx, sy).
@c public func CGAffineTransformMakeScale(_ sx: Double, _ sy: Double) -> CGAffineTransform {
    checkFinite(sx, sy, function: #function) ? CGAffineTransform(scaleX: sx, y: sy) : .identity
}

/// Returns a rotation by `angle` radians: [cos sin; -sin cos].
@c public func CGAffineTransformMakeRotation(_ angle: Double) -> CGAffineTransform {
    checkFinite(angle, function: #function) ? CGAffineTransform(rotationAngle: angle) : .identity
}

/// Returns translate(tx, ty) * t: the translation happens before t.
@c public func CGAffineTransformTranslate(_ t: CGAffineTransform, _ tx: Double, _ ty: Double) -> CGAffineTransform {
    checkAffine(t, #function) && checkFinite(tx, ty, function: #function) ? t.translatedBy(x: tx, y: ty) : t
}

/// Returns scale(sx, sy) * t.
@c public func CGAffineTransformScale(_ t: CGAffineTransform, _ sx: Double, _ sy: Double) -> CGAffineTransform {
    checkAffine(t, #function) && checkFinite(sx, sy, function: #function) ? t.scaledBy(x: sx, y: sy) : t
}

/// Returns rotate(angle) * t.
@c public func CGAffineTransformRotate(_ t: CGAffineTransform, _ angle: Double) -> CGAffineTransform {
    checkAffine(t, #function) && checkFinite(angle, function: #function) ? t.rotated(by: angle) : t
}

/// Returns t1 * t2: t1 is applied first, then t2.
@c public func CGAffineTransformConcat(_ t1: CGAffineTransform, _ t2: CGAffineTransform) -> CGAffineTransform {
    checkAffine(t1, #function) && checkAffine(t2, #function) ? t1.concatenating(t2) : t1
}

/// Returns the inverse of t, or t unchanged when it is singular.
@c public func CGAffineTransformInvert(_ t: CGAffineTransform) -> CGAffineTransform {
    checkAffine(t, #function) ? (t.inverse ?? t) : t
}

/// True when t is exactly the identity.
@c public func CGAffineTransformIsIdentity(_ t: CGAffineTransform) -> Bool {
    t.isIdentity
}

/// True when every entry is exactly equal.
@c public func CGAffineTransformEqualToTransform(_ t1: CGAffineTransform, _ t2: CGAffineTransform) -> Bool {
    t1.isEqual(to: t2)
}

/// Returns (a*x + c*y + tx, b*x + d*y + ty).
@c public func CGPointApplyAffineTransform(_ point: CGPoint, _ t: CGAffineTransform) -> CGPoint {
    checkPoint(point, #function) && checkAffine(t, #function) ? point.applying(t) : point
}

/// Returns (a*w + c*h, b*w + d*h): sizes ignore the translation.
@c public func CGSizeApplyAffineTransform(_ size: CGSize, _ t: CGAffineTransform) -> CGSize {
    checkSize(size, #function) && checkAffine(t, #function) ? size.applying(t) : size
}

/// Returns the bounding box of the transformed rectangle's corners; the null
/// rectangle stays null.
@c public func CGRectApplyAffineTransform(_ rect: CGRect, _ t: CGAffineTransform) -> CGRect {
    checkRect(rect, #function) && checkAffine(t, #function) ? rect.applying(t) : rect
}
