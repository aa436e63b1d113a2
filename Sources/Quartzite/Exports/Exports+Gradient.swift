import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel
import QuartziteRender

// CGGradient and CGColorSpace (CGGradient.h, CGColorSpace.h). Both are
// immutable: any thread may use them and share them between threads.

// MARK: - CGColorSpace

/// The device RGB space (drawn as sRGB). Returns +1 (CGColorSpaceRelease).
@c public func CGColorSpaceCreateDeviceRGB() -> QZCGColorSpaceRef? { retainedHandle(ColorSpace.deviceRGB) }

/// The device gray space. Returns +1.
@c public func CGColorSpaceCreateDeviceGray() -> QZCGColorSpaceRef? { retainedHandle(ColorSpace.deviceGray) }

/// A named space (kCGColorSpaceSRGB, kCGColorSpaceGenericRGB,
/// kCGColorSpaceGenericGray, ...: the macros of quartzite_types.h). Returns
/// +1, or NULL with QZErrorUnknownConstant for other names.
@c public func CGColorSpaceCreateWithName(_ name: UnsafePointer<CChar>?) -> QZCGColorSpaceRef? {
    guard let n = requireString(name, "name", #function) else { return nil }
    guard let s = ColorSpace.named(n) else {
        recordError(QZErrorUnknownConstant, #function, "\"\(n)\" is not a colour space name Quartzite knows")
        return nil
    }
    return retainedHandle(s)
}

/// The components of a colour in the space, alpha not counted (3 or 1).
@c public func CGColorSpaceGetNumberOfComponents(_ space: QZCGColorSpaceRef?) -> size_t {
    withObject(space, as: ColorSpace.self, fallback: 0) { $0.model.componentCount }
}

/// The colour space's model (kCGColorSpaceModelRGB or kCGColorSpaceModelMonochrome;
/// kCGColorSpaceModelUnknown for a bad handle).
@c public func CGColorSpaceGetModel(_ space: QZCGColorSpaceRef?) -> CGColorSpaceModel {
    withObject(space, as: ColorSpace.self, fallback: kCGColorSpaceModelUnknown) { CGColorSpaceModel(rawValue: $0.model.rawValue) }
}

/// Returns `space` with one more reference (NULL is returned as is).
@c public func CGColorSpaceRetain(_ space: QZCGColorSpaceRef?) -> QZCGColorSpaceRef? {
    retainTyped(space, as: ColorSpace.self, #function)
}

/// Drops a reference to `space` (NULL is ignored).
@c public func CGColorSpaceRelease(_ space: QZCGColorSpaceRef?) {
    releaseTyped(space, as: ColorSpace.self, #function)
}

/// A colour of `space` from its components followed by alpha (4 values for
/// RGB, 2 for gray), clamped to 0...1. Returns +1 (CGColorRelease).
@c public func CGColorCreate(_ space: QZCGColorSpaceRef?, _ components: UnsafePointer<Double>?) -> QZCGColorRef? {
    guard let s = object(space, as: ColorSpace.self) else { return nil }
    guard let p = requireNonNull(components, "components", #function) else { return nil }
    let values = Array(UnsafeBufferPointer(start: p, count: s.model.componentCount + 1))
    guard values.allSatisfy({ $0.isFinite }) else {
        recordError(QZErrorNotFinite, #function, "colour components must be finite")
        return nil
    }
    return retainedHandle(Color(space: s.model == .rgb ? .sRGB : .genericGray, components: values))
}

// MARK: - CGGradient

/// A gradient of `count` colours given as components of `space` followed by
/// alpha (count x 4 values for RGB, count x 2 for gray), at `locations` in
/// 0...1 (NULL: evenly spaced from 0 to 1). Returns +1
/// (CGGradientRelease), or NULL: QZErrorNullArgument for a NULL space or
/// components, QZErrorOutOfRange for a count of 0, QZErrorNotFinite.
@c public func CGGradientCreateWithColorComponents(_ space: QZCGColorSpaceRef?, _ components: UnsafePointer<Double>?,
                                                  _ locations: UnsafePointer<Double>?, _ count: size_t) -> QZCGGradientRef? {
    guard let s = object(space, as: ColorSpace.self) else { return nil }
    guard count > 0, count <= 1 << 16 else {
        recordError(QZErrorOutOfRange, #function, "a gradient needs 1 to 65536 colours, got \(count)")
        return nil
    }
    let n = s.model.componentCount + 1
    guard let values = cArray(components, count * n, "components", #function) else { return nil }
    var locs: [Double]? = nil
    if let locations {
        locs = Array(UnsafeBufferPointer(start: locations, count: count))
    }
    guard values.allSatisfy({ $0.isFinite }), locs?.allSatisfy({ $0.isFinite }) ?? true else {
        recordError(QZErrorNotFinite, #function, "components and locations must be finite")
        return nil
    }
    let colors = (0..<count).map { i in s.rgba(Array(values[i * n..<(i + 1) * n])) }
    return retainedHandle(Gradient(colors: colors, locations: locs))
}

/// A gradient of the colours in `colors` (an array value of colour values,
/// CAValueCreateColor) at `locations` (NULL: evenly spaced). `space` may be
/// NULL. Returns +1, or NULL: QZErrorWrongType when `colors` is not an
/// array of colours, QZErrorOutOfRange when it is empty.
@c public func CGGradientCreateWithColors(_ space: QZCGColorSpaceRef?, _ colors: CAValueRef?,
                                         _ locations: UnsafePointer<Double>?) -> QZCGGradientRef? {
    if let space { guard object(space, as: ColorSpace.self) != nil else { return nil } }
    guard let v = object(colors, as: Value.self) else { return nil }
    guard case .array(let items) = v.storage else {
        recordError(QZErrorWrongType, #function, "colors must be an array value")
        return nil
    }
    guard !items.isEmpty, items.count <= 1 << 16 else {
        recordError(QZErrorOutOfRange, #function, "a gradient needs 1 to 65536 colours, got \(items.count)")
        return nil
    }
    var list: [SIMD4<Double>] = []
    for item in items {
        guard case .color(let c) = item.storage else {
            recordError(QZErrorWrongType, #function, "every item of colors must be a colour value")
            return nil
        }
        list.append(c.rgba)
    }
    var locs: [Double]? = nil
    if let locations {
        locs = Array(UnsafeBufferPointer(start: locations, count: items.count))
        guard locs!.allSatisfy({ $0.isFinite }) else {
            recordError(QZErrorNotFinite, #function, "locations must be finite")
            return nil
        }
    }
    return retainedHandle(Gradient(colors: list, locations: locs))
}

/// Returns `gradient` with one more reference (NULL is returned as is).
@c public func CGGradientRetain(_ gradient: QZCGGradientRef?) -> QZCGGradientRef? {
    retainTyped(gradient, as: Gradient.self, #function)
}

/// Drops a reference to `gradient` (NULL is ignored).
@c public func CGGradientRelease(_ gradient: QZCGGradientRef?) {
    releaseTyped(gradient, as: Gradient.self, #function)
}
