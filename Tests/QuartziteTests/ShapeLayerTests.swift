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

/// The sum of alpha over a buffer (255 per fully covered pixel), in pixels.
func inkedPixels(_ pb: QZCVPixelBufferRef, _ w: Int, _ h: Int) -> Double {
    var sum = 0
    for y in 0..<h { for x in 0..<w { sum += pixel(pb, x, y).3 } }
    return Double(sum) / 255
}

/// A w x h root holding a shape layer that fills it, configured by `configure` (+1 buffer).
func renderShape(_ w: Int, _ h: Int, at t: Double = 1000, _ configure: (CALayerRef) -> Void) -> QZCVPixelBufferRef {
    let root = TL(0, 0, Double(w), Double(h))
    let s = CAShapeLayerCreate()!
    CALayerSetFrame(s, CGRect(x: 0, y: 0, width: Double(w), height: Double(h)))
    configure(s)
    CALayerAddSublayer(root.ref, s)
    CARelease(UnsafeRawPointer(s))
    return renderScene(root, w, h, at: t)
}

@Suite struct ShapeLayerTests {
    @Test func trimmedPathsKeepTheirLengthAndShape() {
        // A quarter circle and a line: the middle half of the length, cut inside both.
        var d = PathData()
        try! d.append([.moveTo(CGPoint(x: 0, y: 0)), .lineTo(CGPoint(x: 100, y: 0)),
                       .curveTo(CGPoint(x: 155.228, y: 0), CGPoint(x: 200, y: 44.772), CGPoint(x: 200, y: 100))])
        let m = PathMeasure(d)
        let runs = m.trimmed(from: m.length * 0.25, to: m.length * 0.75)
        #expect(runs.count == 1)
        var cut = PathData()
        try! cut.append([.moveTo(runs[0][0].start)] + runs[0].map { s -> PathElement in
            switch s {
            case .line(_, let b): return .lineTo(b)
            case .quad(_, let c, let b): return .quadCurveTo(c, b)
            case .cubic(_, let c1, let c2, let b): return .curveTo(c1, c2, b)
            }
        })
        #expect(abs(PathMeasure(cut).length - m.length / 2) < 1e-9)
        #expect(abs(runs[0][0].start.x - m.length * 0.25) < 1e-9 && runs[0][0].start.y == 0)
        let endPoint = m.position(atDistance: m.length * 0.75)!.point
        #expect(abs(runs[0].last!.end.x - endPoint.x) < 1e-9 && abs(runs[0].last!.end.y - endPoint.y) < 1e-9)
        // Two subpaths: a range across the move makes two runs.
        var two = PathData()
        try! two.append([.moveTo(CGPoint(x: 0, y: 0)), .lineTo(CGPoint(x: 10, y: 0)),
                         .moveTo(CGPoint(x: 0, y: 5)), .lineTo(CGPoint(x: 10, y: 5))])
        #expect(PathMeasure(two).trimmed(from: 5, to: 15).count == 2)
        #expect(PathMeasure(two).trimmed(from: 5, to: 5).isEmpty)
    }

    @Test func strokeEndHalfInksHalfThePathsLength() {
        // A rectangle's outline, 2 wide: half its 520-point perimeter is the top and right edges.
        let path = CGPathCreateMutable()!
        CGPathAddRect(path, nil, CGRect(x: 20, y: 20, width: 160, height: 100))
        defer { CGPathRelease(path) }
        let red = CGColorCreateSRGB(1, 0, 0, 1)!
        defer { CGColorRelease(red) }
        func stroke(_ end: Double) -> (Double, QZCVPixelBufferRef) {
            let pb = renderShape(200, 140) { s in
                CAShapeLayerSetPath(s, path)
                CAShapeLayerSetFillColor(s, nil)
                CAShapeLayerSetStrokeColor(s, red)
                CAShapeLayerSetLineWidth(s, 2)
                CAShapeLayerSetStrokeEnd(s, end)
            }
            return (inkedPixels(pb, 200, 140), pb)
        }
        let (whole, a) = stroke(1), (half, b) = stroke(0.5)
        defer { CARelease(UnsafeRawPointer(a)); CARelease(UnsafeRawPointer(b)) }
        // The whole outline: 520 long, 2 wide (at each corner the miter's outer
        // square makes up for the inner overlap).
        #expect(abs(whole - 520 * 2) < 4, "\(whole)")
        #expect(abs(half / whole - 0.5) < 0.01, "\(half) of \(whole)")
        // Which half: the top and right edges are inked, the bottom and left are not.
        #expect(pixel(b, 100, 20).3 == 255 && pixel(b, 180, 70).3 == 255)
        #expect(pixel(b, 100, 120).3 == 0 && pixel(b, 20, 70).3 == 0)
        #expect(pixel(b, 100, 70).3 == 0)   // not filled
    }

    @Test func capsJoinsAndDashes() {
        let path = CGPathCreateMutable()!
        CGPathMoveToPoint(path, nil, 20, 20)
        CGPathAddLineToPoint(path, nil, 80, 20)
        defer { CGPathRelease(path) }
        let black = CGColorCreateSRGB(0, 0, 0, 1)!
        defer { CGColorRelease(black) }
        func line(_ configure: (CALayerRef) -> Void) -> QZCVPixelBufferRef {
            renderShape(100, 40) { s in
                CAShapeLayerSetPath(s, path)
                CAShapeLayerSetStrokeColor(s, black)
                CAShapeLayerSetLineWidth(s, 10)
                configure(s)
            }
        }
        let butt = line { _ in }, square = line { CAShapeLayerSetLineCap($0, kCALineCapSquare) }
        let dashed = line { s in
            var items: [CAValueRef?] = [CAValueCreateNumber(10), CAValueCreateNumber(10)]
            let v = items.withUnsafeMutableBufferPointer { CAValueCreateArray($0.baseAddress, 2) }
            CAShapeLayerSetLineDashPattern(s, v)
            for i in items { CARelease(UnsafeRawPointer(i!)) }
            CARelease(UnsafeRawPointer(v!))
        }
        defer { for pb in [butt, square, dashed] { CARelease(UnsafeRawPointer(pb)) } }
        // Butt ends at the end points; square caps reach half the width past them.
        #expect(pixel(butt, 18, 20).3 == 0 && pixel(butt, 21, 20).3 == 255)
        #expect(pixel(square, 16, 20).3 == 255 && pixel(square, 83, 20).3 == 255)
        // 10 on, 10 off from x = 20: ink at 25, 45, 65; gaps at 35, 55, 75.
        for x in [25, 45, 65] { #expect(pixel(dashed, x, 20).3 == 255, "dash at \(x)") }
        for x in [35, 55, 75] { #expect(pixel(dashed, x, 20).3 == 0, "gap at \(x)") }
        #expect(abs(inkedPixels(dashed, 100, 40) - 30 * 10) < 2)
    }

    @Test func strokeEndAnimatesFromPresentationValues() {
        let s = Layer(class: .shape)
        s.bounds = CGRect(x: 0, y: 0, width: 10, height: 10)
        let a = Animation(kind: .basic)
        a.keyPath = "strokeEnd"
        a.fromValue = Value(.number(0))
        a.toValue = Value(.number(1))
        a.timing.duration = 2
        withModelLock { s.addAnimation(a, forKey: "draw", now: 0) }
        #expect(withModelLock { s.presentationCopy(now: 0.6).shape?.strokeEnd } == 0.3)
        #expect(LayerKey.strokeEnd.isAnimatable && LayerKey.path.isAnimatable && LayerKey.fillColor.isAnimatable)
    }
}
