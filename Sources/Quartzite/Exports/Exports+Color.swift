import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel
import QuartziteRender

// CGColorRef with Apple's C function names. Components are clamped to 0...1.
//
// Colours are immutable: create with CGColorCreateSRGB or CGColorCreateGenericRGB
// (+1), release with CGColorRelease or CARelease.
// Threads: any thread; a colour may be shared between threads.

func makeColor(_ space: Color.Space, _ components: [Double], _ function: StaticString) -> OpaquePointer? {
    for c in components where c.isNaN {
        recordError(QZErrorNotFinite, function, "colour component is NaN")
        return nil
    }
    return retainedHandle(Color(space: space, components: components))
}

/// Creates a colour in the sRGB space. Returns +1: release with CGColorRelease.
@c public func CGColorCreateSRGB(_ red: Double, _ green: Double, _ blue: Double, _ alpha: Double) -> QZCGColorRef? {
    makeColor(.sRGB, [red, green, blue, alpha], #function)
}

/// Creates a colour in the generic RGB space. Returns +1.
@c public func CGColorCreateGenericRGB(_ red: Double, _ green: Double, _ blue: Double, _ alpha: Double) -> QZCGColorRef? {
    makeColor(.genericRGB, [red, green, blue, alpha], #function)
}

/// Creates a colour in the generic gray space (two components). Returns +1.
@c public func CGColorCreateGenericGray(_ gray: Double, _ alpha: Double) -> QZCGColorRef? {
    makeColor(.genericGray, [gray, alpha], #function)
}

/// Creates a copy of `color` with another alpha. Returns +1.
@c public func CGColorCreateCopyWithAlpha(_ color: QZCGColorRef?, _ alpha: Double) -> QZCGColorRef? {
    guard let c = object(color, as: Color.self), checkFinite(alpha, function: #function) else { return nil }
    return retainedHandle(c.withAlpha(alpha))
}

/// Returns the colour's components (colour channels, then alpha). Borrowed:
/// valid while the colour lives.
@c public func CGColorGetComponents(_ color: QZCGColorRef?) -> UnsafePointer<Double>? {
    guard let c = object(color, as: Color.self) else { return nil }
    return UnsafePointer(c.storage)
}

/// Returns the number of components, alpha included (4 for RGB, 2 for gray).
@c public func CGColorGetNumberOfComponents(_ color: QZCGColorRef?) -> size_t {
    withObject(color, as: Color.self, fallback: 0) { $0.componentCount }
}

/// Returns the alpha component.
@c public func CGColorGetAlpha(_ color: QZCGColorRef?) -> Double {
    withObject(color, as: Color.self, fallback: 0) { $0.alpha }
}

/// True when both colours are in the same space with equal components.
/// **Edge cases:** two NULLs are equal; one NULL records QZErrorNullArgument
/// and returns false.
@c public func CGColorEqualToColor(_ color1: QZCGColorRef?, _ color2: QZCGColorRef?) -> Bool {
    if color1 == nil && color2 == nil { return true }
    guard let a = object(color1, as: Color.self), let b = object(color2, as: Color.self) else { return false }
    return a.isEqual(to: b)
}

/// Adds a reference and returns `color`. NULL is allowed and returns NULL.
@c public func CGColorRetain(_ color: QZCGColorRef?) -> QZCGColorRef? {
    retainTyped(color, as: Color.self, #function)
}

/// Drops a reference. NULL does nothing.
@c public func CGColorRelease(_ color: QZCGColorRef?) {
    releaseTyped(color, as: Color.self, #function)
}
