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

/// An array value of sRGB colours (+1).
func colorArray(_ colors: [(Double, Double, Double, Double)]) -> CAValueRef {
    var items: [CAValueRef?] = colors.map { c in
        let col = CGColorCreateSRGB(c.0, c.1, c.2, c.3)!
        defer { CGColorRelease(col) }
        return CAValueCreateColor(col)
    }
    defer { for i in items { CARelease(UnsafeRawPointer(i!)) } }
    return items.withUnsafeMutableBufferPointer { CAValueCreateArray($0.baseAddress, $0.count)! }
}

func numberArray(_ xs: [Double]) -> CAValueRef {
    var items: [CAValueRef?] = xs.map { CAValueCreateNumber($0) }
    defer { for i in items { CARelease(UnsafeRawPointer(i!)) } }
    return items.withUnsafeMutableBufferPointer { CAValueCreateArray($0.baseAddress, $0.count)! }
}

/// A root of w x h holding a gradient layer that fills it; `configure` sets its properties.
func renderGradient(_ w: Int, _ h: Int, _ configure: (CALayerRef) -> Void) -> QZCVPixelBufferRef {
    let root = TL(0, 0, Double(w), Double(h))
    let g = CAGradientLayerCreate()!
    CALayerSetFrame(g, CGRect(x: 0, y: 0, width: Double(w), height: Double(h)))
    configure(g)
    CALayerAddSublayer(root.ref, g)
    CARelease(UnsafeRawPointer(g))
    return renderScene(root, w, h)
}

/// Straight (unpremultiplied) colour channels of an opaque pixel, 0...1.
func rgb(_ pb: QZCVPixelBufferRef, _ x: Int, _ y: Int) -> SIMD3<Double> {
    let p = pixel(pb, x, y)
    return SIMD3(Double(p.0), Double(p.1), Double(p.2)) / 255
}

func near(_ a: SIMD3<Double>, _ b: SIMD3<Double>, _ tol: Double) -> Bool {
    abs(a.x - b.x) <= tol && abs(a.y - b.y) <= tol && abs(a.z - b.z) <= tol
}

@Suite struct GradientLayerTests {
    @Test func defaultsAndClass() {
        let g = CAGradientLayerCreate()!
        defer { CARelease(UnsafeRawPointer(g)) }
        #expect(String(cString: CALayerClassGetName(CALayerGetClass(g))!) == "CAGradientLayer")
        #expect(CAGradientLayerGetColors(g) == nil && CAGradientLayerGetLocations(g) == nil)
        #expect(CAGradientLayerGetStartPoint(g) == CGPoint(x: 0.5, y: 0))
        #expect(CAGradientLayerGetEndPoint(g) == CGPoint(x: 0.5, y: 1))
        #expect(String(cString: CAGradientLayerGetType(g)!) == "axial")
        // The properties are CAGradientLayer's: a plain layer refuses them.
        let plain = CALayerCreate()!
        defer { CARelease(UnsafeRawPointer(plain)) }
        QZClearLastError()
        CAGradientLayerSetStartPoint(plain, CGPoint(x: 0, y: 0))
        #expect(QZGetLastError() == QZErrorWrongType)
        #expect(LayerKey.colors.isAnimatable && LayerKey.locations.isAnimatable && LayerKey.startPoint.isAnimatable)
    }

    @Test func badInputRecordsErrorsAndChangesNothing() {
        let g = CAGradientLayerCreate()!
        defer { CARelease(UnsafeRawPointer(g)) }
        let two = colorArray([(1, 0, 0, 1), (0, 0, 1, 1)])
        defer { CARelease(UnsafeRawPointer(two)) }
        CAGradientLayerSetColors(g, two)
        // Locations: a count other than the colours', NaN, not numbers.
        let three = numberArray([0, 0.5, 1]), nan = numberArray([0, .nan]), ok = numberArray([0.2, 0.8])
        defer { for v in [three, nan, ok] { CARelease(UnsafeRawPointer(v)) } }
        QZClearLastError()
        CAGradientLayerSetLocations(g, three)
        #expect(QZGetLastError() == QZErrorInvalidArgument)
        CAGradientLayerSetLocations(g, nan)
        #expect(QZGetLastError() == QZErrorNotFinite)
        CAGradientLayerSetLocations(g, two)
        #expect(QZGetLastError() == QZErrorWrongType)
        #expect(CAGradientLayerGetLocations(g) == nil)
        QZClearLastError()
        CAGradientLayerSetLocations(g, ok)
        #expect(QZGetLastError() == QZErrorNone && CAGradientLayerGetLocations(g) != nil)
        // Colours: numbers are not colours.
        CAGradientLayerSetColors(g, ok)
        #expect(QZGetLastError() == QZErrorWrongType)
        #expect(CAValueGetCount(CAGradientLayerGetColors(g)) == 2)
        // Points: NaN; type: unknown names.
        CAGradientLayerSetEndPoint(g, CGPoint(x: .nan, y: 0))
        #expect(QZGetLastError() == QZErrorNotFinite)
        CAGradientLayerSetType(g, "diagonal")
        #expect(QZGetLastError() == QZErrorUnknownConstant)
        #expect(String(cString: CAGradientLayerGetType(g)!) == "axial")
        CAGradientLayerSetType(g, kCAGradientLayerConic)
        #expect(String(cString: CAGradientLayerGetType(g)!) == "conic")
    }

    @Test func linearMidpointIsTheMeanOfItsTwoColours() {
        // 101 rows: row 50's centre is exactly half-way from the top edge to the bottom one.
        let pb = renderGradient(20, 101) { g in
            let c = colorArray([(1, 0.2, 0, 1), (0, 0.6, 1, 1)])
            CAGradientLayerSetColors(g, c)
            CARelease(UnsafeRawPointer(c))
        }
        defer { CARelease(UnsafeRawPointer(pb)) }
        #expect(near(rgb(pb, 10, 50), SIMD3(0.5, 0.4, 0.5), 1.0 / 255))
        #expect(pixel(pb, 10, 50).3 == 255)
        // The ends: the first colour at the top (startPoint (0.5, 0)), the last at the bottom.
        #expect(near(rgb(pb, 10, 0), SIMD3(1, 0.2, 0), 3.0 / 255))
        #expect(near(rgb(pb, 10, 100), SIMD3(0, 0.6, 1), 3.0 / 255))
        // Horizontal start and end points turn it sideways.
        let side = renderGradient(101, 10) { g in
            let c = colorArray([(0, 0, 0, 1), (1, 1, 1, 1)])
            CAGradientLayerSetColors(g, c)
            CARelease(UnsafeRawPointer(c))
            CAGradientLayerSetStartPoint(g, CGPoint(x: 0, y: 0.5))
            CAGradientLayerSetEndPoint(g, CGPoint(x: 1, y: 0.5))
        }
        defer { CARelease(UnsafeRawPointer(side)) }
        #expect(near(rgb(side, 50, 5), SIMD3(0.5, 0.5, 0.5), 1.0 / 255))
        #expect(near(rgb(side, 25, 5), SIMD3(25.5 / 101, 25.5 / 101, 25.5 / 101), 1.0 / 255))
    }

    @Test func locationsMoveTheStops() {
        // Black until 0.5, then to white at 1.
        let pb = renderGradient(10, 100) { g in
            let c = colorArray([(0, 0, 0, 1), (0, 0, 0, 1), (1, 1, 1, 1)])
            let l = numberArray([0, 0.5, 1])
            CAGradientLayerSetColors(g, c)
            CAGradientLayerSetLocations(g, l)
            CARelease(UnsafeRawPointer(c)); CARelease(UnsafeRawPointer(l))
        }
        defer { CARelease(UnsafeRawPointer(pb)) }
        #expect(rgb(pb, 5, 30) == SIMD3(0, 0, 0))
        let t = (74.5 - 50) / 50   // row 74's centre
        #expect(near(rgb(pb, 5, 74), SIMD3(t, t, t), 1.0 / 255))
    }

    @Test func radialAndConicAtKnownPoints() {
        // Radial: centre (0.5, 0.5), radius to (1, 1): half the width and height.
        let w = 101, h = 101
        let radial = renderGradient(w, h) { g in
            let c = colorArray([(1, 1, 1, 1), (0, 0, 0, 1)])
            CAGradientLayerSetColors(g, c)
            CARelease(UnsafeRawPointer(c))
            CAGradientLayerSetType(g, kCAGradientLayerRadial)
            CAGradientLayerSetStartPoint(g, CGPoint(x: 0.5, y: 0.5))
            CAGradientLayerSetEndPoint(g, CGPoint(x: 1, y: 1))
        }
        defer { CARelease(UnsafeRawPointer(radial)) }
        for (x, y) in [(50, 50), (70, 50), (50, 20), (80, 80), (60, 45), (5, 50)] {
            let d = (pow(Double(x) + 0.5 - 50.5, 2) + pow(Double(y) + 0.5 - 50.5, 2)).squareRoot()
            let t = Swift.min(d / 50.5, 1)
            #expect(near(rgb(radial, x, y), SIMD3(1 - t, 1 - t, 1 - t), 2.0 / 255), "radial at \(x), \(y)")
        }
        // Conic: around the centre, from the direction of (1, 0.5) (east), clockwise on screen.
        let conic = renderGradient(w, h) { g in
            let c = colorArray([(0, 0, 0, 1), (1, 1, 1, 1)])
            CAGradientLayerSetColors(g, c)
            CARelease(UnsafeRawPointer(c))
            CAGradientLayerSetType(g, kCAGradientLayerConic)
            CAGradientLayerSetStartPoint(g, CGPoint(x: 0.5, y: 0.5))
            CAGradientLayerSetEndPoint(g, CGPoint(x: 1, y: 0.5))
        }
        defer { CARelease(UnsafeRawPointer(conic)) }
        for (x, y) in [(80, 80), (50, 90), (10, 60), (10, 40), (50, 10), (90, 20), (90, 52)] {
            var a = atan2(Double(y) + 0.5 - 50.5, Double(x) + 0.5 - 50.5)
            if a < 0 { a += 2 * .pi }
            let t = a / (2 * .pi)
            #expect(near(rgb(conic, x, y), SIMD3(t, t, t), 2.0 / 255), "conic at \(x), \(y)")
        }
    }

    @Test func colorsAnimateFromPresentationValues() {
        let g = Layer(class: .gradient)
        g.bounds = CGRect(x: 0, y: 0, width: 10, height: 10)
        let red = Value(.color(Color(space: .sRGB, components: [1, 0, 0, 1])))
        let blue = Value(.color(Color(space: .sRGB, components: [0, 0, 1, 1])))
        let a = Animation(kind: .basic)
        a.keyPath = "colors"
        a.fromValue = Value(.array([red, red]))
        a.toValue = Value(.array([blue, blue]))
        a.timing.duration = 1
        withModelLock { g.addAnimation(a, forKey: "c", now: 0) }
        let mid = withModelLock { g.presentationCopy(now: 0.5).gradient?.colors }
        let colors = mid.flatMap(GradientLayerState.colorList)
        #expect(colors?.count == 2)
        #expect(abs((colors?[0].rgba.x ?? 0) - 0.5) < 1e-9 && abs((colors?[0].rgba.z ?? 0) - 0.5) < 1e-9)
    }

    @Test func theBitmapIsReusedUntilAPropertyChanges() {
        let root = TL(0, 0, 20, 20)
        let g = CAGradientLayerCreate()!
        defer { CARelease(UnsafeRawPointer(g)) }
        CALayerSetFrame(g, CGRect(x: 0, y: 0, width: 20, height: 20))
        let c = colorArray([(1, 0, 0, 1), (0, 1, 0, 1)])
        CAGradientLayerSetColors(g, c)
        CARelease(UnsafeRawPointer(c))
        CALayerAddSublayer(root.ref, g)
        CATransactionFlush()
        let model = Unmanaged<Layer>.fromOpaque(UnsafeRawPointer(g)).takeUnretainedValue()
        CARelease(UnsafeRawPointer(renderScene(root, 20, 20)))
        let first = withModelLock { model.gradient?.renderCache }
        CARelease(UnsafeRawPointer(renderScene(root, 20, 20)))
        #expect(first != nil && withModelLock { model.gradient?.renderCache } === first)
        CAGradientLayerSetType(g, kCAGradientLayerRadial)
        CATransactionFlush()
        CARelease(UnsafeRawPointer(renderScene(root, 20, 20, at: 2000)))
        #expect(withModelLock { model.gradient?.renderCache } !== first)
    }
}
