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

// Expected values are worked out by hand (or by an independent numerical
// integration below), not read back from the library.

private let kappa = 0.5522847498
/// 4/3 tan(θ/4) for a 90° arc: the control distance CGPathAddArc uses.
private let arcKappa = 4.0 / 3.0 * tan(Double.pi / 8)

private func near(_ a: Double, _ b: Double, _ tol: Double = 1e-9) -> Bool { abs(a - b) <= tol }
private func near(_ p: CGPoint, _ x: Double, _ y: Double, _ tol: Double = 1e-9) -> Bool { near(p.x, x, tol) && near(p.y, y, tol) }
private func near(_ r: CGRect, _ x: Double, _ y: Double, _ w: Double, _ h: Double, _ tol: Double = 1e-9) -> Bool {
    near(r.origin.x, x, tol) && near(r.origin.y, y, tol) && near(r.size.width, w, tol) && near(r.size.height, h, tol)
}

/// The elements of a path through QZPathGetElementAtIndex.
private func elements(_ path: OpaquePointer?) -> [(CGPathElementType, [CGPoint])] {
    (0..<QZPathGetElementCount(path)).map { i in
        var buffer = [CGPoint](repeating: CGPoint(x: .nan, y: .nan), count: 3)
        let type = QZPathGetElementAtIndex(path, i, &buffer)
        let n = [1, 1, 2, 3, 0][Int(type.rawValue)]
        return (type, Array(buffer.prefix(n)))
    }
}

private func types(_ path: OpaquePointer?) -> [UInt32] { elements(path).map { $0.0.rawValue } }

private func withTransform<R>(_ t: CGAffineTransform, _ body: (UnsafePointer<CGAffineTransform>) -> R) -> R {
    withUnsafePointer(to: t) { body($0) }
}

/// Arc length of a cubic Bézier by composite Simpson's rule (independent of
/// the library's Gauss-Legendre measure).
private func simpsonLength(_ p0: CGPoint, _ p1: CGPoint, _ p2: CGPoint, _ p3: CGPoint, steps: Int = 20000) -> Double {
    func speed(_ t: Double) -> Double {
        let mt = 1 - t
        let x = 3 * mt * mt * (p1.x - p0.x) + 6 * mt * t * (p2.x - p1.x) + 3 * t * t * (p3.x - p2.x)
        let y = 3 * mt * mt * (p1.y - p0.y) + 6 * mt * t * (p2.y - p1.y) + 3 * t * t * (p3.y - p2.y)
        return (x * x + y * y).squareRoot()
    }
    let h = 1.0 / Double(steps)
    var sum = speed(0) + speed(1)
    for i in 1..<steps { sum += (i % 2 == 1 ? 4 : 2) * speed(Double(i) * h) }
    return sum * h / 3
}

private func pt(_ x: Double, _ y: Double) -> CGPoint { CGPoint(x: x, y: y) }

@Suite struct PathBuildingTests {
    @Test func rectangleElementsFollowApplesOrder() {
        let p = CGPathCreateWithRect(CGRect(x: 10, y: 20, width: -10, height: 30), nil)
        let e = elements(p)
        #expect(types(p) == [0, 1, 1, 1, 4])
        #expect(near(e[0].1[0], 0, 20) && near(e[1].1[0], 10, 20) && near(e[2].1[0], 10, 50) && near(e[3].1[0], 0, 50))
        var r = CGRect.zero
        #expect(CGPathIsRect(p, &r) && near(r, 0, 20, 10, 30))
        #expect(near(CGPathGetCurrentPoint(p), 0, 20))   // after the close: the subpath's start
        CGPathRelease(p)
    }

    @Test func ellipseIsFourQuadrantsWithKappa() {
        let p = CGPathCreateWithEllipseInRect(CGRect(x: 0, y: 0, width: 100, height: 50), nil)
        let e = elements(p)
        #expect(types(p) == [0, 3, 3, 3, 3, 4])
        #expect(near(e[0].1[0], 100, 25))
        #expect(near(e[1].1[0], 100, 25 + 25 * kappa) && near(e[1].1[1], 50 + 50 * kappa, 50) && near(e[1].1[2], 50, 50))
        #expect(near(e[2].1[2], 0, 25) && near(e[3].1[2], 50, 0) && near(e[4].1[2], 100, 25))
        #expect(!CGPathIsRect(p, nil))
        CGPathRelease(p)
    }

    @Test func lineWithoutCurrentPointIsRejected() {
        QZClearLastError()
        let p = CGPathCreateMutable()
        CGPathAddLineToPoint(p, nil, 1, 1)
        #expect(takeError() == QZErrorInvalidState)
        CGPathAddQuadCurveToPoint(p, nil, 1, 1, 2, 2)
        #expect(takeError() == QZErrorInvalidState)
        CGPathAddCurveToPoint(p, nil, 1, 1, 2, 2, 3, 3)
        #expect(takeError() == QZErrorInvalidState)
        CGPathAddArcToPoint(p, nil, 1, 1, 2, 2, 1)
        #expect(takeError() == QZErrorInvalidState)
        CGPathCloseSubpath(p)                       // a no-op, not an error
        #expect(takeError() == QZErrorNone)
        #expect(CGPathIsEmpty(p))
        #expect(near(CGPathGetCurrentPoint(p), 0, 0))
        #expect(CGPathGetBoundingBox(p).isNull && CGPathGetPathBoundingBox(p).isNull)
        CGPathRelease(p)
    }

    @Test func lineAfterCloseStartsAtTheSubpathStart() {
        let p = CGPathCreateMutable()
        CGPathMoveToPoint(p, nil, 1, 2)
        CGPathAddLineToPoint(p, nil, 5, 2)
        CGPathCloseSubpath(p)
        CGPathCloseSubpath(p)                       // a second close is ignored
        #expect(near(CGPathGetCurrentPoint(p), 1, 2))
        CGPathAddLineToPoint(p, nil, 1, 9)
        #expect(types(p) == [0, 1, 4, 1])
        // Length: 4 out, 4 back (the close), then 7 from the start.
        #expect(near(QZPathGetLength(p), 15))
        CGPathRelease(p)
    }

    @Test func transformsApplyToEveryPoint() {
        let p = CGPathCreateMutable()
        let t = CGAffineTransform(a: 2, b: 0, c: 0, d: 3, tx: 10, ty: 20)   // scale then translate
        withTransform(t) { m in
            CGPathMoveToPoint(p, m, 1, 1)
            CGPathAddQuadCurveToPoint(p, m, 2, 0, 3, 1)
            CGPathAddRect(p, m, CGRect(x: 0, y: 0, width: 1, height: 1))
        }
        let e = elements(p)
        #expect(near(e[0].1[0], 12, 23))
        #expect(near(e[1].1[0], 14, 20) && near(e[1].1[1], 16, 23))
        #expect(near(e[2].1[0], 10, 20) && near(e[4].1[0], 12, 23))
        let rotated = withTransform(CGAffineTransform(rotationAngle: .pi / 2)) { CGPathCreateWithRect(CGRect(x: 0, y: 0, width: 10, height: 20), $0) }
        var r = CGRect.zero
        #expect(CGPathIsRect(rotated, &r) && near(r, -20, 0, 20, 10))   // a quarter turn keeps it a rectangle
        CGPathRelease(rotated)
        CGPathRelease(p)
    }

    @Test func addLinesRectsAndPath() {
        let p = CGPathCreateMutable()
        let pts = [pt(0, 0), pt(3, 0), pt(3, 4)]
        CGPathAddLines(p, nil, pts, 3)
        #expect(types(p) == [0, 1, 1] && near(QZPathGetLength(p), 7))
        let rects = [CGRect(x: 0, y: 0, width: 1, height: 1), CGRect(x: 5, y: 5, width: 2, height: 2)]
        CGPathAddRects(p, nil, rects, 2)
        #expect(QZPathGetElementCount(p) == 13)
        CGPathAddPath(p, nil, p)                    // itself: appended once
        #expect(QZPathGetElementCount(p) == 26)
        #expect(near(CGPathGetBoundingBox(p), 0, 0, 7, 7))
        QZClearLastError()
        CGPathAddLines(p, nil, nil, 2)
        #expect(takeError() == QZErrorNullArgument)
        CGPathAddRects(p, nil, [CGRect(x: 0, y: 0, width: 1, height: 1), CGRect(x: .nan, y: 0, width: 1, height: 1)], 2)
        #expect(takeError() == QZErrorNotFinite)
        #expect(QZPathGetElementCount(p) == 26)     // all or nothing
        CGPathRelease(p)
    }
}

@Suite struct PathArcTests {
    @Test func counterClockwiseQuarter() {
        let p = CGPathCreateMutable()
        CGPathAddArc(p, nil, 0, 0, 10, 0, .pi / 2, false)
        let e = elements(p)
        #expect(types(p) == [0, 3])
        #expect(near(e[0].1[0], 10, 0))
        #expect(near(e[1].1[0], 10, 10 * arcKappa) && near(e[1].1[1], 10 * arcKappa, 10) && near(e[1].1[2], 0, 10))
        #expect(near(arcKappa, 0.5522847498, 1e-10))
        CGPathRelease(p)
    }

    @Test func clockwiseSweepsTowardsDecreasingAngles() {
        let p = CGPathCreateMutable()
        CGPathAddArc(p, nil, 0, 0, 10, 0, .pi / 2, true)   // three quarters: through -90° and 180°
        let e = elements(p)
        #expect(types(p) == [0, 3, 3, 3])
        #expect(near(e[1].1[2], 0, -10) && near(e[2].1[2], -10, 0) && near(e[3].1[2], 0, 10))
        #expect(near(e[1].1[0], 10, -10 * arcKappa))        // leaving (10, 0) downwards
        #expect(near(CGPathGetCurrentPoint(p), 0, 10))
        CGPathRelease(p)
    }

    @Test func fullCircleCasesOfCGPathH() {
        let ccw = CGPathCreateMutable(), cwEmpty = CGPathCreateMutable(), cwFull = CGPathCreateMutable()
        CGPathAddArc(ccw, nil, 0, 0, 10, 0, 2 * .pi, false)
        CGPathAddArc(cwEmpty, nil, 0, 0, 10, 0, 2 * .pi, true)
        CGPathAddArc(cwFull, nil, 0, 0, 10, 2 * .pi, 0, true)
        #expect(types(ccw) == [0, 3, 3, 3, 3])
        #expect(types(cwEmpty) == [0])
        #expect(types(cwFull) == [0, 3, 3, 3, 3])
        #expect(near(elements(ccw)[1].1[2], 0, 10) && near(elements(cwFull)[1].1[2], 0, -10))
        #expect(near(CGPathGetCurrentPoint(ccw), 10, 0))
        [ccw, cwEmpty, cwFull].forEach { CGPathRelease($0) }
    }

    @Test func implicitLineFromTheCurrentPoint() {
        let p = CGPathCreateMutable()
        CGPathMoveToPoint(p, nil, 20, 20)
        CGPathAddArc(p, nil, 0, 0, 10, .pi, 3 * .pi / 2, false)
        let e = elements(p)
        #expect(types(p) == [0, 1, 3])
        #expect(near(e[1].1[0], -10, 0) && near(e[2].1[2], 0, -10))
        // Already at the start: no zero-length line.
        CGPathAddArc(p, nil, 0, 0, 10, 3 * .pi / 2, 2 * .pi, false)
        #expect(types(p) == [0, 1, 3, 3])
        // The comparison is made after the transform: (5, 0) moved by 5 is the current point (10, 0).
        withTransform(CGAffineTransform(translationX: 5, y: 0)) { CGPathAddArc(p, $0, 0, 0, 5, 0, .pi, false) }
        #expect(types(p) == [0, 1, 3, 3, 3, 3])
        CGPathRelease(p)
    }

    @Test func relativeArcAndTransform() {
        let p = CGPathCreateMutable()
        withTransform(CGAffineTransform(translationX: 100, y: 0)) { m in
            CGPathAddRelativeArc(p, m, 0, 0, 10, 0, -.pi)
        }
        let e = elements(p)
        #expect(types(p) == [0, 3, 3])
        #expect(near(e[0].1[0], 110, 0) && near(e[1].1[2], 100, -10) && near(e[2].1[2], 90, 0))
        // Three quarter turns of a 90° arc through 270° in fewer than 4 pieces is impossible.
        let q = CGPathCreateMutable()
        CGPathAddRelativeArc(q, nil, 0, 0, 1, 0, 4.5 * .pi / 2)
        #expect(types(q) == [0, 3, 3, 3, 3])        // clamped to a full turn, ≤ 90° per curve
        CGPathRelease(q)
        CGPathRelease(p)
    }

    @Test func arcToPointIsTangentToBothLines() {
        let p = CGPathCreateMutable()
        CGPathMoveToPoint(p, nil, 0, 0)
        CGPathAddArcToPoint(p, nil, 10, 0, 10, 10, 5)
        let e = elements(p)
        #expect(types(p) == [0, 1, 3])
        #expect(near(e[1].1[0], 5, 0))                             // first tangent point
        #expect(near(e[2].1[0], 5 + 5 * arcKappa, 0) && near(e[2].1[1], 10, 5 - 5 * arcKappa))
        #expect(near(e[2].1[2], 10, 5) && near(CGPathGetCurrentPoint(p), 10, 5))
        // Collinear points: a line to (x1, y1).
        CGPathAddArcToPoint(p, nil, 10, 20, 10, 30, 5)
        #expect(types(p) == [0, 1, 3, 1] && near(CGPathGetCurrentPoint(p), 10, 20))
        QZClearLastError()
        CGPathAddArcToPoint(p, nil, 0, 0, 1, 1, -1)
        #expect(takeError() == QZErrorInvalidArgument)
        CGPathRelease(p)
    }
}

@Suite struct PathGeometryTests {
    @Test func ellipseBoxesControlPointsVersusTight() {
        let r = CGRect(x: -10, y: -10, width: 20, height: 20)
        let plain = CGPathCreateWithEllipseInRect(r, nil)
        // Axis-aligned: the control points sit on the rectangle's edges.
        #expect(near(CGPathGetBoundingBox(plain), -10, -10, 20, 20))
        #expect(near(CGPathGetPathBoundingBox(plain), -10, -10, 20, 20))
        let rotated = withTransform(CGAffineTransform(rotationAngle: .pi / 4)) { CGPathCreateWithEllipseInRect(r, $0) }
        // Control point (10, 10k) turned by 45°: x = 10 (1 + k) / √2.
        let half = 10 * (1 + kappa) / 2.0.squareRoot()
        #expect(near(CGPathGetBoundingBox(rotated), -half, -half, 2 * half, 2 * half, 1e-9))
        // The curve itself: the quadrant midpoints lie on the circle, so the box is the circle's.
        #expect(near(CGPathGetPathBoundingBox(rotated), -10, -10, 20, 20, 1e-6))
        CGPathRelease(plain)
        CGPathRelease(rotated)
    }

    @Test func curveExtremaSetTheTightBox() {
        let p = CGPathCreateMutable()
        CGPathMoveToPoint(p, nil, 0, 0)
        CGPathAddQuadCurveToPoint(p, nil, 50, 100, 100, 0)        // peak at t = 1/2: y = 50
        #expect(near(CGPathGetBoundingBox(p), 0, 0, 100, 100))
        #expect(near(CGPathGetPathBoundingBox(p), 0, 0, 100, 50))
        let c = CGPathCreateMutable()
        CGPathMoveToPoint(c, nil, 0, 0)
        CGPathAddCurveToPoint(c, nil, 0, 100, 100, 100, 100, 0)   // peak at t = 1/2: y = 3/4 · 100
        #expect(near(CGPathGetPathBoundingBox(c), 0, 0, 100, 75))
        CGPathRelease(p)
        CGPathRelease(c)
    }

    @Test func roundedRectShapeAndLength() {
        let p = CGPathCreateWithRoundedRect(CGRect(x: 0, y: 0, width: 100, height: 50), 10, 5, nil)
        let e = elements(p)
        #expect(types(p) == [0, 1, 3, 1, 3, 1, 3, 1, 3, 4])
        #expect(near(e[0].1[0], 10, 0) && near(e[1].1[0], 90, 0))
        #expect(near(e[2].1[0], 90 + 10 * kappa, 0) && near(e[2].1[1], 100, 5 - 5 * kappa) && near(e[2].1[2], 100, 5))
        #expect(near(CGPathGetBoundingBox(p), 0, 0, 100, 50) && near(CGPathGetPathBoundingBox(p), 0, 0, 100, 50))
        let corner = simpsonLength(pt(0, 0), pt(10 * kappa, 0), pt(10, 5 - 5 * kappa), pt(10, 5))
        #expect(near(QZPathGetLength(p), 2 * 80 + 2 * 40 + 4 * corner, 1e-8))
        // Corners cut: (1, 1) lies outside the quarter ellipse centred (10, 5) with radii 10 x 5.
        #expect(!CGPathContainsPoint(p, nil, pt(1, 1), false))
        #expect(CGPathContainsPoint(p, nil, pt(5, 25), false) && CGPathContainsPoint(p, nil, pt(8, 2), false))
        CGPathRelease(p)
        QZClearLastError()
        #expect(CGPathCreateWithRoundedRect(CGRect(x: 0, y: 0, width: 100, height: 50), 51, 5, nil) == nil)
        #expect(takeError() == QZErrorInvalidArgument)
        #expect(CGPathCreateWithRoundedRect(CGRect(x: 0, y: 0, width: 100, height: 50), -1, 5, nil) == nil)
        #expect(takeError() == QZErrorInvalidArgument)
        let square = CGPathCreateWithRoundedRect(CGRect(x: 0, y: 0, width: 10, height: 10), 0, 5, nil)
        #expect(CGPathIsRect(square, nil))                         // zero corner: a plain rectangle
        CGPathRelease(square)
    }

    @Test func windingVersusEvenOddOnARectWithAHole() {
        let same = CGPathCreateMutable()
        CGPathAddRect(same, nil, CGRect(x: 0, y: 0, width: 100, height: 100))
        CGPathAddRect(same, nil, CGRect(x: 25, y: 25, width: 50, height: 50))   // same direction
        let reversed = CGPathCreateMutable()
        CGPathAddRect(reversed, nil, CGRect(x: 0, y: 0, width: 100, height: 100))
        CGPathAddLines(reversed, nil, [pt(25, 25), pt(25, 75), pt(75, 75), pt(75, 25)], 4)   // opposite direction
        CGPathCloseSubpath(reversed)
        let hole = pt(50, 50), ring = pt(10, 50), outside = pt(150, 50)
        #expect(CGPathContainsPoint(same, nil, hole, false))       // winding number 2
        #expect(!CGPathContainsPoint(same, nil, hole, true))
        #expect(!CGPathContainsPoint(reversed, nil, hole, false))  // winding number 0
        #expect(!CGPathContainsPoint(reversed, nil, hole, true))
        for p in [same, reversed] {
            #expect(CGPathContainsPoint(p, nil, ring, false) && CGPathContainsPoint(p, nil, ring, true))
            #expect(!CGPathContainsPoint(p, nil, outside, false))
        }
        // Half-open edges, as CGRectContainsPoint: min edges in, max edges out.
        #expect(CGPathContainsPoint(same, nil, pt(0, 0), false) && !CGPathContainsPoint(same, nil, pt(100, 50), false))
        // The point is transformed by m first.
        #expect(withTransform(CGAffineTransform(translationX: -100, y: 0)) { CGPathContainsPoint(same, $0, pt(110, 50), false) })
        CGPathRelease(same)
        CGPathRelease(reversed)
    }

    @Test func circleContainmentIsExactNearTheCurve() {
        let p = CGPathCreateWithEllipseInRect(CGRect(x: -100, y: -100, width: 200, height: 200), nil)
        // Along the diagonal the Bézier passes through the circle (t = 1/2 of each quadrant).
        let d = 100 / 2.0.squareRoot()
        #expect(CGPathContainsPoint(p, nil, pt(d - 1e-3, d - 1e-3), false))
        #expect(!CGPathContainsPoint(p, nil, pt(d + 1e-3, d + 1e-3), false))
        // An open subpath is filled as if closed.
        let open = CGPathCreateMutable()
        CGPathAddLines(open, nil, [pt(0, 0), pt(10, 0), pt(10, 10)], 3)
        #expect(CGPathContainsPoint(open, nil, pt(8, 2), true) && !CGPathContainsPoint(open, nil, pt(2, 8), true))
        CGPathRelease(open)
        CGPathRelease(p)
    }

    @Test func flatteningStaysWithinTolerance() {
        var data = PathData()
        try? data.addEllipse(in: CGRect(x: 0, y: 0, width: 200, height: 100))
        let segments = data.segments
        for tolerance in [1.0, 0.01] {
            let lines = data.flattened(tolerance: tolerance)
            #expect(lines.count == 1 && lines[0].isClosed)
            let pts = lines[0].points
            #expect(near(pts.first!, pts.last!.x, pts.last!.y, 0))
            // Chord midpoints against the curve at the matching parameter midpoints.
            var worst = 0.0
            var index = 0
            for s in segments {
                let n = s.flatteningSteps(tolerance: tolerance)
                for i in 0..<n {
                    let a = pts[index + i], b = pts[index + i + 1]
                    let c = s.point(at: (Double(i) + 0.5) / Double(n))
                    worst = Swift.max(worst, ((a.x + b.x) / 2 - c.x).magnitude, ((a.y + b.y) / 2 - c.y).magnitude)
                }
                index += n
            }
            #expect(worst <= tolerance)
            #expect(index == pts.count - 1)
        }
    }
}

@Suite struct PathMeasureTests {
    @Test func rectangleLengthAndPositions() {
        let p = CGPathCreateWithRect(CGRect(x: 0, y: 0, width: 100, height: 50), nil)
        #expect(QZPathGetLength(p) == 300)
        var tangent = CGPoint()
        #expect(near(QZPathGetPointAtDistance(p, 120, &tangent), 100, 20) && near(tangent, 0, 1))
        #expect(near(QZPathGetPointAtDistance(p, 150, &tangent), 100, 50) && near(tangent, -1, 0))  // the later edge
        #expect(near(QZPathGetPointAtDistance(p, 275, &tangent), 0, 25) && near(tangent, 0, -1))
        #expect(near(QZPathGetPointAtDistance(p, -5, &tangent), 0, 0) && near(tangent, 1, 0))      // clamped
        #expect(near(QZPathGetPointAtDistance(p, 1e9, &tangent), 0, 0) && near(tangent, 0, -1))
        let lengths = Unmanaged<Path>.fromOpaque(UnsafeRawPointer(p!)).takeUnretainedValue().measure.elementLengths
        #expect(lengths == [0, 100, 50, 100, 50])
        CGPathRelease(p)
    }

    @Test func circleLengthMatchesAnIndependentIntegration() {
        let p = CGPathCreateWithEllipseInRect(CGRect(x: -10, y: -10, width: 20, height: 20), nil)
        let quarter = simpsonLength(pt(10, 0), pt(10, 10 * kappa), pt(10 * kappa, 10), pt(0, 10))
        let length = QZPathGetLength(p)
        #expect(near(length, 4 * quarter, 1e-9))
        // The four-Bézier circle is 1.4e-4 longer than the true circle (2π · 10 = 62.8319).
        #expect(abs(length - 2 * .pi * 10) < 0.01 && near(length, 62.84067, 1e-5))
        var tangent = CGPoint()
        // By symmetry a quarter of the length lands on (0, 10), heading towards -x.
        #expect(near(QZPathGetPointAtDistance(p, length / 4, &tangent), 0, 10, 1e-9) && near(tangent, -1, 0, 1e-9))
        // An eighth lands on the quadrant's midpoint, which is on the circle at 45°.
        let d = 10 / 2.0.squareRoot()
        #expect(near(QZPathGetPointAtDistance(p, length / 8, &tangent), d, d, 1e-9))
        #expect(near(tangent, -0.5.squareRoot(), 0.5.squareRoot(), 1e-9))
        CGPathRelease(p)
    }

    @Test func emptyAndDegeneratePaths() {
        let p = CGPathCreateMutable()
        var tangent = CGPoint(x: 5, y: 5)
        #expect(QZPathGetLength(p) == 0)
        #expect(near(QZPathGetPointAtDistance(p, 3, &tangent), 0, 0) && near(tangent, 0, 0))
        CGPathMoveToPoint(p, nil, 4, 5)
        #expect(near(QZPathGetPointAtDistance(p, 3, &tangent), 4, 5) && near(tangent, 0, 0))
        CGPathAddLineToPoint(p, nil, 7, 9)                 // the cache is dropped on change
        #expect(QZPathGetLength(p) == 5)
        QZClearLastError()
        _ = QZPathGetPointAtDistance(p, .nan, &tangent)
        #expect(takeError() == QZErrorNotFinite)
        CGPathRelease(p)
    }
}

@Suite struct PathHandleTests {
    @Test func immutablePathsRejectChanges() {
        QZClearLastError()
        let m = CGPathCreateMutable()
        CGPathMoveToPoint(m, nil, 0, 0)
        let copy = CGPathCreateCopy(m)!
        #expect(CGPathCreateCopy(copy) == copy)                // immutable: the same object, retained
        CGPathRelease(copy)
        let fixed = CGPathCreateWithRect(CGRect(x: 0, y: 0, width: 1, height: 1), nil)!
        for p in [copy, fixed] {
            let before = QZPathGetElementCount(p)
            CGPathAddLineToPoint(p, nil, 1, 1)
            #expect(takeError() == QZErrorWrongType)
            #expect(lastErrorMessage().isEmpty)
            CGPathMoveToPoint(p, nil, 1, 1)
            #expect(QZGetLastError() == QZErrorWrongType)
            #expect(lastErrorMessage().hasPrefix("CGPathMoveToPoint: expected a CGMutablePathRef, got an immutable CGPathRef"))
            QZClearLastError()
            CGPathCloseSubpath(p)
            #expect(takeError() == QZErrorWrongType)
            #expect(QZPathGetElementCount(p) == before)
        }
        // The copy does not follow the original, and a mutable copy of it can change.
        CGPathAddLineToPoint(m, nil, 5, 5)
        #expect(QZPathGetElementCount(copy) == 1 && QZPathGetElementCount(m) == 2)
        let again = CGPathCreateMutableCopy(copy)
        CGPathAddLineToPoint(again, nil, 1, 1)
        #expect(takeError() == QZErrorNone && QZPathGetElementCount(again) == 2)
        #expect(!CGPathEqualToPath(copy, again))
        let same = CGPathCreateMutableCopy(m)
        #expect(CGPathEqualToPath(m, same))
        [m, copy, fixed, again, same].forEach { CGPathRelease($0) }
    }

    @Test func nullWrongTypeAndNaNAcrossFamilies() {
        QZClearLastError()
        let color = CGColorCreateSRGB(1, 0, 0, 1)!
        let path = CGPathCreateMutable()
        // Builders.
        CGPathMoveToPoint(nil, nil, 0, 0)
        #expect(takeError() == QZErrorNullArgument)
        CGPathMoveToPoint(color, nil, 0, 0)
        #expect(takeError() == QZErrorWrongType)
        #expect(QZGetLastError() == QZErrorNone)
        CGPathMoveToPoint(path, nil, .nan, 0)
        #expect(takeError() == QZErrorNotFinite)
        withTransform(CGAffineTransform(a: .infinity, b: 0, c: 0, d: 1, tx: 0, ty: 0)) { CGPathAddRect(path, $0, CGRect(x: 0, y: 0, width: 1, height: 1)) }
        #expect(takeError() == QZErrorNotFinite)
        withTransform(CGAffineTransform(a: 1e308, b: 0, c: 0, d: 1, tx: 0, ty: 0)) { CGPathMoveToPoint(path, $0, 1e10, 0) }
        #expect(takeError() == QZErrorNotFinite)                  // overflows to infinity
        CGPathAddRect(path, nil, .null)
        #expect(takeError() == QZErrorNotFinite)
        CGPathAddArc(path, nil, 0, 0, .nan, 0, 1, false)
        #expect(takeError() == QZErrorNotFinite)
        CGPathAddArc(path, nil, 0, 0, -1, 0, 1, false)
        #expect(takeError() == QZErrorInvalidArgument)
        CGPathAddPath(path, nil, color)
        #expect(takeError() == QZErrorWrongType)
        #expect(CGPathIsEmpty(path))
        // Creators and copies.
        #expect(CGPathCreateCopy(nil) == nil && takeError() == QZErrorNullArgument)
        #expect(CGPathCreateMutableCopy(color) == nil && takeError() == QZErrorWrongType)
        #expect(CGPathCreateWithEllipseInRect(CGRect(x: .nan, y: 0, width: 1, height: 1), nil) == nil && takeError() == QZErrorNotFinite)
        // Readers: neutral results.
        #expect(CGPathIsEmpty(nil) && takeError() == QZErrorNullArgument)
        #expect(!CGPathIsRect(color, nil) && takeError() == QZErrorWrongType)
        #expect(CGPathGetBoundingBox(color).isNull && takeError() == QZErrorWrongType)
        #expect(near(CGPathGetCurrentPoint(nil), 0, 0) && takeError() == QZErrorNullArgument)
        #expect(!CGPathContainsPoint(path, nil, pt(.nan, 0), false) && takeError() == QZErrorNotFinite)
        #expect(!CGPathEqualToPath(path, nil) && takeError() == QZErrorNullArgument)
        #expect(CGPathEqualToPath(nil, nil) && takeError() == QZErrorNone)
        #expect(QZPathGetElementCount(color) == 0 && takeError() == QZErrorWrongType)
        #expect(QZPathGetElementAtIndex(path, 0, nil) == kCGPathElementCloseSubpath && takeError() == QZErrorOutOfRange)
        #expect(QZPathGetLength(nil) == 0 && takeError() == QZErrorNullArgument)
        CGPathApply(path, nil, nil)
        #expect(takeError() == QZErrorNullArgument)
        // Reference counting.
        #expect(CGPathRetain(nil) == nil && takeError() == QZErrorNone)
        CGPathRelease(nil)
        #expect(takeError() == QZErrorNone)
        #expect(CGPathRetain(color) == nil && takeError() == QZErrorWrongType)
        CGPathRelease(path)
        CGColorRelease(color)
    }

    @Test func applyVisitsEveryElementAndToleratesChanges() {
        let p = CGPathCreateMutable()
        CGPathMoveToPoint(p, nil, 1, 2)
        CGPathAddQuadCurveToPoint(p, nil, 3, 4, 5, 6)
        CGPathAddCurveToPoint(p, nil, 7, 8, 9, 10, 11, 12)
        CGPathCloseSubpath(p)
        final class Box { var seen: [(UInt32, [Double])] = []; var path: OpaquePointer? }
        let box = Box()
        box.path = p
        CGPathApply(p, Unmanaged.passUnretained(box).toOpaque()) { info, element in
            let box = Unmanaged<Box>.fromOpaque(info!).takeUnretainedValue()
            let e = element!.pointee
            let n = [1, 1, 2, 3, 0][Int(e.type.rawValue)]
            box.seen.append((e.type.rawValue, (0..<n).flatMap { [e.points[$0].x, e.points[$0].y] }))
            CGPathAddLineToPoint(box.path, nil, 0, 0)              // changes during the walk are not visited
        }
        #expect(box.seen.map(\.0) == [0, 2, 3, 4])
        #expect(box.seen.map(\.1) == [[1, 2], [3, 4, 5, 6], [7, 8, 9, 10, 11, 12], []])
        #expect(QZPathGetElementCount(p) == 8)
        CGPathRelease(p)
    }

    @Test func equalityAndTransformedCopies() {
        let a = CGPathCreateWithRect(CGRect(x: 0, y: 0, width: 2, height: 2), nil)
        let b = CGPathCreateMutable()
        CGPathAddRect(b, nil, CGRect(x: 0, y: 0, width: 2, height: 2))
        #expect(CGPathEqualToPath(a, b))                       // mutability does not matter
        let moved = withTransform(CGAffineTransform(translationX: 1, y: 1)) { CGPathCreateCopyByTransformingPath(a, $0) }
        #expect(!CGPathEqualToPath(a, moved))
        #expect(near(CGPathGetBoundingBox(moved), 1, 1, 2, 2))
        let back = withTransform(CGAffineTransform(translationX: -1, y: -1)) { CGPathCreateMutableCopyByTransformingPath(moved, $0) }
        #expect(CGPathEqualToPath(a, back))
        CGPathAddLineToPoint(back, nil, 9, 9)                  // mutable
        #expect(!CGPathEqualToPath(a, back))
        [a, b, moved, back].forEach { CGPathRelease($0) }
    }

    @Test func pathsAreObjectValues() {
        let p = CGPathCreateMutable()!
        let v = CAValueCreateWithObject(UnsafeRawPointer(p))
        #expect(CAValueGetType(v) == CAValueTypeObject)
        #expect(CAValueGetObject(v) == UnsafeMutableRawPointer(p))
        weak let weakPath = Unmanaged<Path>.fromOpaque(UnsafeRawPointer(p)).takeUnretainedValue()
        CGPathRelease(p)
        #expect(weakPath != nil)                               // the value holds a reference
        CARelease(UnsafeRawPointer(v))
        #expect(weakPath == nil)
    }
}
