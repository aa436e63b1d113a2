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

/// A w x h root holding a replicator that fills it, with one w0 x h0 white
/// sublayer at (x0, y0); `configure` sets up the replicator and the sublayer.
private func replicatorScene(_ w: Double, _ h: Double, sub: CGRect,
                             _ configure: (CALayerRef, CALayerRef) -> Void) -> TL {
    let root = TL(0, 0, w, h)
    let r = CAReplicatorLayerCreate()!
    CALayerSetFrame(r, CGRect(x: 0, y: 0, width: w, height: h))
    let s = TL(sub.minX, sub.minY, sub.width, sub.height, color: (1, 1, 1, 1))
    CALayerAddSublayer(r, s.ref)
    configure(r, s.ref)
    CALayerAddSublayer(root.ref, r)
    CARelease(UnsafeRawPointer(r))
    return root
}

/// An opacity animation from 0 to 1 over 1 s starting at media time `begin`.
private func fadeIn(_ layer: CALayerRef, begin: Double, fillBackwards: Bool = false) {
    let a = CABasicAnimationCreate("opacity")!
    let from = CAValueCreateNumber(0)!, to = CAValueCreateNumber(1)!
    CABasicAnimationSetFromValue(a, from); CABasicAnimationSetToValue(a, to)
    CAAnimationSetDuration(a, 1)
    CAAnimationSetBeginTime(a, begin)
    if fillBackwards { CAAnimationSetFillMode(a, kCAFillModeBackwards) }
    CALayerAddAnimation(layer, a, "fade")
    CARelease(UnsafeRawPointer(a)); CARelease(UnsafeRawPointer(from)); CARelease(UnsafeRawPointer(to))
}

@Suite struct ReplicatorLayerTests {
    @Test func defaultsAreApples() {
        let r = CAReplicatorLayerCreate()!
        defer { CARelease(UnsafeRawPointer(r)) }
        #expect(String(cString: CALayerClassGetName(CALayerGetClass(r))!) == "CAReplicatorLayer")
        #expect(CAReplicatorLayerGetInstanceCount(r) == 1)
        #expect(CAReplicatorLayerGetInstanceDelay(r) == 0)
        #expect(isNear(CAReplicatorLayerGetInstanceTransform(r), .identity, 0))
        let c = CAReplicatorLayerGetInstanceColor(r)!
        let comps = (0..<4).map { CGColorGetComponents(c)![$0] }
        #expect(comps == [1, 1, 1, 1])
        #expect(CAReplicatorLayerGetInstanceRedOffset(r) == 0 && CAReplicatorLayerGetInstanceGreenOffset(r) == 0)
        #expect(CAReplicatorLayerGetInstanceBlueOffset(r) == 0 && CAReplicatorLayerGetInstanceAlphaOffset(r) == 0)
        #expect(CAReplicatorLayerGetPreservesDepth(r) == false)
        // Apple marks every property but preservesDepth animatable.
        for key in [LayerKey.instanceCount, .instanceDelay, .instanceTransform, .instanceColor, .instanceRedOffset,
                    .instanceGreenOffset, .instanceBlueOffset, .instanceAlphaOffset] {
            #expect(key.isAnimatable, "\(key.name)")
        }
        #expect(!LayerKey.preservesDepth.isAnimatable)
    }

    @Test func badInputIsRefused() {
        let r = CAReplicatorLayerCreate()!
        defer { CARelease(UnsafeRawPointer(r)) }
        CAReplicatorLayerSetInstanceCount(r, 4)
        CAReplicatorLayerSetInstanceCount(r, -3)
        #expect(takeError() == QZErrorOutOfRange)
        #expect(CAReplicatorLayerGetInstanceCount(r) == 4)
        let minus = CAValueCreateNumber(-1)!
        CALayerSetValueForKey(r, "instanceCount", minus)
        #expect(takeError() == QZErrorOutOfRange)
        let nan = CAValueCreateNumber(.nan)!
        CALayerSetValueForKey(r, "instanceCount", nan)
        #expect(takeError() != QZErrorNone)
        #expect(CAReplicatorLayerGetInstanceCount(r) == 4)
        CARelease(UnsafeRawPointer(minus)); CARelease(UnsafeRawPointer(nan))
        CAReplicatorLayerSetInstanceDelay(r, .nan)
        #expect(takeError() == QZErrorNotFinite)
        CAReplicatorLayerSetInstanceRedOffset(r, .infinity)
        #expect(takeError() == QZErrorNotFinite)
        var t = CATransform3D.identity
        t.m41 = .nan
        CAReplicatorLayerSetInstanceTransform(r, t)
        #expect(takeError() == QZErrorNotFinite)
        #expect(CAReplicatorLayerGetInstanceDelay(r) == 0 && CAReplicatorLayerGetInstanceRedOffset(r) == 0)
        let plain = CALayerCreate()!
        CAReplicatorLayerSetInstanceCount(plain, 3)
        #expect(takeError() == QZErrorWrongType)
        CARelease(UnsafeRawPointer(plain))
        // A huge count is stored but drawn as ReplicatorLayerState.maxDrawnInstances at most.
        let state = ReplicatorLayerState()
        state.instanceCount = 500_000_000
        #expect(state.drawnInstanceCount == ReplicatorLayerState.maxDrawnInstances)
    }

    @Test func instancesAreMovedByTheAccumulatedTransform() {
        // Five instances of a 10 x 10 square at (0, 5), each 20 further right.
        let root = replicatorScene(120, 20, sub: CGRect(x: 0, y: 5, width: 10, height: 10)) { r, _ in
            CAReplicatorLayerSetInstanceCount(r, 5)
            CAReplicatorLayerSetInstanceTransform(r, CATransform3DMakeTranslation(20, 0, 0))
        }
        let pb = renderScene(root, 120, 20)
        defer { CVPixelBufferRelease(pb) }
        for k in 0..<5 { #expect(pixel(pb, 5 + 20 * k, 10) == (255, 255, 255, 255), "instance \(k)") }
        #expect(pixel(pb, 15, 10).3 == 0 && pixel(pb, 105, 10).3 == 0)
        // The instances are not layers of the tree.
        let rep = CALayerGetSublayerAtIndex(root.ref, 0)!
        #expect(CALayerGetSublayerCount(rep) == 1)

        // Zero instances draw nothing.
        CATransactionBegin(); CATransactionSetDisableActions(true)
        CAReplicatorLayerSetInstanceCount(rep, 0)
        CATransactionCommit()
        let none = renderScene(root, 120, 20)
        defer { CVPixelBufferRelease(none) }
        #expect(pixel(none, 5, 10).3 == 0)
    }

    @Test func rotationIsAboutTheCentre() {
        // A square above the centre of a 100 x 100 replicator; the second
        // instance (rotated 90 degrees clockwise on screen) lies right of it.
        let root = replicatorScene(100, 100, sub: CGRect(x: 45, y: 5, width: 10, height: 10)) { r, _ in
            CAReplicatorLayerSetInstanceCount(r, 2)
            CAReplicatorLayerSetInstanceTransform(r, CATransform3DMakeRotation(.pi / 2, 0, 0, 1))
        }
        let pb = renderScene(root, 100, 100)
        defer { CVPixelBufferRelease(pb) }
        #expect(pixel(pb, 50, 10).3 == 255)
        #expect(pixel(pb, 90, 50).3 == 255)
        #expect(pixel(pb, 10, 50).3 == 0 && pixel(pb, 50, 90).3 == 0)
    }

    @Test func instanceColoursAddTheOffsets() {
        // White squares multiplied by white, then each instance 0.25 less
        // green and 0.5 less blue (clamped at 0), and 0.25 less alpha.
        let root = replicatorScene(80, 20, sub: CGRect(x: 0, y: 0, width: 20, height: 20)) { r, _ in
            CAReplicatorLayerSetInstanceCount(r, 4)
            CAReplicatorLayerSetInstanceTransform(r, CATransform3DMakeTranslation(20, 0, 0))
            CAReplicatorLayerSetInstanceGreenOffset(r, -0.25)
            CAReplicatorLayerSetInstanceBlueOffset(r, -0.5)
        }
        let pb = renderScene(root, 80, 20)
        defer { CVPixelBufferRelease(pb) }
        let expected = [(255, 255, 255), (255, 191, 128), (255, 128, 0), (255, 64, 0)]
        for k in 0..<4 {
            let p = pixel(pb, 10 + 20 * k, 10)
            #expect(abs(p.0 - expected[k].0) <= 1 && abs(p.1 - expected[k].1) <= 1 && abs(p.2 - expected[k].2) <= 1
                    && p.3 == 255, "instance \(k): \(p)")
        }
        // Alpha: instance k has 1 - 0.25 k (premultiplied pixels).
        let faded = replicatorScene(80, 20, sub: CGRect(x: 0, y: 0, width: 20, height: 20)) { r, _ in
            CAReplicatorLayerSetInstanceCount(r, 4)
            CAReplicatorLayerSetInstanceTransform(r, CATransform3DMakeTranslation(20, 0, 0))
            CAReplicatorLayerSetInstanceAlphaOffset(r, -0.25)
        }
        let pf = renderScene(faded, 80, 20)
        defer { CVPixelBufferRelease(pf) }
        for k in 0..<4 {
            let a = Int((255 * (1 - 0.25 * Double(k))).rounded())
            #expect(abs(pixel(pf, 10 + 20 * k, 10).3 - a) <= 1, "instance \(k): \(pixel(pf, 10 + 20 * k, 10))")
        }
    }

    @Test func instanceDelayOffsetsTheSublayersTime() {
        // The sublayer fades in from 0 to 1 over a second from t = 100; with a
        // delay of 0.25 s, at t = 100.5 instance k is at 0.5 - 0.25 k seconds:
        // opacity 0.5, 0.25, 0, and for instance 3 (before the animation
        // begins) the model's opacity, 1.
        let root = replicatorScene(80, 20, sub: CGRect(x: 0, y: 0, width: 20, height: 20)) { r, s in
            CAReplicatorLayerSetInstanceCount(r, 4)
            CAReplicatorLayerSetInstanceTransform(r, CATransform3DMakeTranslation(20, 0, 0))
            CAReplicatorLayerSetInstanceDelay(r, 0.25)
            fadeIn(s, begin: 100)
        }
        let pb = renderScene(root, 80, 20, at: 100.5)
        defer { CVPixelBufferRelease(pb) }
        let expected = [128, 64, 0, 255]
        for k in 0..<4 {
            #expect(abs(pixel(pb, 10 + 20 * k, 10).3 - expected[k]) <= 1, "instance \(k): \(pixel(pb, 10 + 20 * k, 10))")
        }
        // Without the delay every instance is at the same time.
        let sub = CALayerGetSublayerAtIndex(CALayerGetSublayerAtIndex(root.ref, 0)!, 0)!
        let rep = CALayerGetSuperlayer(sub)!
        CATransactionBegin(); CATransactionSetDisableActions(true)
        CAReplicatorLayerSetInstanceDelay(rep, 0)
        CATransactionCommit()
        let same = renderScene(root, 80, 20, at: 100.5)
        defer { CVPixelBufferRelease(same) }
        for k in 0..<4 { #expect(abs(pixel(same, 10 + 20 * k, 10).3 - 128) <= 1) }
    }

    @Test func preservesDepthDrawsBackToFront() {
        // Two overlapping instances, the second moved 10 right and 5 back in z:
        // in instance order the second covers the first; with preservesDepth
        // the first (nearer) is drawn last. The sublayer is red, the
        // second instance tinted to blue by negative red and positive blue offsets.
        for preserve in [false, true] {
            let root = replicatorScene(40, 20, sub: CGRect(x: 0, y: 0, width: 20, height: 20)) { r, s in
                let red = CGColorCreateSRGB(1, 0, 0, 1)!
                CALayerSetBackgroundColor(s, red)
                CGColorRelease(red)
                CAReplicatorLayerSetInstanceCount(r, 2)
                CAReplicatorLayerSetInstanceTransform(r, CATransform3DMakeTranslation(10, 0, -5))
                let white = CGColorCreateSRGB(1, 1, 1, 1)!
                CAReplicatorLayerSetInstanceColor(r, white)
                CGColorRelease(white)
                CAReplicatorLayerSetInstanceRedOffset(r, -1)
                CAReplicatorLayerSetInstanceGreenOffset(r, -1)
                CAReplicatorLayerSetPreservesDepth(r, preserve)
            }
            let pb = renderScene(root, 40, 20)
            defer { CVPixelBufferRelease(pb) }
            // The overlap (x 10..20): red on top when depth is preserved, black (the tinted red) otherwise.
            let p = pixel(pb, 15, 10)
            if preserve { #expect(p == (255, 0, 0, 255), "\(p)") } else { #expect(p == (0, 0, 0, 255), "\(p)") }
        }
    }

    @Test func animatedInstanceCountAndColourFollowPresentation() {
        // instanceCount animates as a number (drawn truncated); the instance
        // transform animates too, read from the presentation replicator.
        let root = replicatorScene(100, 20, sub: CGRect(x: 0, y: 0, width: 10, height: 20)) { r, _ in
            CAReplicatorLayerSetInstanceCount(r, 1)
            CAReplicatorLayerSetInstanceTransform(r, CATransform3DMakeTranslation(10, 0, 0))
            let a = CABasicAnimationCreate("instanceCount")!
            let from = CAValueCreateNumber(0)!, to = CAValueCreateNumber(10)!
            CABasicAnimationSetFromValue(a, from); CABasicAnimationSetToValue(a, to)
            CAAnimationSetDuration(a, 1)
            CAAnimationSetBeginTime(a, 50)
            CALayerAddAnimation(r, a, "count")
            CARelease(UnsafeRawPointer(a)); CARelease(UnsafeRawPointer(from)); CARelease(UnsafeRawPointer(to))
        }
        let pb = renderScene(root, 100, 20, at: 50.55)
        defer { CVPixelBufferRelease(pb) }
        // 5.5 instances: five drawn.
        for k in 0..<5 { #expect(pixel(pb, 5 + 10 * k, 10).3 == 255, "instance \(k)") }
        #expect(pixel(pb, 55, 10).3 == 0)
    }
}

extension RenderGoldenTests {
    /// Twelve bars rotated about the replicator's centre (a spinner), each
    /// instance 1/12 s later into a fade and a shade bluer: mid-animation.
    @Test func replicatorRotatedInstancesWithDelay() {
        let root = TL(0, 0, 128, 96, color: (0.85, 0.85, 0.85, 1))
        let r = CAReplicatorLayerCreate()!
        CALayerSetFrame(r, CGRect(x: 20, y: 4, width: 88, height: 88))
        let bar = TL(40, 4, 8, 26, color: (0.9, 0.3, 0.1, 1))
        CALayerSetCornerRadius(bar.ref, 4)
        CALayerAddSublayer(r, bar.ref)
        CAReplicatorLayerSetInstanceCount(r, 12)
        CAReplicatorLayerSetInstanceTransform(r, CATransform3DMakeRotation(2 * .pi / 12, 0, 0, 1))
        CAReplicatorLayerSetInstanceDelay(r, 1.0 / 12)
        CAReplicatorLayerSetInstanceRedOffset(r, -1.0 / 12)
        CAReplicatorLayerSetInstanceBlueOffset(r, 1.0 / 12)
        fadeIn(bar.ref, begin: 1000, fillBackwards: true)
        CALayerAddSublayer(root.ref, r)
        CARelease(UnsafeRawPointer(r))
        let pb = renderScene(root, 128, 96, at: 1000.5)
        defer { CVPixelBufferRelease(pb) }
        checkGolden("replicator_rotated_delay", pb)
        // Instance 0 (top) is half faded in; instance 6 (bottom, 0.5 s later) not yet visible.
        let top = pixel(pb, 64, 20), bottom = pixel(pb, 64, 76)
        #expect(top != (217, 217, 217, 255) && bottom == (217, 217, 217, 255), "\(top) \(bottom)")
    }
}
