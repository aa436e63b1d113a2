import CQuartzite
import QuartziteCore

// Apple's CGGeometry semantics. A rectangle may have a negative width or height
// (its "standardized" form flips it); the null rectangle has an infinite origin
// and is the result of intersecting disjoint rectangles.

extension CGPoint {
    @inline(__always) public var hasNaN: Bool { x.isNaN || y.isNaN }
    @inline(__always) public var isFinite: Bool { x.isFinite && y.isFinite }
}

extension CGSize {
    @inline(__always) public var hasNaN: Bool { width.isNaN || height.isNaN }
}

extension CGRect {
    public static var null: CGRect { CGRect(origin: CGPoint(x: .infinity, y: .infinity), size: CGSize(width: 0, height: 0)) }
    public static var infinite: CGRect {
        CGRect(origin: CGPoint(x: -Double.greatestFiniteMagnitude / 2, y: -Double.greatestFiniteMagnitude / 2),
               size: CGSize(width: .greatestFiniteMagnitude, height: .greatestFiniteMagnitude))
    }
    public static var zero: CGRect { CGRect(origin: CGPoint(x: 0, y: 0), size: CGSize(width: 0, height: 0)) }

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.init(origin: CGPoint(x: x, y: y), size: CGSize(width: width, height: height))
    }

    @inline(__always) public var hasNaN: Bool { origin.hasNaN || size.hasNaN }

    public var isNull: Bool { origin.x == .infinity || origin.y == .infinity }
    public var isInfinite: Bool {
        let inf = CGRect.infinite
        return origin.x == inf.origin.x && origin.y == inf.origin.y
            && size.width == inf.size.width && size.height == inf.size.height
    }
    public var isEmpty: Bool { isNull || size.width == 0 || size.height == 0 }

    public var standardized: CGRect {
        if isNull { return .null }
        var r = self
        if r.size.width < 0 { r.origin.x += r.size.width; r.size.width = -r.size.width }
        if r.size.height < 0 { r.origin.y += r.size.height; r.size.height = -r.size.height }
        return r
    }

    public var minX: Double { size.width < 0 ? origin.x + size.width : origin.x }
    public var maxX: Double { size.width < 0 ? origin.x : origin.x + size.width }
    public var midX: Double { origin.x + size.width / 2 }
    public var minY: Double { size.height < 0 ? origin.y + size.height : origin.y }
    public var maxY: Double { size.height < 0 ? origin.y : origin.y + size.height }
    public var midY: Double { origin.y + size.height / 2 }
    public var width: Double { abs(size.width) }
    public var height: Double { abs(size.height) }

    /// The overlap of two rectangles; null if either is null or they are disjoint
    /// (rectangles that only touch give a zero-sized, non-null result).
    public func intersection(_ other: CGRect) -> CGRect {
        if isNull || other.isNull { return .null }
        let a = standardized, b = other.standardized
        let x0 = Swift.max(a.minX, b.minX), x1 = Swift.min(a.maxX, b.maxX)
        let y0 = Swift.max(a.minY, b.minY), y1 = Swift.min(a.maxY, b.maxY)
        if x1 < x0 || y1 < y0 { return .null }
        return CGRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// The smallest rectangle containing both; a null operand is ignored.
    public func union(_ other: CGRect) -> CGRect {
        if isNull { return other.standardized }
        if other.isNull { return standardized }
        let a = standardized, b = other.standardized
        let x0 = Swift.min(a.minX, b.minX), x1 = Swift.max(a.maxX, b.maxX)
        let y0 = Swift.min(a.minY, b.minY), y1 = Swift.max(a.maxY, b.maxY)
        return CGRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Shrinks (or grows, for negative insets) about the centre; null when the
    /// result would have a negative size.
    public func insetBy(dx: Double, dy: Double) -> CGRect {
        if isNull { return .null }
        var r = standardized
        r.origin.x += dx; r.origin.y += dy
        r.size.width -= 2 * dx; r.size.height -= 2 * dy
        if r.size.width < 0 || r.size.height < 0 { return .null }
        return r
    }

    public func offsetBy(dx: Double, dy: Double) -> CGRect {
        if isNull { return .null }
        var r = standardized
        r.origin.x += dx; r.origin.y += dy
        return r
    }

    /// The smallest rectangle with integral coordinates that contains this one.
    public var integral: CGRect {
        if isNull { return .null }
        let r = standardized
        let x0 = r.minX.rounded(.down), y0 = r.minY.rounded(.down)
        let x1 = r.maxX.rounded(.up), y1 = r.maxY.rounded(.up)
        return CGRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Half-open containment: the max edges are outside, as in Core Graphics.
    public func contains(_ p: CGPoint) -> Bool {
        if isNull || isEmpty { return false }
        return p.x >= minX && p.x < maxX && p.y >= minY && p.y < maxY
    }

    public func contains(_ other: CGRect) -> Bool {
        if isNull || other.isNull { return false }
        return union(other).isEqual(to: self)
    }

    /// True when the intersection is not null.
    public func intersects(_ other: CGRect) -> Bool {
        !intersection(other).isNull
    }

    /// Equal after standardizing; all null rectangles are equal.
    public func isEqual(to other: CGRect) -> Bool {
        if isNull || other.isNull { return isNull && other.isNull }
        let a = standardized, b = other.standardized
        return a.origin.x == b.origin.x && a.origin.y == b.origin.y
            && a.size.width == b.size.width && a.size.height == b.size.height
    }
}

// The finiteness checks of geometry arguments (the family of
// QuartziteCore's checkFinite): NaN is refused, infinities are allowed
// (CGRectInfinite, the null rectangle); transforms must be finite.

@inlinable @inline(__always)
package func checkPoint(_ p: CGPoint, _ function: StaticString) -> Bool {
    !p.hasNaN || reportNaN("point", function)
}

@inlinable @inline(__always)
package func checkSize(_ s: CGSize, _ function: StaticString) -> Bool {
    !s.hasNaN || reportNaN("size", function)
}

@inlinable @inline(__always)
package func checkRect(_ r: CGRect, _ function: StaticString) -> Bool {
    !r.hasNaN || reportNaN("rect", function)
}

@inlinable @inline(__always)
package func checkAffine(_ t: CGAffineTransform, _ function: StaticString) -> Bool {
    t.isFinite || reportNotFiniteTransform(function)
}

@inlinable @inline(__always)
package func checkTransform(_ t: CATransform3D, _ function: StaticString) -> Bool {
    t.isFinite || reportNotFiniteTransform(function)
}

@usableFromInline @inline(never)
package func reportNotFiniteTransform(_ function: StaticString) -> Bool {
    recordError(QZErrorNotFinite, function, "transform must be finite, got a NaN or infinite entry")
    return false
}
