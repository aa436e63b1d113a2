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

@Suite struct Transform3DTests {
    @Test func isIdentityLooksAtEveryEntry() {
        let identity = [1.0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
        #expect(matrix(identity).isIdentity)
        // -0 equals 0.
        #expect(matrix(identity.map { $0 == 0 ? -0.0 : $0 }).isIdentity)
        for i in 0..<16 {
            for v in [0.5, Double.nan, Double.infinity] {
                var e = identity
                e[i] = v
                #expect(!matrix(e).isIdentity, "entry \(i) = \(v)")
            }
        }
    }

    @Test func translationPutsOffsetsInTheLastRow() {
        let t = CATransform3DMakeTranslation(10, 20, 30)
        #expect(t.isEqual(to: matrix([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 10, 20, 30, 1])))
        let p = project((1, 2, 3), t)
        #expect(p.0 == 11 && p.1 == 22 && p.2 == 33)
    }

    @Test func rotationAboutZFollowsApplesLayout() {
        let r = CATransform3DMakeRotation(.pi / 2, 0, 0, 1)
        #expect(r.m11 == 0 && r.m12 == 1 && r.m21 == -1 && r.m22 == 0)
        // The x axis turns into the y axis.
        let p = project((1, 0, 0), r)
        #expect(abs(p.0) < 1e-15 && abs(p.1 - 1) < 1e-15)
    }

    @Test(arguments: [0.1, 0.7, 2.0, -1.3])
    func rotationMatchesRodriguesForArbitraryAxes(angle: Double) {
        // Rotating v about unit axis k: v cos + (k x v) sin + k (k.v)(1 - cos).
        let k = (1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0)
        let v = (0.3, -1.2, 2.5)
        let (c, s) = (cos(angle), sin(angle))
        let cross = (k.1 * v.2 - k.2 * v.1, k.2 * v.0 - k.0 * v.2, k.0 * v.1 - k.1 * v.0)
        let dot = k.0 * v.0 + k.1 * v.1 + k.2 * v.2
        let expected = (v.0 * c + cross.0 * s + k.0 * dot * (1 - c),
                        v.1 * c + cross.1 * s + k.1 * dot * (1 - c),
                        v.2 * c + cross.2 * s + k.2 * dot * (1 - c))
        let got = project(v, CATransform3DMakeRotation(angle, 1, 2, 2))
        #expect(abs(got.0 - expected.0) < 1e-12 && abs(got.1 - expected.1) < 1e-12 && abs(got.2 - expected.2) < 1e-12)
    }

    @Test func zeroAxisGivesIdentity() {
        QZClearLastError()
        #expect(CATransform3DIsIdentity(CATransform3DMakeRotation(1, 0, 0, 0)))
        #expect(takeError() == QZErrorNone)
    }

    @Test func modifiersApplyTheOperationFirst() {
        // translate * scale: the translation is scaled.
        #expect(CATransform3DTranslate(CATransform3DMakeScale(2, 2, 1), 10, 0, 0).m41 == 20)
        // scale * translate: the translation is not.
        let st = CATransform3DScale(CATransform3DMakeTranslation(10, 0, 0), 2, 2, 1)
        #expect(st.m41 == 10 && st.m11 == 2)
        let rt = CATransform3DRotate(CATransform3DMakeTranslation(10, 0, 0), .pi / 2, 0, 0, 1)
        let p = project((1, 0, 0), rt)
        #expect(abs(p.0 - 10) < 1e-12 && abs(p.1 - 1) < 1e-12)
    }

    @Test func concatAppliesTheLeftOperandFirst() {
        let c = CATransform3DConcat(CATransform3DMakeTranslation(10, 0, 0), CATransform3DMakeRotation(.pi / 2, 0, 0, 1))
        #expect(c.m41 == 0 && c.m42 == 10)
        let a = matrix([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16])
        let b = matrix([2, 0, 0, 1, 0, 3, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1])
        #expect(CATransform3DConcat(a, b).isEqual(to: matrix([5, 6, 3, 5, 17, 18, 7, 13, 29, 30, 11, 21, 41, 42, 15, 29])))
    }

    /// CATransform3DConcat's bodies (Sources/CQuartzite/transform_concat.c:
    /// AVX when the CPU has it, portable C otherwise) and the engine's
    /// concatenating(_:) give the same bits, for matrices of every kind.
    @Test func concatBodiesAgreeWithTheEngineBitForBit() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let unit = Double(state >> 11) / Double(1 << 53)
            // Mostly ordinary values, sometimes tiny or huge ones and zeros.
            switch state & 7 {
            case 0: return 0
            case 1: return (unit - 0.5) * 1e-200
            case 2: return (unit - 0.5) * 1e150
            default: return (unit - 0.5) * 20
            }
        }
        var samples = [CATransform3D.identity, CATransform3DMakeRotation(0.7, 1, 2, 3)]
        for _ in 0..<400 { samples.append(matrix((0..<16).map { _ in next() })) }
        var compared = 0
        for i in samples.indices {
            let a = samples[i], b = samples[(i * 7 + 3) % samples.count]
            let engine = a.concatenating(b)
            guard engine.isFinite else { continue }
            QZClearLastError()
            let exported = CATransform3DConcat(a, b), portable = qz_internal_concat_portable(a, b)
            #expect(takeError() == QZErrorNone)
            for (k, (e, x, p)) in zip(entries(engine), zip(entries(exported), entries(portable))).map({ ($0, $1.0, $1.1) }).enumerated() {
                #expect(e.bitPattern == x.bitPattern && e.bitPattern == p.bitPattern,
                        "sample \(i), entry \(k): engine \(e), export \(x), portable \(p) (AVX body: \(qz_internal_concat_has_avx()))")
            }
            compared += 1
        }
        #expect(compared > 300)
    }

    /// Both bodies test finiteness on the sum of the entries first; a sum
    /// that overflows while every entry is finite is no error.
    @Test func concatWithFiniteEntriesWhoseSumOverflowsIsNoError() {
        let a = matrix([1e308, 0, 0, 0, 0, 1e308, 0, 0, 0, 0, 1e308, 0, 0, 0, 0, 1])
        for body in [CATransform3DConcat, qz_internal_concat_portable] {
            QZClearLastError()
            let r = body(a, .identity)
            #expect(takeError() == QZErrorNone)
            #expect(r.isEqual(to: a))
            // An entry that overflows (1e308 * 10) is the error: a comes back.
            let t = body(a, CATransform3DMakeScale(10, 1, 1))
            #expect(takeError() == QZErrorNotFinite)
            #expect(t.isEqual(to: a))
            // NaN and infinity in either operand, at any entry.
            for k in 0..<16 {
                for v in [Double.nan, Double.infinity, -Double.infinity] {
                    var e = entries(CATransform3DMakeRotation(0.3, 0, 0, 1))
                    e[k] = v
                    let bad = matrix(e), good = CATransform3DMakeTranslation(1, 2, 3)
                    #expect(body(good, bad).isEqual(to: good), "b entry \(k) = \(v)")
                    #expect(takeError() == QZErrorNotFinite)
                    let back = body(bad, good)
                    #expect(entries(back).enumerated().allSatisfy { $0.element.bitPattern == e[$0.offset].bitPattern },
                            "a entry \(k) = \(v)")
                    #expect(takeError() == QZErrorNotFinite)
                }
            }
        }
        QZClearLastError()
        _ = CATransform3DConcat(CATransform3DMakeScale(.greatestFiniteMagnitude, 1, 1), CATransform3DMakeScale(2, 1, 1))
        #expect(lastErrorMessage() == "CATransform3DConcat: transform has a non-finite entry (or the product overflows)")
        QZClearLastError()
    }

    private func entries(_ t: CATransform3D) -> [Double] {
        [t.m11, t.m12, t.m13, t.m14, t.m21, t.m22, t.m23, t.m24,
         t.m31, t.m32, t.m33, t.m34, t.m41, t.m42, t.m43, t.m44]
    }

    @Test func inverseUndoesPerspectiveTransforms() {
        var t = CATransform3DRotate(CATransform3DMakeTranslation(12, -3, 7), 0.9, 1, -2, 0.5)
        t.m34 = -1.0 / 500
        let inv = CATransform3DInvert(t)
        #expect(isNear(CATransform3DConcat(t, inv), .identity))
        #expect(isNear(CATransform3DConcat(inv, t), .identity))
        #expect(CATransform3DInvert(CATransform3DMakeScale(2, 4, 8)).isEqual(to: CATransform3DMakeScale(0.5, 0.25, 0.125)))
    }

    @Test func singularInverseReturnsTheInput() {
        QZClearLastError()
        let s = CATransform3DMakeScale(1, 0, 1)
        #expect(CATransform3DInvert(s).isEqual(to: s))
        #expect(takeError() == QZErrorNone)
    }

    @Test func affineRoundTrip() {
        let a = CGAffineTransform(a: 1, b: 2, c: 3, d: 4, tx: 5, ty: 6)
        let t = CATransform3DMakeAffineTransform(a)
        #expect(t.isEqual(to: matrix([1, 2, 0, 0, 3, 4, 0, 0, 0, 0, 1, 0, 5, 6, 0, 1])))
        #expect(CATransform3DIsAffine(t))
        #expect(CATransform3DGetAffineTransform(t).isEqual(to: a))
        var p = CATransform3D.identity
        p.m34 = -0.002
        #expect(!CATransform3DIsAffine(p))
        #expect(!CATransform3DIsAffine(CATransform3DMakeRotation(0.5, 0, 1, 0)))
    }

    @Test func nonFiniteArgumentsAreRejected() {
        QZClearLastError()
        #expect(CATransform3DIsIdentity(CATransform3DMakeRotation(.nan, 0, 0, 1)))
        #expect(takeError() == QZErrorNotFinite)
        let t = CATransform3DMakeTranslation(1, 2, 3)
        #expect(CATransform3DTranslate(t, .infinity, 0, 0).isEqual(to: t))
        #expect(takeError() == QZErrorNotFinite)
        var bad = CATransform3D.identity
        bad.m32 = .nan
        #expect(CATransform3DConcat(t, bad).isEqual(to: t))
        #expect(takeError() == QZErrorNotFinite)
        #expect(lastErrorMessage() == "")
    }

    @Test func isFiniteSeesEveryEntry() {
        for i in 0..<16 {
            var entries = [Double](repeating: 1, count: 16)
            entries[i] = .infinity
            #expect(!matrix(entries).isFinite)
            entries[i] = .nan
            #expect(!matrix(entries).isFinite)
        }
        #expect(matrix([Double](repeating: 1e300, count: 16)).isFinite)
    }
}

@Suite struct SinCosTests {
    @Test(arguments: [(-2.0, 0.0, -1.0), (-1.0, -1.0, 0.0), (1.0, 1.0, 0.0), (3.0, -1.0, 0.0), (4.0, 0.0, 1.0), (7.0, -1.0, 0.0)])
    func quarterTurnsAreExact(quarters: Double, sine: Double, cosine: Double) {
        let (s, c) = sinCos(quarters * .pi / 2)
        #expect(s == sine && c == cosine)
    }

    @Test(arguments: [0.3, -2.5, 1e16, 123456.789])
    func otherAnglesMatchLibm(angle: Double) {
        let (s, c) = sinCos(angle)
        #expect(abs(s - sin(angle)) <= 1e-15 && abs(c - cos(angle)) <= 1e-15)
    }
}
