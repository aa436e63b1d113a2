import CQuartzite
import QuartziteCore

/// An immutable colour (Apple's CGColorRef). Components are stored in the
/// colour's own space and clamped to 0...1 as Core Graphics does for the
/// generic and sRGB spaces.
public final class Color: QZObject, Handle {
    public enum Space: Sendable { case sRGB, genericRGB, genericGray }

    public let space: Space
    /// Heap storage so CGColorGetComponents can hand out a stable pointer.
    @usableFromInline package let storage: UnsafeMutablePointer<Double>
    public let componentCount: Int

    public init(space: Space, components: [Double]) {
        self.space = space
        componentCount = components.count
        storage = .allocate(capacity: components.count)
        for (i, c) in components.enumerated() { storage[i] = Swift.min(Swift.max(c, 0), 1) }
        super.init(kind: .color)
    }

    deinit { storage.deallocate() }

    @inlinable package static var handleKind: ObjectKind { .color }
    @inlinable package static func accepts(_ tag: UInt32) -> Bool { tag == tagMagic | UInt32(ObjectKind.color.rawValue) }

    public var components: [Double] { (0..<componentCount).map { storage[$0] } }
    @inlinable public var alpha: Double { storage[componentCount - 1] }

    /// Red, green, blue and alpha (gray expands to equal RGB).
    public var rgba: SIMD4<Double> {
        switch space {
        case .genericGray: return SIMD4(storage[0], storage[0], storage[0], storage[1])
        case .sRGB, .genericRGB: return SIMD4(storage[0], storage[1], storage[2], storage[3])
        }
    }

    /// `rgba` premultiplied by alpha, in the renderer's Float form.
    package var premultipliedRGBA: SIMD4<Float> {
        let v = rgba
        let a = Float(v.w)
        return SIMD4(Float(v.x) * a, Float(v.y) * a, Float(v.z) * a, a)
    }

    /// Same space and numerically equal components (Apple's CGColorEqualToColor).
    public func isEqual(to other: Color) -> Bool {
        if self === other { return true }
        return space == other.space && components == other.components
    }

    public func withAlpha(_ alpha: Double) -> Color {
        var c = components
        c[c.count - 1] = alpha
        return Color(space: space, components: c)
    }
}
