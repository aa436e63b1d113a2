import CQuartzite
import Testing
@testable import QuartziteCore
@testable import QuartziteGeometry
@testable import QuartziteVideo
@testable import QuartziteGraphics
@testable import QuartziteModel
@testable import QuartziteRender
@testable import Quartzite

@Suite struct GeometryTests {
    @Test func negativeSizesStandardize() {
        let r = CGRect(x: 10, y: 10, width: -5, height: -6)
        #expect(r.minX == 5 && r.maxX == 10 && r.minY == 4 && r.maxY == 10)
        #expect(r.standardized.isEqual(to: CGRect(x: 5, y: 4, width: 5, height: 6)))
        #expect(CGRectGetWidth(r) == 5 && CGRectGetHeight(r) == 6)
    }

    @Test func intersectionAndUnion() {
        let a = CGRect(x: 0, y: 0, width: 10, height: 10)
        #expect(a.intersection(CGRect(x: 5, y: 5, width: 10, height: 10)).isEqual(to: CGRect(x: 5, y: 5, width: 5, height: 5)))
        #expect(a.intersection(CGRect(x: 11, y: 0, width: 1, height: 1)).isNull)
        #expect(a.union(.null).isEqual(to: a))
        #expect(CGRect.null.union(.null).isNull)
        #expect(a.union(CGRect(x: -5, y: 20, width: 1, height: 1)).isEqual(to: CGRect(x: -5, y: 0, width: 15, height: 21)))
    }

    @Test func containmentIsHalfOpen() {
        let a = CGRect(x: 0, y: 0, width: 10, height: 10)
        #expect(a.contains(CGPoint(x: 0, y: 0)))
        #expect(!a.contains(CGPoint(x: 10, y: 0)))
        #expect(!a.contains(CGPoint(x: 0, y: 10)))
        #expect(a.contains(CGRect(x: 0, y: 0, width: 10, height: 10)))
        #expect(!CGRect.null.contains(CGPoint(x: 0, y: 0)))
    }

    @Test func insetAndIntegral() {
        #expect(CGRect(x: 0, y: 0, width: 10, height: 10).insetBy(dx: 5, dy: 5).isEqual(to: CGRect(x: 5, y: 5, width: 0, height: 0)))
        #expect(CGRect(x: 0, y: 0, width: 10, height: 10).insetBy(dx: 5.5, dy: 0).isNull)
        #expect(CGRect(x: -0.5, y: 1.2, width: 1, height: 1).integral.isEqual(to: CGRect(x: -1, y: 1, width: 2, height: 2)))
    }

    @Test func specialRectangles() {
        #expect(CGRectIsNull(CGRectNull) && CGRectIsEmpty(CGRectNull))
        #expect(CGRectIsInfinite(CGRectInfinite))
        #expect(!CGRectIsInfinite(CGRect(x: 0, y: 0, width: 1, height: 1)))
        #expect(CGRectEqualToRect(CGRectZero, CGRect(x: 0, y: 0, width: 0, height: 0)))
    }

    @Test func affineTransformsOfRects() {
        let r = CGRectApplyAffineTransform(CGRect(x: 0, y: 0, width: 10, height: 20), CGAffineTransform(rotationAngle: .pi / 2))
        #expect(r.isEqual(to: CGRect(x: -20, y: 0, width: 20, height: 10)))
        let inv = CGAffineTransformInvert(CGAffineTransform(a: 2, b: 0, c: 0, d: 4, tx: 10, ty: 20))
        #expect(inv.isEqual(to: CGAffineTransform(a: 0.5, b: 0, c: 0, d: 0.25, tx: -5, ty: -5)))
        let singular = CGAffineTransform(a: 1, b: 1, c: 1, d: 1, tx: 3, ty: 4)
        #expect(CGAffineTransformInvert(singular).isEqual(to: singular))
    }

    @Test func nanGeometryIsRejected() {
        QZClearLastError()
        #expect(CGRectIsNull(CGRectMake(.nan, 0, 1, 1)))
        #expect(takeError() == QZErrorNotFinite)
        #expect(!CGRectContainsPoint(CGRect(x: 0, y: 0, width: 1, height: 1), CGPoint(x: .nan, y: 0)))
        #expect(takeError() == QZErrorNotFinite)
        _ = CGRectMake(.infinity, .infinity, 0, 0)
        #expect(takeError() == QZErrorNone)
    }
}
