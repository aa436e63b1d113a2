import CCairo
import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo

// The parts of the graphics state that Core Graphics keeps and cairo does
// not: colours, alpha, blend mode, shadow, interpolation quality and
// antialiasing. (Saved and restored with CGContextSaveGState.)

extension DrawingContext {
    public func setFillColor(_ rgba: SIMD4<Double>) { state.fillColor = rgba }
    public func setStrokeColor(_ rgba: SIMD4<Double>) { state.strokeColor = rgba }
    public var fillColor: SIMD4<Double> { state.fillColor }
    public var strokeColor: SIMD4<Double> { state.strokeColor }

    /// CGContextSetFillColorSpace: the space of later CGContextSetFillColor
    /// components; the colour becomes the space's initial one (opaque black).
    public func setFillColorSpace(_ space: ColorSpace) {
        state.fillSpace = space.model
        state.fillColor = SIMD4(0, 0, 0, 1)
    }

    public func setStrokeColorSpace(_ space: ColorSpace) {
        state.strokeSpace = space.model
        state.strokeColor = SIMD4(0, 0, 0, 1)
    }

    /// Components a CGContextSetFillColor call reads: the space's, plus alpha.
    public var fillComponentCount: Int { state.fillSpace.componentCount + 1 }
    public var strokeComponentCount: Int { state.strokeSpace.componentCount + 1 }

    public func setFillComponents(_ c: [Double]) { state.fillColor = rgba(c, state.fillSpace) }
    public func setStrokeComponents(_ c: [Double]) { state.strokeColor = rgba(c, state.strokeSpace) }

    private func rgba(_ c: [Double], _ model: ColorSpace.Model) -> SIMD4<Double> {
        func k(_ v: Double) -> Double { Swift.min(Swift.max(v, 0), 1) }
        return model == .rgb ? SIMD4(k(c[0]), k(c[1]), k(c[2]), k(c[3])) : SIMD4(k(c[0]), k(c[0]), k(c[0]), k(c[1]))
    }

    /// CGContextSetAlpha (clamped to 0...1).
    public func setAlpha(_ a: Double) { state.alpha = Swift.min(Swift.max(a, 0), 1) }
    public var alpha: Double { state.alpha }

    public func setBlendMode(_ m: BlendMode) { state.blendMode = m }
    public var blendMode: BlendMode { state.blendMode }

    /// CGContextSetShadowWithColor; a nil or fully transparent colour turns
    /// the shadow off. CGContextSetShadow uses black at 1/3 alpha, as Apple does.
    public func setShadow(offset: CGSize, blur: Double, color: SIMD4<Double>?) {
        guard let color, color.w > 0 else {
            state.shadow = nil
            return
        }
        state.shadow = ContextShadow(offset: offset, blur: Swift.max(blur, 0), color: color)
    }

    public func setInterpolationQuality(_ q: InterpolationQuality) { state.interpolationQuality = q }
    public var interpolationQuality: InterpolationQuality { state.interpolationQuality }
    public func setShouldAntialias(_ on: Bool) { state.shouldAntialias = on }
    public func setAllowsAntialiasing(_ on: Bool) { allowsAntialiasing = on }
}
