import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel
import QuartziteRender

// CAMediaTimingFunction. Timing functions are immutable and thread-safe.

/// Creates one of Apple's predefined timing functions: kCAMediaTimingFunction
/// Linear, EaseIn (0.42, 0, 1, 1), EaseOut (0, 0, 0.58, 1), EaseInEaseOut
/// (0.42, 0, 0.58, 1) or Default (0.25, 0.1, 0.25, 1). An unknown name records
/// QZErrorUnknownConstant and returns NULL. Returns +1.
@c public func CAMediaTimingFunctionCreateWithName(_ name: UnsafePointer<CChar>?) -> CAMediaTimingFunctionRef? {
    guard let n = requireString(name, "name", #function) else { return nil }
    guard let f = TimingFunction.named(n) else {
        recordError(QZErrorUnknownConstant, #function, "\"\(n)\" is not a predefined timing function")
        return nil
    }
    return retainedHandle(f)
}

/// Creates a timing function through (0, 0), (c1x, c1y), (c2x, c2y), (1, 1).
/// The x coordinates must lie in [0, 1] (so that time runs forwards) and all
/// must be finite; otherwise an error is recorded and NULL returned. Returns +1.
@c public func CAMediaTimingFunctionCreateWithControlPoints(_ c1x: Float, _ c1y: Float, _ c2x: Float, _ c2y: Float) -> CAMediaTimingFunctionRef? {
    guard checkFinite(Double(c1x), Double(c1y), Double(c2x), Double(c2y), function: #function) else { return nil }
    guard (0...1).contains(c1x), (0...1).contains(c2x) else {
        recordError(QZErrorInvalidArgument, #function, "control point x values must lie in [0, 1], got \(c1x) and \(c2x)")
        return nil
    }
    return retainedHandle(TimingFunction(c1x: c1x, c1y: c1y, c2x: c2x, c2y: c2y))
}

/// Writes control point `index` into values[0] (x) and values[1] (y): index 0
/// is (0, 0), 1 is c1, 2 is c2, 3 is (1, 1). Another index records
/// QZErrorOutOfRange and leaves `values` untouched.
@c public func CAMediaTimingFunctionGetControlPointAtIndex(_ function: CAMediaTimingFunctionRef?, _ index: size_t, _ values: UnsafeMutablePointer<Float>?) {
    guard let f = object(function, as: TimingFunction.self),
          let values = requireNonNull(values, "values", #function) else { return }
    guard let p = f.controlPoint(index) else {
        recordError(QZErrorOutOfRange, #function, "index \(index) is outside 0...3")
        return
    }
    values[0] = p.x
    values[1] = p.y
}

/// The curve's output for input time `x` (clamped to [0, 1]), solved to well
/// below 1e-6: the progress an animation using this function shows at x.
@c public func QZMediaTimingFunctionSolve(_ function: CAMediaTimingFunctionRef?, _ x: Double) -> Double {
    guard !x.isNaN else {
        recordError(QZErrorNotFinite, #function, "x is NaN")
        return 0
    }
    return withObject(function, as: TimingFunction.self, fallback: 0) { $0.solve(x) }
}
