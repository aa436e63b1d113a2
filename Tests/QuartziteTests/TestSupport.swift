import CQuartzite
import Testing
@testable import QuartziteCore
@testable import QuartziteGeometry
@testable import QuartziteVideo
@testable import QuartziteGraphics
@testable import QuartziteModel
@testable import QuartziteRender
@testable import Quartzite

/// Entry-by-entry closeness of two transforms.
func isNear(_ a: CATransform3D, _ b: CATransform3D, _ tolerance: Double = 1e-12) -> Bool {
    let x = [a.m11, a.m12, a.m13, a.m14, a.m21, a.m22, a.m23, a.m24, a.m31, a.m32, a.m33, a.m34, a.m41, a.m42, a.m43, a.m44]
    let y = [b.m11, b.m12, b.m13, b.m14, b.m21, b.m22, b.m23, b.m24, b.m31, b.m32, b.m33, b.m34, b.m41, b.m42, b.m43, b.m44]
    return zip(x, y).allSatisfy { abs($0 - $1) <= tolerance }
}

/// The error the previous call recorded; clears it.
func takeError() -> QZError {
    let e = QZGetLastError()
    QZClearLastError()
    return e
}

/// A transform from 16 row-major entries.
func matrix(_ m: [Double]) -> CATransform3D {
    CATransform3D(m11: m[0], m12: m[1], m13: m[2], m14: m[3], m21: m[4], m22: m[5], m23: m[6], m24: m[7],
                  m31: m[8], m32: m[9], m33: m[10], m34: m[11], m41: m[12], m42: m[13], m43: m[14], m44: m[15])
}

/// Applies a transform to a point as a row vector, with the perspective divide.
func project(_ p: (Double, Double, Double), _ t: CATransform3D) -> (Double, Double, Double) {
    let x = p.0 * t.m11 + p.1 * t.m21 + p.2 * t.m31 + t.m41
    let y = p.0 * t.m12 + p.1 * t.m22 + p.2 * t.m32 + t.m42
    let z = p.0 * t.m13 + p.1 * t.m23 + p.2 * t.m33 + t.m43
    let w = p.0 * t.m14 + p.1 * t.m24 + p.2 * t.m34 + t.m44
    return (x / w, y / w, z / w)
}
