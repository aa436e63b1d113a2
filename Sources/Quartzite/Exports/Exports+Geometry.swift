import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel
import QuartziteRender

// CGPoint / CGSize / CGRect helpers with Core Graphics' semantics. Infinite
// coordinates are allowed (the null and infinite rectangles use them); NaN is
// rejected with QZErrorNotFinite and a neutral result (zero, null or false).
//
// Threads: pure functions of their arguments; any thread.


// MARK: - Construction

/// Returns the point (x, y). NaN records QZErrorNotFinite and returns CGPointZero.
@c public func CGPointMake(_ x: Double, _ y: Double) -> CGPoint {
    checkNumbers(x, y, function: #function) ? CGPoint(x: x, y: y) : CGPoint(x: 0, y: 0)
}

/// Returns the size (width, height). NaN records QZErrorNotFinite and returns CGSizeZero.
@c public func CGSizeMake(_ width: Double, _ height: Double) -> CGSize {
    checkNumbers(width, height, function: #function) ? CGSize(width: width, height: height) : CGSize(width: 0, height: 0)
}

/// Returns the rectangle (x, y, width, height). NaN records QZErrorNotFinite and
/// returns CGRectNull.
@c public func CGRectMake(_ x: Double, _ y: Double, _ width: Double, _ height: Double) -> CGRect {
    checkNumbers(x, y, width, height, function: #function) ? CGRect(x: x, y: y, width: width, height: height) : .null
}

// MARK: - Reading

/// Smallest x of the rectangle (handles negative widths).
@c public func CGRectGetMinX(_ r: CGRect) -> Double { checkRect(r, #function) ? r.minX : 0 }
/// x of the centre.
@c public func CGRectGetMidX(_ r: CGRect) -> Double { checkRect(r, #function) ? r.midX : 0 }
/// Largest x of the rectangle.
@c public func CGRectGetMaxX(_ r: CGRect) -> Double { checkRect(r, #function) ? r.maxX : 0 }
/// Smallest y of the rectangle (handles negative heights).
@c public func CGRectGetMinY(_ r: CGRect) -> Double { checkRect(r, #function) ? r.minY : 0 }
/// y of the centre.
@c public func CGRectGetMidY(_ r: CGRect) -> Double { checkRect(r, #function) ? r.midY : 0 }
/// Largest y of the rectangle.
@c public func CGRectGetMaxY(_ r: CGRect) -> Double { checkRect(r, #function) ? r.maxY : 0 }
/// Width as a non-negative number.
@c public func CGRectGetWidth(_ r: CGRect) -> Double { checkRect(r, #function) ? r.width : 0 }
/// Height as a non-negative number.
@c public func CGRectGetHeight(_ r: CGRect) -> Double { checkRect(r, #function) ? r.height : 0 }

/// True for the null rectangle and for zero width or height.
@c public func CGRectIsEmpty(_ r: CGRect) -> Bool { checkRect(r, #function) ? r.isEmpty : true }
/// True for the null rectangle (an infinite origin).
@c public func CGRectIsNull(_ r: CGRect) -> Bool { checkRect(r, #function) ? r.isNull : false }
/// True for CGRectInfinite.
@c public func CGRectIsInfinite(_ r: CGRect) -> Bool { checkRect(r, #function) ? r.isInfinite : false }

// MARK: - Deriving

/// The same rectangle with non-negative width and height.
@c public func CGRectStandardize(_ r: CGRect) -> CGRect { checkRect(r, #function) ? r.standardized : .null }

/// The overlap of two rectangles; CGRectNull when they are disjoint or either
/// is null. Rectangles that only share an edge give a zero-sized rectangle.
@c public func CGRectIntersection(_ r1: CGRect, _ r2: CGRect) -> CGRect {
    checkRect(r1, #function) && checkRect(r2, #function) ? r1.intersection(r2) : .null
}

/// The smallest rectangle containing both; a null rectangle is ignored.
@c public func CGRectUnion(_ r1: CGRect, _ r2: CGRect) -> CGRect {
    checkRect(r1, #function) && checkRect(r2, #function) ? r1.union(r2) : .null
}

/// The standardized rectangle moved in by dx on the left and right and dy on
/// top and bottom (negative values grow it); CGRectNull if the result would
/// have a negative size.
@c public func CGRectInset(_ r: CGRect, _ dx: Double, _ dy: Double) -> CGRect {
    checkRect(r, #function) && checkNumbers(dx, dy, function: #function) ? r.insetBy(dx: dx, dy: dy) : .null
}

/// The standardized rectangle moved by (dx, dy).
@c public func CGRectOffset(_ r: CGRect, _ dx: Double, _ dy: Double) -> CGRect {
    checkRect(r, #function) && checkNumbers(dx, dy, function: #function) ? r.offsetBy(dx: dx, dy: dy) : .null
}

/// The smallest rectangle with integer coordinates that contains `r`.
@c public func CGRectIntegral(_ r: CGRect) -> CGRect { checkRect(r, #function) ? r.integral : .null }

// MARK: - Tests

/// True when `point` lies inside `rect`; the max edges are outside.
@c public func CGRectContainsPoint(_ rect: CGRect, _ point: CGPoint) -> Bool {
    checkRect(rect, #function) && checkPoint(point, #function) ? rect.contains(point) : false
}

/// True when `r2` lies entirely inside `r1`.
@c public func CGRectContainsRect(_ r1: CGRect, _ r2: CGRect) -> Bool {
    checkRect(r1, #function) && checkRect(r2, #function) ? r1.contains(r2) : false
}

/// True when the intersection of the rectangles is not null.
@c public func CGRectIntersectsRect(_ r1: CGRect, _ r2: CGRect) -> Bool {
    checkRect(r1, #function) && checkRect(r2, #function) ? r1.intersects(r2) : false
}

/// True when the standardized rectangles are equal (all null rectangles are equal).
@c public func CGRectEqualToRect(_ r1: CGRect, _ r2: CGRect) -> Bool {
    checkRect(r1, #function) && checkRect(r2, #function) ? r1.isEqual(to: r2) : false
}

/// True when both coordinates are equal.
@c public func CGPointEqualToPoint(_ p1: CGPoint, _ p2: CGPoint) -> Bool {
    checkPoint(p1, #function) && checkPoint(p2, #function) ? (p1.x == p2.x && p1.y == p2.y) : false
}

/// True when both dimensions are equal.
@c public func CGSizeEqualToSize(_ s1: CGSize, _ s2: CGSize) -> Bool {
    checkSize(s1, #function) && checkSize(s2, #function) ? (s1.width == s2.width && s1.height == s2.height) : false
}
