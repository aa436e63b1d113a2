import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics

// CAShapeLayer's model state. The properties are rows of the property table
// (scripts/generate-layer-properties.py); the renderer draws the shape
// every frame from a layer's presentation values
// (QuartziteRender/Render/DrawListBuilder+Shape.swift).

package final class ShapeLayerState {
    /// An immutable path (a mutable one is copied when set); nil: nothing drawn.
    package var path: Path?
    package var fillColor: Color? = Color.opaqueBlack
    /// ConstantSet.fillRule: non-zero, even-odd.
    package var fillRule: UInt8 = 0
    package var strokeColor: Color?
    package var strokeStart = 0.0
    package var strokeEnd = 1.0
    package var lineWidth = 1.0
    package var miterLimit = 10.0
    /// ConstantSet.lineCap: butt, round, square.
    package var lineCap: UInt8 = 0
    /// ConstantSet.lineJoin: miter, round, bevel.
    package var lineJoin: UInt8 = 0
    package var lineDashPhase = 0.0
    /// An array value of numbers, or nil (solid).
    package var lineDashPattern: Value?
    /// The renderer's last bitmap of this (model) layer's shape.
    package var renderCache: AnyObject?

    package init() {}

    package func copy() -> ShapeLayerState {
        let c = ShapeLayerState()
        c.path = path
        c.fillColor = fillColor
        c.fillRule = fillRule
        c.strokeColor = strokeColor
        c.strokeStart = strokeStart
        c.strokeEnd = strokeEnd
        c.lineWidth = lineWidth
        c.miterLimit = miterLimit
        c.lineCap = lineCap
        c.lineJoin = lineJoin
        c.lineDashPhase = lineDashPhase
        c.lineDashPattern = lineDashPattern
        return c
    }

    /// The dash lengths when they can be drawn (finite, not negative, not
    /// all zero); nil: a solid line.
    package var dashes: [Double]? {
        guard let v = lineDashPattern, let n = GradientLayerState.numberList(v), n.finite, !n.list.isEmpty,
              n.list.allSatisfy({ $0 >= 0 }), n.list.contains(where: { $0 > 0 }) else { return nil }
        return n.list
    }
}
