import CQuartzite
import Glibc
import Testing
@testable import QuartziteCore
@testable import QuartziteGeometry
@testable import QuartziteVideo
@testable import QuartziteGraphics
@testable import QuartziteModel
@testable import QuartziteRender
@testable import Quartzite

// Golden scenes of CAShapeLayer (each cap and join, dashes, strokeEnd 0.3)
// and CAGradientLayer (the three types), and the path animation between
// paths with the same elements (point by point) and with different ones
// (the path switches half-way).

private let sceneGray = (0.85, 0.85, 0.85, 1.0)

/// A shape layer over the whole w x h scene (released with the scene).
private func addShape(_ root: TL, _ w: Double, _ h: Double, _ configure: (CALayerRef) -> Void) {
    let s = CAShapeLayerCreate()!
    CALayerSetFrame(s, CGRect(x: 0, y: 0, width: w, height: h))
    configure(s)
    CALayerAddSublayer(root.ref, s)
    CARelease(UnsafeRawPointer(s))
}

private func withColor(_ c: (Double, Double, Double, Double), _ body: (QZCGColorRef) -> Void) {
    let col = CGColorCreateSRGB(c.0, c.1, c.2, c.3)!
    body(col)
    CGColorRelease(col)
}

private func renderGolden(_ name: String, _ root: TL, _ w: Int = 128, _ h: Int = 96, at t: Double = 1000) {
    let pb = renderScene(root, w, h, at: t)
    checkGolden(name, pb)
    CVPixelBufferRelease(pb)
}

extension RenderGoldenTests {
    /// A zigzag stroked 9 wide three times: butt caps with miter joins, round
    /// caps with round joins, square caps with bevel joins.
    @Test func shapeCapsAndJoins() {
        let root = TL(0, 0, 128, 96, color: sceneGray)
        let combos: [(String, String)] = [(kCALineCapButt, kCALineJoinMiter), (kCALineCapRound, kCALineJoinRound),
                                          (kCALineCapSquare, kCALineJoinBevel)]
        for (i, combo) in combos.enumerated() {
            let y = 20 + 28 * Double(i)
            let path = CGPathCreateMutable()!
            CGPathMoveToPoint(path, nil, 16, y + 8)
            CGPathAddLineToPoint(path, nil, 44, y - 8)
            CGPathAddLineToPoint(path, nil, 72, y + 8)
            CGPathAddLineToPoint(path, nil, 100, y - 8)
            addShape(root, 128, 96) { s in
                CAShapeLayerSetPath(s, path)
                CAShapeLayerSetFillColor(s, nil)
                withColor((0.1, 0.3, 0.9, 1)) { CAShapeLayerSetStrokeColor(s, $0) }
                CAShapeLayerSetLineWidth(s, 9)
                CAShapeLayerSetLineCap(s, combo.0)
                CAShapeLayerSetLineJoin(s, combo.1)
            }
            CGPathRelease(path)
        }
        renderGolden("shape_caps_joins", root)
    }

    /// A dashed rectangle (4 on, 3 off) and a dashed circle whose pattern
    /// (10, 4, 2, 4) starts 5 into it (lineDashPhase), with round caps.
    @Test func shapeDashes() {
        let root = TL(0, 0, 128, 96, color: sceneGray)
        addShape(root, 128, 96) { s in
            let rect = CGPathCreateMutable()!
            CGPathAddRect(rect, nil, CGRect(x: 10, y: 14, width: 50, height: 68))
            CAShapeLayerSetPath(s, rect)
            CGPathRelease(rect)
            CAShapeLayerSetFillColor(s, nil)
            withColor((0.9, 0.1, 0.1, 1)) { CAShapeLayerSetStrokeColor(s, $0) }
            CAShapeLayerSetLineWidth(s, 3)
            let dashes = numberArray([4, 3])
            CAShapeLayerSetLineDashPattern(s, dashes)
            CARelease(UnsafeRawPointer(dashes))
        }
        addShape(root, 128, 96) { s in
            let circle = CGPathCreateMutable()!
            CGPathAddEllipseInRect(circle, nil, CGRect(x: 70, y: 20, width: 50, height: 50))
            CAShapeLayerSetPath(s, circle)
            CGPathRelease(circle)
            withColor((0.95, 0.8, 0.3, 1)) { CAShapeLayerSetFillColor(s, $0) }
            withColor((0.1, 0.6, 0.2, 1)) { CAShapeLayerSetStrokeColor(s, $0) }
            CAShapeLayerSetLineWidth(s, 4)
            CAShapeLayerSetLineCap(s, kCALineCapRound)
            let dashes = numberArray([10, 4, 2, 4])
            CAShapeLayerSetLineDashPattern(s, dashes)
            CARelease(UnsafeRawPointer(dashes))
            CAShapeLayerSetLineDashPhase(s, 5)
        }
        renderGolden("shape_dashes", root)
    }

    /// A ring stroked to strokeEnd 0.3 (from the ellipse's start, the right
    /// edge, clockwise on screen), over a faint full ring.
    @Test func shapeStrokeEnd03() {
        let root = TL(0, 0, 128, 96, color: sceneGray)
        let circle = CGPathCreateMutable()!
        CGPathAddEllipseInRect(circle, nil, CGRect(x: 24, y: 8, width: 80, height: 80))
        for (end, color) in [(1.0, (0.7, 0.7, 0.75, 1.0)), (0.3, (0.1, 0.5, 0.9, 1.0))] {
            addShape(root, 128, 96) { s in
                CAShapeLayerSetPath(s, circle)
                CAShapeLayerSetFillColor(s, nil)
                withColor(color) { CAShapeLayerSetStrokeColor(s, $0) }
                CAShapeLayerSetLineWidth(s, 8)
                CAShapeLayerSetLineCap(s, kCALineCapRound)
                CAShapeLayerSetStrokeEnd(s, end)
            }
        }
        CGPathRelease(circle)
        renderGolden("shape_stroke_end_0_3", root)
    }

    /// The three gradient types over the same three colours.
    @Test func gradientTypes() {
        for type in [kCAGradientLayerAxial, kCAGradientLayerRadial, kCAGradientLayerConic] {
            let root = TL(0, 0, 128, 96, color: sceneGray)
            let g = CAGradientLayerCreate()!
            CALayerSetFrame(g, CGRect(x: 8, y: 8, width: 112, height: 80))
            CALayerSetCornerRadius(g, 10)
            let colors = colorArray([(0.95, 0.35, 0.2, 1), (0.95, 0.85, 0.3, 1), (0.2, 0.4, 0.9, 1)])
            CAGradientLayerSetColors(g, colors)
            CARelease(UnsafeRawPointer(colors))
            CAGradientLayerSetType(g, type)
            if type == kCAGradientLayerAxial {
                CAGradientLayerSetStartPoint(g, CGPoint(x: 0, y: 0))
                CAGradientLayerSetEndPoint(g, CGPoint(x: 1, y: 1))
            } else {
                CAGradientLayerSetStartPoint(g, CGPoint(x: 0.5, y: 0.5))
                CAGradientLayerSetEndPoint(g, CGPoint(x: 1, y: 1))
            }
            CALayerAddSublayer(root.ref, g)
            CARelease(UnsafeRawPointer(g))
            renderGolden("gradient_\(type)", root)
        }
    }
}

@Suite struct ShapePathAnimationTests {
    /// A square path animated to another square of the same elements moves
    /// point by point: half-way it is the square half-way between. A square
    /// animated to a circle (other elements) shows the square until half-way,
    /// then the circle.
    @Test func pathAnimatesPointByPointOrSwitchesHalfWay() {
        func square(_ x: Double) -> QZCGMutablePathRef {
            let p = CGPathCreateMutable()!
            CGPathAddRect(p, nil, CGRect(x: x, y: 10, width: 20, height: 20))
            return p
        }
        func render(from: QZCGMutablePathRef, to: QZCGMutablePathRef, at t: Double) -> QZCVPixelBufferRef {
            let root = TL(0, 0, 100, 40)
            addShape(root, 100, 40) { s in
                CAShapeLayerSetPath(s, to)
                let a = CABasicAnimationCreate("path")!
                let f = CAValueCreateWithObject(UnsafeRawPointer(from))!, e = CAValueCreateWithObject(UnsafeRawPointer(to))!
                CABasicAnimationSetFromValue(a, f); CABasicAnimationSetToValue(a, e)
                CAAnimationSetDuration(a, 1)
                CAAnimationSetBeginTime(a, 20)
                CALayerAddAnimation(s, a, "morph")
                CARelease(UnsafeRawPointer(a)); CARelease(UnsafeRawPointer(f)); CARelease(UnsafeRawPointer(e))
            }
            return renderScene(root, 100, 40, at: t)
        }
        let a = square(0), b = square(60)
        defer { CGPathRelease(a); CGPathRelease(b) }
        let half = render(from: a, to: b, at: 20.5)
        defer { CVPixelBufferRelease(half) }
        // Half-way: the square spans x 30...50.
        #expect(pixel(half, 40, 20).3 == 255 && pixel(half, 31, 20).3 == 255 && pixel(half, 49, 20).3 == 255)
        #expect(pixel(half, 28, 20).3 == 0 && pixel(half, 52, 20).3 == 0 && pixel(half, 10, 20).3 == 0)
        let quarter = render(from: a, to: b, at: 20.25)
        defer { CVPixelBufferRelease(quarter) }
        #expect(pixel(quarter, 25, 20).3 == 255 && pixel(quarter, 13, 20).3 == 0 && pixel(quarter, 37, 20).3 == 0)

        // A circle has other elements: the square until half-way, then the circle.
        let circle = CGPathCreateMutable()!
        CGPathAddEllipseInRect(circle, nil, CGRect(x: 60, y: 10, width: 20, height: 20))
        defer { CGPathRelease(circle) }
        let before = render(from: a, to: circle, at: 20.4), after = render(from: a, to: circle, at: 20.6)
        defer { CVPixelBufferRelease(before); CVPixelBufferRelease(after) }
        #expect(pixel(before, 10, 20).3 == 255 && pixel(before, 70, 20).3 == 0)
        #expect(pixel(after, 10, 20).3 == 0 && pixel(after, 70, 20).3 == 255)
        // (The circle's corner region stays empty: it is not a square.)
        #expect(pixel(after, 61, 11).3 < 64)
    }
}
