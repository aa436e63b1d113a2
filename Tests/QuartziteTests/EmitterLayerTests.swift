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

/// An opaque white w x h CGImage (+1).
private func whiteImage(_ w: Int, _ h: Int) -> QZCGImageRef {
    let bytes = [UInt8](repeating: 255, count: w * h * 4)
    let provider = bytes.withUnsafeBytes { CGDataProviderCreateWithData(nil, $0.baseAddress, w * h * 4, nil)! }
    let image = CGImageCreate(w, h, 8, 32, w * 4, nil, UInt32(kCGImageAlphaNoneSkipLast), provider, nil, true,
                              kCGRenderingIntentDefault)!
    CGDataProviderRelease(provider)
    return image
}

/// A w x h root holding an emitter layer that fills it, with one cell.
private func emitterScene(_ w: Double, _ h: Double, _ configure: (CALayerRef, CAEmitterCellRef) -> Void) -> TL {
    let root = TL(0, 0, w, h)
    let e = CAEmitterLayerCreate()!
    CALayerSetFrame(e, CGRect(x: 0, y: 0, width: w, height: h))
    let cell = CAEmitterCellCreate()!
    let image = whiteImage(4, 4)
    CAEmitterCellSetContents(cell, image)
    CGImageRelease(image)
    configure(e, cell)
    var cells: [CAEmitterCellRef?] = [cell]
    CAEmitterLayerSetEmitterCells(e, &cells, 1)
    CARelease(UnsafeRawPointer(cell))
    CALayerAddSublayer(root.ref, e)
    CARelease(UnsafeRawPointer(e))
    return root
}

/// Renders `root` at each of `times` through one CARenderer; returns the last
/// frame (+1), compared with the GPU renderer's.
private func renderFrames(_ root: TL, _ w: Int, _ h: Int, at times: [Double]) -> QZCVPixelBufferRef {
    let pb = makeBuffer(w, h)
    let r = CARendererCreate(pb, nil)!
    CARendererSetLayer(r, root.ref)
    for t in times {
        CARendererBeginFrameAtTime(r, t, nil)
        CARendererRender(r)
        CARendererEndFrame(r)
    }
    CARelease(UnsafeRawPointer(r))
    GPUParity.check(root.ref, w, h, at: times.last ?? 0, cpu: pb)
    return pb
}

private func bytes(_ pb: QZCVPixelBufferRef) -> [UInt8] {
    let base = CVPixelBufferGetBaseAddress(pb)!
    let n = CVPixelBufferGetBytesPerRow(pb) * CVPixelBufferGetHeight(pb)
    return Array(UnsafeRawBufferPointer(start: base, count: n))
}

@Suite struct EmitterLayerTests {
    @Test func defaultsAreApples() {
        let e = CAEmitterLayerCreate()!
        defer { CARelease(UnsafeRawPointer(e)) }
        #expect(String(cString: CALayerClassGetName(CALayerGetClass(e))!) == "CAEmitterLayer")
        #expect(CAEmitterLayerGetBirthRate(e) == 1 && CAEmitterLayerGetLifetime(e) == 1)
        #expect(CAEmitterLayerGetVelocity(e) == 1 && CAEmitterLayerGetScale(e) == 1 && CAEmitterLayerGetSpin(e) == 1)
        #expect(CAEmitterLayerGetEmitterPosition(e).x == 0 && CAEmitterLayerGetEmitterPosition(e).y == 0)
        #expect(CAEmitterLayerGetEmitterZPosition(e) == 0 && CAEmitterLayerGetEmitterDepth(e) == 0)
        #expect(CAEmitterLayerGetEmitterSize(e).width == 0 && CAEmitterLayerGetEmitterSize(e).height == 0)
        #expect(String(cString: CAEmitterLayerGetEmitterShape(e)!) == "point")
        #expect(String(cString: CAEmitterLayerGetEmitterMode(e)!) == "volume")
        #expect(String(cString: CAEmitterLayerGetRenderMode(e)!) == "unordered")
        #expect(CAEmitterLayerGetSeed(e) == 0 && CAEmitterLayerGetPreservesDepth(e) == false)
        #expect(CAEmitterLayerGetEmitterCellCount(e) == 0)
        let c = CAEmitterCellCreate()!
        defer { CARelease(UnsafeRawPointer(c)) }
        #expect(CAEmitterCellGetEnabled(c) == true)
        #expect(CAEmitterCellGetBirthRate(c) == 0 && CAEmitterCellGetLifetime(c) == 0)
        #expect(CAEmitterCellGetScale(c) == 1 && CAEmitterCellGetVelocity(c) == 0 && CAEmitterCellGetSpin(c) == 0)
        #expect(CAEmitterCellGetDuration(c) == 0 && CAEmitterCellGetBeginTime(c) == 0)
        let comps = (0..<4).map { CGColorGetComponents(CAEmitterCellGetColor(c)!)![$0] }
        #expect(comps == [1, 1, 1, 1])
        #expect(CAEmitterCellGetContents(c) == nil && CAEmitterCellGetName(c) == nil)
        CAEmitterLayerSetEmitterShape(e, kCAEmitterLayerCircle)
        #expect(String(cString: CAEmitterLayerGetEmitterShape(e)!) == "circle")
        CAEmitterLayerSetRenderMode(e, "sideways")
        #expect(takeError() != QZErrorNone)
        #expect(LayerKey.birthRate.isAnimatable && LayerKey.emitterPosition.isAnimatable)
    }

    @Test func aParticleFollowsTheFormula() {
        // One particle a second, living 0.5 s: at t = n + a only particle n lives, at age a.
        let state = EmitterLayerState()
        let cell = EmitterCell()
        cell.birthRate = 1; cell.lifetime = 0.5; cell.velocity = 20; cell.emissionLongitude = .pi / 2
        cell.xAcceleration = 8; cell.yAcceleration = -10; cell.scaleSpeed = 2; cell.spin = 3
        cell.alphaSpeed = -1
        cell.contents = Image.testWhite
        state.emitterCells = [cell]
        state.emitterPosition = CGPoint(x: 30, y: 40)
        for (t, n) in [(2.25, 2.0), (0.1, 0.0), (7.4, 7.0)] {
            let ps = state.particles(at: t)
            #expect(ps.count == 1)
            guard let p = ps.first else { continue }
            let a = t - n
            #expect(abs(p.birth - n) < 1e-12 && abs(p.age - a) < 1e-12)
            // origin + v a + a^2 acc / 2, v = 20 (cos 90°, sin 90°)
            #expect(abs(p.position.x - (30 + 20 * cos(Double.pi / 2) * a + 0.5 * 8 * a * a)) < 1e-9)
            #expect(abs(p.position.y - (40 + 20 * a + 0.5 * -10 * a * a)) < 1e-9)
            #expect(abs(p.scale - (1 + 2 * a)) < 1e-12 && abs(p.angle - 3 * a) < 1e-12)
            #expect(abs(p.color.w - (1 - a)) < 1e-12)
        }
        #expect(state.particles(at: 2.6).isEmpty)  // particle 2 died at 2.5
        // The layer's multipliers: birthRate 2 gives births every 0.5 s, velocity 2 doubles the speed.
        state.birthRate = 2; state.velocity = 2
        let ps = state.particles(at: 1.75)
        #expect(ps.count == 1 && abs((ps.first?.position.y ?? 0) - (40 + 40 * 0.25 - 5 * 0.0625)) < 1e-9)
    }

    /// "emitterCells.<name>.<property>" on the emitter layer: read, set (the
    /// cell itself changes), nested cells, bad paths and values refused.
    @Test func cellPropertiesByKeyPath() {
        withClock(1000) { _ in
            var dot: CAEmitterCellRef?, layer: CALayerRef?
            let spark = CAEmitterCellCreate()!
            CAEmitterCellSetName(spark, "spark")
            let root = emitterScene(100, 60) { e, c in
                CAEmitterCellSetName(c, "dot")
                CAEmitterCellSetVelocity(c, 40)
                var nested: [CAEmitterCellRef?] = [spark]
                CAEmitterCellSetEmitterCells(c, &nested, 1)
                dot = c
                layer = e
            }
            defer { CARelease(UnsafeRawPointer(spark)) }
            defer { withExtendedLifetime(root) {} }
            guard let e = layer, let dot else { Issue.record("no emitter"); return }
            #expect(CALayerGetNumberForKeyPath(e, "emitterCells.dot.velocity") == 40)
            #expect(CALayerGetNumberForKeyPath(e, "emitterCells.dot.scale") == 1)
            CALayerSetNumberForKeyPath(e, "emitterCells.dot.velocity", 25)
            #expect(QZGetLastError() == QZErrorNone)
            #expect(CAEmitterCellGetVelocity(dot) == 25)
            CALayerSetNumberForKeyPath(e, "emitterCells.dot.emitterCells.spark.scale", 3)
            #expect(QZGetLastError() == QZErrorNone)
            #expect(CAEmitterCellGetScale(spark) == 3)
            #expect(CALayerGetNumberForKeyPath(e, "emitterCells.dot.emitterCells.spark.scale") == 3)
            let no = Value(.bool(false))
            withExtendedLifetime(no) { CALayerSetValueForKeyPath(e, "emitterCells.dot.enabled", borrowedHandle(no)) }
            #expect(QZGetLastError() == QZErrorNone && !CAEmitterCellGetEnabled(dot))
            CAEmitterCellSetEnabled(dot, true)
            for (path, x, error) in [("emitterCells.nothing.velocity", 1.0, QZErrorInvalidArgument),
                                     ("emitterCells.dot.contents", 1.0, QZErrorInvalidArgument),
                                     ("emitterCells.dot", 1.0, QZErrorInvalidArgument),
                                     ("emitterCells.dot.birthRate", -1.0, QZErrorOutOfRange),
                                     ("emitterCells.dot.velocity", .nan, QZErrorNotFinite)] {
                CALayerSetNumberForKeyPath(e, path, x)
                #expect(QZGetLastError() == error, "\(path)")
            }
            #expect(CAEmitterCellGetVelocity(dot) == 25 && CAEmitterCellGetBirthRate(dot) == 0)
        }
    }

    /// A basic animation of "emitterCells.dot.velocity" (and birthRate):
    /// the presentation layer has the interpolated values, the model cell
    /// keeps its own, and the frame is that of a still scene whose cell has
    /// the interpolated velocity.
    @Test func cellPropertiesAnimate() {
        withClock(1000) { clock in
            func scene(_ velocity: Double) -> (TL, CALayerRef) {
                var layer: CALayerRef?
                let root = emitterScene(100, 60) { e, c in
                    CAEmitterLayerSetEmitterPosition(e, CGPoint(x: 20, y: 30))
                    CAEmitterCellSetName(c, "dot")
                    CAEmitterCellSetBirthRate(c, 1); CAEmitterCellSetLifetime(c, 0.5); CAEmitterCellSetVelocity(c, velocity)
                    let red = CGColorCreateSRGB(1, 0, 0, 1)
                    CAEmitterCellSetColor(c, red); CGColorRelease(red)
                    layer = e
                }
                return (root, layer!)
            }
            let (root, e) = scene(40)
            CATransactionFlush()
            QZClearLastError()
            for (path, from, to) in [("emitterCells.dot.velocity", 40.0, 80.0), ("emitterCells.dot.birthRate", 1.0, 3.0)] {
                let anim = CABasicAnimationCreate(path)!
                let f = Value(.number(from)), t = Value(.number(to))
                withExtendedLifetime((f, t)) {
                    CABasicAnimationSetFromValue(anim, borrowedHandle(f)); CABasicAnimationSetToValue(anim, borrowedHandle(t))
                }
                CAAnimationSetDuration(anim, 4)
                CALayerAddAnimation(e, anim, path)
                #expect(QZGetLastError() == QZErrorNone)
                CARelease(UnsafeRawPointer(anim))
            }
            CATransactionFlush()
            clock.now = 1001   // a quarter of the way: velocity 50, birthRate 1.5
            let p = CALayerCopyPresentationLayer(e)!
            #expect(abs(CALayerGetNumberForKeyPath(p, "emitterCells.dot.velocity") - 50) < 1e-9)
            #expect(abs(CALayerGetNumberForKeyPath(p, "emitterCells.dot.birthRate") - 1.5) < 1e-6)
            CARelease(UnsafeRawPointer(p))
            #expect(CALayerGetNumberForKeyPath(e, "emitterCells.dot.velocity") == 40)   // the model's cell
            CALayerRemoveAnimation(e, "emitterCells.dot.birthRate")
            CATransactionFlush()
            // At 1001.25 (velocity 52.5) particle 1001 is 0.25 s old: x = 20 + 52.5 / 4 = 33.125.
            let pb = makeBuffer(100, 60)
            defer { CVPixelBufferRelease(pb) }
            let r = CARendererCreate(pb, nil)!
            CARendererSetLayer(r, root.ref)
            CARendererBeginFrameAtTime(r, 1001.25, nil)
            CARendererRender(r)
            CARendererEndFrame(r)
            CARelease(UnsafeRawPointer(r))
            let (still, _) = scene(52.5)
            let expected = renderFrames(still, 100, 60, at: [1001.25])
            defer { CVPixelBufferRelease(expected) }
            #expect(bytes(pb) == bytes(expected))
            #expect(pixel(pb, 34, 30).3 == 255 && pixel(pb, 30, 30).3 == 0)   // (31.125...35.125)
            let (model, _) = scene(40)
            let unanimated = renderFrames(model, 100, 60, at: [1001.25])
            defer { CVPixelBufferRelease(unanimated) }
            #expect(pixel(unanimated, 34, 30).3 == 0)   // (x = 30 there: 28...32)
        }
    }

    @Test func aParticleIsDrawnWhereTheFormulaPutsIt() {
        withClock(1000) { _ in
            let root = emitterScene(100, 60) { e, c in
                CAEmitterLayerSetEmitterPosition(e, CGPoint(x: 20, y: 30))
                CAEmitterCellSetBirthRate(c, 1); CAEmitterCellSetLifetime(c, 0.5); CAEmitterCellSetVelocity(c, 40)
                let red = CGColorCreateSRGB(1, 0, 0, 1)
                CAEmitterCellSetColor(c, red); CGColorRelease(red)
            }
            // At t = 3.25 particle 3 is 0.25 s old: x = 20 + 40 x 0.25 = 30.
            let pb = renderFrames(root, 100, 60, at: [3.25])
            defer { CVPixelBufferRelease(pb) }
            #expect(pixel(pb, 30, 30) == (255, 0, 0, 255))   // tinted red by the cell's colour
            #expect(pixel(pb, 20, 30).3 == 0 && pixel(pb, 36, 30).3 == 0)
        }
    }

    @Test func sameTimeSamePixelsHoweverReached() {
        withClock(1000) { _ in
            let root = emitterScene(120, 120) { e, c in
                CAEmitterLayerSetEmitterPosition(e, CGPoint(x: 60, y: 60))
                CAEmitterLayerSetEmitterShape(e, kCAEmitterLayerCircle)
                CAEmitterLayerSetEmitterSize(e, CGSize(width: 30, height: 30))
                CAEmitterLayerSetSeed(e, 42)
                CAEmitterCellSetBirthRate(c, 80); CAEmitterCellSetLifetime(c, 1.5); CAEmitterCellSetLifetimeRange(c, 0.5)
                CAEmitterCellSetVelocity(c, 30); CAEmitterCellSetVelocityRange(c, 20); CAEmitterCellSetEmissionRange(c, 2 * .pi)
                CAEmitterCellSetSpin(c, 2); CAEmitterCellSetSpinRange(c, 1); CAEmitterCellSetScaleRange(c, 0.5)
                CAEmitterCellSetRedRange(c, 0.5); CAEmitterCellSetAlphaSpeed(c, -0.3); CAEmitterCellSetYAcceleration(c, 15)
            }
            let one = renderFrames(root, 120, 120, at: [3.7])
            let hundred = renderFrames(root, 120, 120, at: (1...100).map { 3.7 * Double($0) / 100 })
            defer { CVPixelBufferRelease(one); CVPixelBufferRelease(hundred) }
            let a = bytes(one), b = bytes(hundred)
            let differing = zip(a, b).enumerated().filter { $0.element.0 != $0.element.1 }.map { $0.offset }
            #expect(differing.isEmpty, "\(differing.count) bytes differ, first at \(differing.prefix(8).map { ($0 / 4 % 120, $0 / 480) })")
            // Something was drawn: at 80 births a second and 1 to 2 s lives, over a hundred particles.
            #expect(a.enumerated().filter { $0.offset % 4 == 3 && $0.element > 0 }.count > 200)
            // Another seed: other particles.
            let other = emitterScene(120, 120) { e, c in
                CAEmitterLayerSetEmitterPosition(e, CGPoint(x: 60, y: 60))
                CAEmitterLayerSetEmitterShape(e, kCAEmitterLayerCircle)
                CAEmitterLayerSetEmitterSize(e, CGSize(width: 30, height: 30))
                CAEmitterLayerSetSeed(e, 43)
                CAEmitterCellSetBirthRate(c, 80); CAEmitterCellSetLifetime(c, 1.5); CAEmitterCellSetLifetimeRange(c, 0.5)
                CAEmitterCellSetVelocity(c, 30); CAEmitterCellSetVelocityRange(c, 20); CAEmitterCellSetEmissionRange(c, 2 * .pi)
            }
            let o = renderFrames(other, 120, 120, at: [3.7])
            defer { CVPixelBufferRelease(o) }
            #expect(bytes(o) != a, "another seed draws other particles")
        }
    }

    @Test func additiveModeAddsColours() {
        withClock(1000) { _ in
            let root = emitterScene(40, 40) { e, c in
                CAEmitterLayerSetRenderMode(e, kCAEmitterLayerAdditive)
                CAEmitterLayerSetEmitterPosition(e, CGPoint(x: 20, y: 20))
                CAEmitterCellSetBirthRate(c, 1); CAEmitterCellSetLifetime(c, 0.5)
                let red = CGColorCreateSRGB(1, 0, 0, 1)
                CAEmitterCellSetColor(c, red); CGColorRelease(red)
            }
            root.background((0, 0, 1, 1))
            let pb = renderFrames(root, 40, 40, at: [5.1])
            defer { CVPixelBufferRelease(pb) }
            // Blue below plus red added: magenta.
            #expect(pixel(pb, 20, 20) == (255, 0, 255, 255))
            #expect(pixel(pb, 5, 5) == (0, 0, 255, 255))
        }
    }

    @Test func badInputIsRefusedAndHugeRatesAreBounded() {
        let c = CAEmitterCellCreate()!
        let e = CAEmitterLayerCreate()!
        defer { CARelease(UnsafeRawPointer(c)); CARelease(UnsafeRawPointer(e)) }
        CAEmitterCellSetBirthRate(c, 5)
        CAEmitterCellSetBirthRate(c, .nan)
        #expect(takeError() == QZErrorNotFinite)
        CAEmitterCellSetBirthRate(c, -1)
        #expect(takeError() == QZErrorOutOfRange)
        #expect(CAEmitterCellGetBirthRate(c) == 5)
        CAEmitterLayerSetBirthRate(e, .infinity)
        #expect(takeError() == QZErrorNotFinite)
        // A layer is not a cell, a cell not a layer.
        CAEmitterCellSetVelocity(e, 3)
        #expect(takeError() == QZErrorWrongType)
        _ = CALayerGetOpacity(c)
        #expect(takeError() == QZErrorWrongType)
        CAEmitterCellSetVelocity(nil, 3)
        #expect(takeError() == QZErrorNullArgument)
        #expect(CAEmitterLayerGetEmitterCellAtIndex(e, 0) == nil)
        #expect(takeError() == QZErrorOutOfRange)
        CAEmitterLayerSetEmitterCells(e, nil, 3)
        #expect(takeError() == QZErrorNullArgument)
        CAEmitterLayerSetEmitterCells(e, nil, -1)
        #expect(takeError() == QZErrorOutOfRange)
        // A cell inside itself is a cycle.
        var me: [CAEmitterCellRef?] = [c]
        CAEmitterCellSetEmitterCells(c, &me, 1)
        #expect(takeError() == QZErrorInvalidArgument)
        #expect(CAEmitterCellGetEmitterCellCount(c) == 0)
        // Huge rates and lifetimes: bounded particles, bounded work.
        let state = EmitterLayerState()
        let cell = EmitterCell()
        cell.birthRate = 1e30; cell.lifetime = 1e30
        let child = EmitterCell()
        child.birthRate = 1e30; child.lifetime = 1e30; child.contents = cell.contents
        cell.emitterCells = [child]
        state.emitterCells = [cell]
        state.birthRate = 1e30
        let ps = state.particles(at: 1e6)
        #expect(ps.count <= EmitterLayerState.maxParticles)
        #expect(state.particles(at: .nan).isEmpty)
        // Huge particles: the frame's particle pixels are bounded (256 target areas), so it finishes.
        withClock(1000) { _ in
            let root = emitterScene(64, 64) { e, c in
                CAEmitterLayerSetEmitterPosition(e, CGPoint(x: 32, y: 32))
                CAEmitterCellSetBirthRate(c, 1e6); CAEmitterCellSetLifetime(c, 10); CAEmitterCellSetScale(c, 1e12)
            }
            let pb = makeBuffer(64, 64)
            let r = CARendererCreate(pb, nil)!
            CARendererSetLayer(r, root.ref)
            CARendererBeginFrameAtTime(r, 5, nil)
            let list = QZRendererCopyDrawList(r)!
            CARendererRender(r)
            CARendererEndFrame(r)
            #expect(QZDrawListGetCount(list) <= 257)
            #expect(pixel(pb, 32, 32) == (255, 255, 255, 255))
            CARelease(UnsafeRawPointer(list)); CARelease(UnsafeRawPointer(r)); CVPixelBufferRelease(pb)
        }
    }

    @Test func nestedCellsEmitFromTheirParticles() {
        let state = EmitterLayerState()
        let parent = EmitterCell(), child = EmitterCell()
        parent.birthRate = 1; parent.lifetime = 0.9; parent.velocity = 100
        child.birthRate = 4; child.lifetime = 10; child.velocity = 0
        let image = Image.testWhite
        child.contents = image
        parent.emitterCells = [child]
        state.emitterCells = [parent]
        // At t = 0.6 parent 0 (x = 100 t) has emitted children at ages 0, 0.25, 0.5: x = 0, 25, 50.
        let xs = state.particles(at: 0.6).map { $0.position.x }.sorted()
        #expect(xs.count == 3)
        for (x, want) in zip(xs, [0.0, 25, 50]) { #expect(abs(x - want) < 1e-9) }
    }
}

extension Image {
    /// A 2 x 2 opaque white image.
    static var testWhite: Image {
        let ref = whiteImage(2, 2)
        defer { CGImageRelease(ref) }
        return object(ref, as: Image.self)!
    }
}
