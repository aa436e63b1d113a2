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

// Renderer behaviour: 3D projection against an independent computation,
// damage tracking, frame timing, draw lists, renderInContext, bad input and
// a fuzz test of random trees.

/// Fixes this thread's media time to a value the test controls (per
/// thread: the process-wide time source would disturb tests running beside
/// these, such as the run loop's real-time ones).
final class RenderClock {
    init(_ t: Double) { MediaClock.threadOverride = t }
    func set(_ t: Double) { MediaClock.threadOverride = t }
    deinit { MediaClock.threadOverride = nil }
}

@Suite("Renderer", .serialized)
struct RenderTests {
    // MARK: - 3D

    /// A 100x100 layer centred at (100, 100), rotated 60 degrees about y under
    /// m34 = -1/500: its corners, computed here from the textbook rotation and
    /// the perspective divide, match the draw list's quad and the pixels.
    @Test func perspectiveRotationMatchesIndependentProjection() {
        let root = TL(0, 0, 200, 200)
        let card = TL(50, 50, 100, 100, color: (1, 1, 1, 1))
        var t = CATransform3DIdentity
        t.m34 = -1.0 / 500
        CALayerSetTransform(card.ref, CATransform3DRotate(t, .pi / 3, 0, 1, 0))
        root.add(card)

        // Independent: rotation about y (row vectors: x' = x cos, z' = -x sin),
        // then w = 1 - z'/500, relative to the anchor at the layer's centre.
        let c = cos(Double.pi / 3), s = sin(Double.pi / 3)
        func project(_ x: Double, _ y: Double) -> (Double, Double) {
            let xr = x * c, zr = -x * s
            let w = 1 + zr * (-1.0 / 500)
            return (100 + xr / w, 100 + y / w)
        }
        let expected = [project(-50, -50), project(50, -50), project(50, 50), project(-50, 50)]

        let pb = makeBuffer(200, 200)
        defer { CVPixelBufferRelease(pb) }
        let r = CARendererCreate(pb, nil)!
        defer { CARelease(UnsafeRawPointer(r)) }
        CARendererSetLayer(r, root.ref)
        CARendererBeginFrameAtTime(r, 0, nil)
        CARendererRender(r)
        let list = QZRendererCopyDrawList(r)!
        defer { CARelease(UnsafeRawPointer(list)) }
        CARendererEndFrame(r)
        #expect(QZDrawListGetCount(list) == 1)
        var op = QZDrawOperation()
        #expect(QZDrawListGetOperation(list, 0, &op))
        #expect(op.kind == QZDrawOperationFill.rawValue)
        let m = op.transform
        let local = [(0.0, 0.0), (100.0, 0.0), (100.0, 100.0), (0.0, 100.0)]
        for (i, p) in local.enumerated() {
            let X = p.0 * m.m11 + p.1 * m.m21 + m.m41, Y = p.0 * m.m12 + p.1 * m.m22 + m.m42
            let W = p.0 * m.m14 + p.1 * m.m24 + m.m44
            #expect(abs(X / W - expected[i].0) < 0.5 && abs(Y / W - expected[i].1) < 0.5, "corner \(i)")
        }
        // Pixels: on the middle row the covered length starts and ends at the
        // projected vertical edges (x = expected left / right).
        func coverage(_ x: Int, _ y: Int) -> Double { Double(pixel(pb, x, y).3) / 255 }
        var sum = 0.0, firstX = -1
        for x in 0..<200 { let a = coverage(x, 100); if a > 0 && firstX < 0 { firstX = x }; sum += a }
        let leftEdge = Double(firstX) + 1 - coverage(firstX, 100)
        let rightEdge = leftEdge + sum
        #expect(abs(leftEdge - expected[0].0) < 0.5, "left edge \(leftEdge) vs \(expected[0].0)")
        #expect(abs(rightEdge - expected[1].0) < 0.5, "right edge \(rightEdge) vs \(expected[1].0)")
        // The left (nearer) edge is taller: its column's covered height.
        let col = firstX + 1
        var height = 0.0
        for y in 0..<200 { height += coverage(col, y) }
        let xc = Double(col) + 0.5
        let k = (xc - expected[0].0) / (expected[1].0 - expected[0].0)
        let top = expected[0].1 + (expected[1].1 - expected[0].1) * k
        let bottom = expected[3].1 + (expected[2].1 - expected[3].1) * k
        #expect(abs(height - (bottom - top)) < 0.5, "column height \(height) vs \(bottom - top)")
    }

    // MARK: - Damage tracking

    @Test func movingSmallLayerDamagesExactlyItsOldAndNewRects() {
        let root = TL(0, 0, 400, 300, color: (0.9, 0.9, 0.9, 1))
        for i in 0..<60 {
            let l = TL(Double(i % 10) * 40, Double(i / 10) * 50, 30, 30, color: (Double(i % 3) / 2, 0.5, 0.2, 1))
            CALayerSetCornerRadius(l.ref, 5)
            root.add(l)
        }
        let dot = TL(20, 20, 10, 10, color: (1, 0, 0, 1))
        root.add(dot)
        let pb = makeBuffer(400, 300)
        defer { CVPixelBufferRelease(pb) }
        let r = CARendererCreate(pb, nil)!
        defer { CARelease(UnsafeRawPointer(r)) }
        CARendererSetLayer(r, root.ref)
        CARendererBeginFrameAtTime(r, 0, nil)
        #expect(CARendererUpdateBounds(r).isEqual(to: CGRect(x: 0, y: 0, width: 400, height: 300)))
        CARendererRender(r)
        CARendererEndFrame(r)

        // Idle frame: nothing to redraw, and Render leaves the pixels alone.
        CARendererBeginFrameAtTime(r, 1, nil)
        #expect(CARendererUpdateBounds(r).isNull)
        let base = CVPixelBufferGetBaseAddress(pb)!
        base.storeBytes(of: UInt32(0x1234_5678), as: UInt32.self)
        CARendererRender(r)
        #expect(base.load(as: UInt32.self) == 0x1234_5678)
        base.storeBytes(of: UInt32(0xFFE6_E6E6), as: UInt32.self)
        CARendererEndFrame(r)

        CALayerSetPosition(dot.ref, CGPoint(x: 40, y: 25))   // frame (35, 20, 10, 10)
        CARendererBeginFrameAtTime(r, 2, nil)
        #expect(CARendererUpdateBounds(r).isEqual(to: CGRect(x: 20, y: 20, width: 25, height: 10)))
        CARendererAddUpdateRect(r, CGRect(x: 0, y: 0, width: 4, height: 4))
        #expect(CARendererUpdateBounds(r).isEqual(to: CGRect(x: 0, y: 0, width: 45, height: 30)))
        CARendererRender(r)
        CARendererEndFrame(r)

        // The partly redrawn frame equals a full render of the same tree.
        let full = renderScene(root, 400, 300, at: 2)
        defer { CVPixelBufferRelease(full) }
        var differ = 0
        for y in 0..<300 { for x in 0..<400 where pixel(pb, x, y) != pixel(full, x, y) { differ += 1 } }
        #expect(differ == 0)
    }

    @Test func changedContentPixelsAndPropertiesAreNotMistakenForIdleFrames() {
        let root = TL(0, 0, 64, 64, color: (1, 1, 1, 1))
        let pic = TL(8, 8, 16, 16)
        let img = makeBuffer(4, 4)
        CALayerSetContents(pic.ref, UnsafeRawPointer(img))
        root.add(pic)
        let other = TL(40, 40, 10, 10, color: (0, 0, 1, 1))
        root.add(other)
        defer { CVPixelBufferRelease(img) }
        let driver = FrameDriver(root, 64, 64)
        defer { withExtendedLifetime(driver) {} }   // (pb is the driver's)
        let pb = driver.target, frame = driver.frame
        _ = frame(0)
        #expect(frame(1).isNull)
        // New pixels in the contents (written under a lock, which bumps the seed).
        #expect(CVPixelBufferLockBaseAddress(img, 0) == 0)
        CVPixelBufferGetBaseAddress(img)!.storeBytes(of: UInt32(0xFF00_FF00), as: UInt32.self)
        #expect(CVPixelBufferUnlockBaseAddress(img, 0) == 0)
        #expect(frame(2).isEqual(to: CGRect(x: 8, y: 8, width: 16, height: 16)))
        #expect(pixel(pb, 9, 9) == (0, 255, 0, 255))
        #expect(frame(3).isNull)
        // A colour, a sublayer order and a hidden flag each redraw.
        other.background((1, 0, 0, 1))
        #expect(frame(4).isEqual(to: CGRect(x: 40, y: 40, width: 10, height: 10)))
        CALayerSetHidden(other.ref, true)
        #expect(frame(5).isEqual(to: CGRect(x: 40, y: 40, width: 10, height: 10)))
        CALayerSetHidden(other.ref, false)
        CALayerSetFrame(other.ref, CGRect(x: 12, y: 12, width: 10, height: 10))
        _ = frame(6)
        CALayerInsertSublayerAtIndex(root.ref, other.ref, 0)   // now below the picture
        // Both operations whose paint order changed: the union of the two frames.
        #expect(frame(7).isEqual(to: CGRect(x: 8, y: 8, width: 16, height: 16)))
        #expect(frame(8).isNull)
    }

    /// Changes that differ from the last frame only in the sign bits of an
    /// even number of words (a transform mirrored on both axes: m11 and m22
    /// from 1 to -1) are not mistaken for an idle frame. (A fingerprint that
    /// multiplies without moving high bits down keeps a sign bit's change in
    /// bit 63, where a second one cancels it.)
    @Test func changesOnlyInSignBitsAreNotMistakenForIdleFrames() {
        let root = TL(0, 0, 64, 64, color: (1, 1, 1, 1))
        let card = TL(16, 16, 32, 32, color: (0, 0, 1, 1))
        let dot = TL(0, 0, 8, 8, color: (1, 0, 0, 1))
        card.add(dot)
        root.add(card)
        let driver = FrameDriver(root, 64, 64)
        defer { withExtendedLifetime(driver) {} }   // (pb is the driver's)
        let pb = driver.target, frame = driver.frame
        // Half size (a transform box with m11 = m22 = 0.5): the card covers
        // (24, 24)-(40, 40), the dot a 4x4 square in one of its corners.
        CALayerSetTransform(card.ref, CATransform3DMakeScale(0.5, 0.5, 1))
        _ = frame(0)
        #expect(frame(1).isNull)
        // (Which corner depends on the target's row order.)
        let redBefore = pixel(pb, 25, 25) == (255, 0, 0, 255) ? (25, 25) : (38, 38)
        let redAfter = redBefore == (25, 25) ? (38, 38) : (25, 25)
        #expect(pixel(pb, redBefore.0, redBefore.1) == (255, 0, 0, 255))
        #expect(pixel(pb, redAfter.0, redAfter.1) == (0, 0, 255, 255))
        // Mirrored about the card's centre (m11 = m22 = -0.5): the dot moves
        // to the opposite corner.
        CATransactionBegin(); CATransactionSetDisableActions(true)
        CALayerSetTransform(card.ref, CATransform3DMakeScale(-0.5, -0.5, 1))
        CATransactionCommit()
        #expect(frame(2).isEqual(to: CGRect(x: 24, y: 24, width: 16, height: 16)))
        #expect(pixel(pb, redAfter.0, redAfter.1) == (255, 0, 0, 255))
        #expect(pixel(pb, redBefore.0, redBefore.1) == (0, 0, 255, 255))
        #expect(frame(3).isNull)
        // And two positions negated (both sign bits): the layer leaves the target.
        CATransactionBegin(); CATransactionSetDisableActions(true)
        CALayerSetPosition(card.ref, CGPoint(x: -32, y: -32))
        CATransactionCommit()
        #expect(frame(4).isEqual(to: CGRect(x: 24, y: 24, width: 16, height: 16)))
        #expect(pixel(pb, 32, 32) == (255, 255, 255, 255))
    }

    /// Every kind of state the fingerprint reads, changed alone after an
    /// idle frame, redraws (inline values, the common and the rarer visuals,
    /// contents, a transform box, a sublayer transform, a mask and a
    /// change inside the mask), and the frame after it is idle again.
    @Test func eachKindOfChangeEndsAnIdleRun() {
        let root = TL(0, 0, 64, 64, color: (1, 1, 1, 1))
        let parent = TL(0, 0, 64, 64)
        let card = TL(16, 16, 24, 24, color: (0, 0, 1, 1))
        parent.add(card)
        root.add(parent)
        let img = makeBuffer(4, 4)
        defer { CVPixelBufferRelease(img) }
        let mask = TL(0, 0, 20, 20, color: (0, 0, 0, 1))
        let red = CGColorCreateSRGB(1, 0, 0, 1)!
        defer { CGColorRelease(red) }
        let driver = FrameDriver(root, 64, 64)
        defer { withExtendedLifetime(driver) {} }
        _ = driver.frame(0)
        #expect(driver.frame(1).isNull)
        let changes: [(String, () -> Void)] = [
            ("opacity", { CALayerSetOpacity(card.ref, 0.5) }),
            ("anchor point", { CALayerSetAnchorPoint(card.ref, CGPoint(x: 0, y: 0)) }),
            ("corner radius", { CALayerSetCornerRadius(card.ref, 4) }),
            ("border width", { CALayerSetBorderWidth(card.ref, 2) }),
            ("border colour", { CALayerSetBorderColor(card.ref, red) }),
            ("shadow opacity", { CALayerSetShadowOpacity(card.ref, 1) }),
            ("shadow radius", { CALayerSetShadowRadius(card.ref, 1) }),
            ("shadow offset", { CALayerSetShadowOffset(card.ref, CGSize(width: 2, height: 2)) }),
            ("contents", { CALayerSetContents(card.ref, UnsafeRawPointer(img)) }),
            ("contents rect", { CALayerSetContentsRect(card.ref, CGRect(x: 0, y: 0, width: 0.5, height: 0.5)) }),
            ("contents gravity", { CALayerSetContentsGravity(card.ref, "center") }),
            ("transform", { CALayerSetTransform(card.ref, CATransform3DMakeRotation(0.3, 0, 0, 1)) }),
            ("sublayer transform", { CALayerSetSublayerTransform(parent.ref, CATransform3DMakeTranslation(3, 0, 0)) }),
            ("masks to bounds", { CALayerSetMasksToBounds(card.ref, true) }),
            ("mask", { CALayerSetMask(card.ref, mask.ref) }),
            ("the mask's bounds", { CALayerSetBounds(mask.ref, CGRect(x: 0, y: 0, width: 10, height: 10)) }),
        ]
        for (k, (what, change)) in changes.enumerated() {
            CATransactionBegin(); CATransactionSetDisableActions(true)
            change()
            CATransactionCommit()
            let t = Double(2 + 2 * k)
            #expect(!driver.frame(t).isNull, "\(what): taken for an idle frame")
            #expect(driver.frame(t + 1).isNull, "\(what): the frame after it redrew")
        }
    }

    @Test func nextFrameTimeFollowsAnimations() {
        let clock = RenderClock(10)
        defer { withExtendedLifetime(clock) {} }
        let root = TL(0, 0, 50, 50, color: (1, 1, 1, 1))
        let pb = makeBuffer(50, 50)
        defer { CVPixelBufferRelease(pb) }
        let r = CARendererCreate(pb, nil)!
        defer { CARelease(UnsafeRawPointer(r)) }
        CARendererSetLayer(r, root.ref)
        CARendererBeginFrameAtTime(r, 10, nil)
        #expect(CARendererGetNextFrameTime(r) == .infinity)
        CARendererEndFrame(r)
        let a = CABasicAnimationCreate("opacity")!
        let from = CAValueCreateNumber(0)!, to = CAValueCreateNumber(1)!
        CABasicAnimationSetFromValue(a, from); CABasicAnimationSetToValue(a, to)
        CAAnimationSetDuration(a, 1)
        CALayerAddAnimation(root.ref, a, "fade")
        CARelease(UnsafeRawPointer(a)); CARelease(UnsafeRawPointer(from)); CARelease(UnsafeRawPointer(to))
        CARendererBeginFrameAtTime(r, 10.5, nil)
        #expect(CARendererGetNextFrameTime(r) == 10.5)
        #expect(CARendererUpdateBounds(r).isEqual(to: CGRect(x: 0, y: 0, width: 50, height: 50)))
        CARendererRender(r)
        #expect(abs(pixel(pb, 25, 25).3 - 128) <= 1)   // opacity 0.5 half-way
        CARendererEndFrame(r)
        CARendererBeginFrameAtTime(r, 12, nil)
        #expect(CARendererGetNextFrameTime(r) == .infinity)
        CARendererEndFrame(r)
        _ = clock
    }

    // MARK: - shouldRasterize

    @Test func rasterizedSubtreeIsReusedWhileUnchanged() {
        let root = TL(0, 0, 100, 100)
        let group = TL(10, 10, 60, 60, color: (0, 0, 1, 1))
        group.add(TL(5, 5, 20, 20, color: (1, 0, 0, 1)))
        CALayerSetShouldRasterize(group.ref, true)
        root.add(group)
        let pb = makeBuffer(100, 100)
        defer { CVPixelBufferRelease(pb) }
        let rr = CARendererCreate(pb, nil)!
        defer { CARelease(UnsafeRawPointer(rr)) }
        CARendererSetLayer(rr, root.ref)
        let renderer = Unmanaged<Renderer>.fromOpaque(UnsafeRawPointer(rr)).takeUnretainedValue()
        for (i, x) in [40.0, 50, 60].enumerated() {
            CALayerSetPosition(group.ref, CGPoint(x: x, y: 40))   // moving does not redraw the bitmap
            CARendererBeginFrameAtTime(rr, Double(i), nil)
            CARendererRender(rr)
            CARendererEndFrame(rr)
        }
        #expect(renderer.rasterCache.renders == 1)
        #expect(pixel(pb, 60 - 30 + 10, 40 - 30 + 10) == (255, 0, 0, 255))
        CALayerSetCornerRadius(group.ref, 4)                      // changing the subtree does
        CARendererBeginFrameAtTime(rr, 5, nil); CARendererRender(rr); CARendererEndFrame(rr)
        #expect(renderer.rasterCache.renders == 2)
    }

    // MARK: - renderInContext

    @Test func renderInContextDrawsTheModelTreeInTheLayersSpace() {
        let clock = RenderClock(0)
        defer { withExtendedLifetime(clock) {} }
        let layer = TL(300, 300, 20, 10, color: (1, 0, 0, 1))   // its position is not applied
        let sub = TL(10, 0, 10, 10, color: (0, 0, 1, 1))
        layer.add(sub)
        // An animation in flight does not show: renderInContext draws model values.
        let a = CABasicAnimationCreate("opacity")!
        let from = CAValueCreateNumber(0)!
        CABasicAnimationSetFromValue(a, from); CAAnimationSetDuration(a, 10)
        CALayerAddAnimation(layer.ref, a, nil)
        CARelease(UnsafeRawPointer(a)); CARelease(UnsafeRawPointer(from))
        clock.set(5)
        var bytes = [UInt8](repeating: 0, count: 40 * 20 * 4)
        QZClearLastError()   // errors are per thread: start from none
        bytes.withUnsafeMutableBytes { raw in
            let ctx = CGBitmapContextCreate(raw.baseAddress, 40, 20, 8, 160, nil, UInt32(kCGImageAlphaPremultipliedLast))!
            CGContextScaleCTM(ctx, 2, 2)
            CALayerRenderInContext(layer.ref, ctx)
            #expect(CGContextGetCTM(ctx).a == 2)
            CGContextRelease(ctx)
        }
        // RGBA bytes: red over (0..20, 0..20) pixels, blue over (20..40).
        #expect(Array(bytes[0..<4]) == [255, 0, 0, 255])
        let o = (10 * 40 + 30) * 4
        #expect(Array(bytes[o..<o + 4]) == [0, 0, 255, 255])
        #expect(takeError() == QZErrorNone)
    }

    @Test func bitmapContextFillAndClear() {
        let pb = makeBuffer(8, 8)
        defer { CVPixelBufferRelease(pb) }
        let ctx = QZBitmapContextCreateWithPixelBuffer(pb)!
        defer { CGContextRelease(ctx) }
        CGContextSetRGBFillColor(ctx, 0, 1, 0, 1)
        CGContextFillRect(ctx, CGRect(x: 0, y: 0, width: 8, height: 4))   // y down: the top half
        #expect(pixel(pb, 3, 1) == (0, 255, 0, 255) && pixel(pb, 3, 6).3 == 0)
        CGContextSaveGState(ctx)
        CGContextTranslateCTM(ctx, 4, 0)
        CGContextClearRect(ctx, CGRect(x: 0, y: 0, width: 4, height: 4))
        CGContextRestoreGState(ctx)
        #expect(pixel(pb, 5, 1).3 == 0 && pixel(pb, 1, 1).3 == 255)
        CGContextRestoreGState(ctx)
        #expect(takeError() == QZErrorInvalidState)
    }

    // MARK: - Bad input

    @Test func badInputIsRecordedNotFatal() {
        QZClearLastError()
        #expect(CARendererCreate(nil, nil) == nil)
        #expect(takeError() == QZErrorNullArgument)
        var yuv: QZCVPixelBufferRef?
        #expect(CVPixelBufferCreate(nil, 16, 16, OSType(kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange), nil, &yuv) == 0)
        #expect(CARendererCreate(yuv, nil) == nil)
        #expect(takeError() == QZErrorInvalidArgument)
        #expect(QZBitmapContextCreateWithPixelBuffer(yuv) == nil)
        #expect(takeError() == QZErrorInvalidArgument)
        CVPixelBufferRelease(yuv)
        #expect(CGBitmapContextCreate(nil, 0, 10, 8, 0, nil, UInt32(kCGImageAlphaPremultipliedLast)) == nil)
        #expect(takeError() == QZErrorInvalidArgument)
        #expect(CGBitmapContextCreate(nil, 10, 10, 16, 0, nil, UInt32(kCGImageAlphaPremultipliedLast)) == nil)
        #expect(takeError() == QZErrorInvalidArgument)

        let pb = makeBuffer(16, 16)
        defer { CVPixelBufferRelease(pb) }
        let r = CARendererCreate(pb, nil)!
        defer { CARelease(UnsafeRawPointer(r)) }
        CARendererRender(r)
        #expect(takeError() == QZErrorInvalidState)          // no frame
        CARendererBeginFrameAtTime(r, 0, nil)
        CARendererRender(r)
        #expect(takeError() == QZErrorInvalidState)          // no layer
        CARendererEndFrame(r)
        CARendererEndFrame(r)
        #expect(takeError() == QZErrorInvalidState)          // no frame open
        CARendererBeginFrameAtTime(r, .nan, nil)
        #expect(takeError() == QZErrorNotFinite)
        CARendererSetBounds(r, CGRect(x: .nan, y: 0, width: 1, height: 1))
        #expect(takeError() == QZErrorNotFinite)
        CARendererAddUpdateRect(r, CGRect(x: 0, y: 0, width: 1, height: 1))
        #expect(takeError() == QZErrorInvalidState)
        #expect(CARendererGetNextFrameTime(r) == .infinity)
        let layer = CALayerCreate()!
        CARendererSetLayer(r, unsafeBitCast(pb, to: CALayerRef.self))                 // wrong type
        #expect(takeError() == QZErrorWrongType)
        CARelease(UnsafeRawPointer(layer))
        var op = QZDrawOperation()
        let list = QZRendererCopyDrawList(r)!
        #expect(QZDrawListGetCount(list) == 0)
        #expect(!QZDrawListGetOperation(list, 0, &op))
        #expect(takeError() == QZErrorOutOfRange)
        #expect(!QZDrawListGetOperation(list, 0, nil))
        #expect(takeError() == QZErrorNullArgument)
        CARelease(UnsafeRawPointer(list))
        CALayerRenderInContext(nil, nil)
        #expect(takeError() == QZErrorNullArgument)
    }

    @Test func hostileValuesAreClamped() {
        let root = TL(0, 0, 64, 64)
        let a = TL(10, 10, 20, 20, color: (1, 0, 0, 1))
        CALayerSetCornerRadius(a.ref, 1e9)                  // larger than the layer: a circle
        CALayerSetShadowOpacity(a.ref, 1); CALayerSetShadowRadius(a.ref, 1e12)
        CALayerSetBorderWidth(a.ref, 1e9)
        root.add(a)
        let pb = renderScene(root, 64, 64)
        defer { CVPixelBufferRelease(pb) }
        #expect(pixel(pb, 20, 20).3 == 255)
        #expect(pixel(pb, 10, 10).3 < 255)   // the rounded corner
        // NaN geometry reached past the export layer is skipped, not drawn.
        withModelLock {
            let l = Unmanaged<Layer>.fromOpaque(UnsafeRawPointer(a.ref)).takeUnretainedValue()
            l.bounds = CGRect(x: .nan, y: 0, width: 10, height: 10)
        }
        let pb2 = renderScene(root, 64, 64)
        #expect(pixel(pb2, 20, 20).3 == 0)
        CVPixelBufferRelease(pb2)
    }

    // MARK: - Fuzz

    @Test func randomTreesRenderWithoutCrashing() {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 { seed = seed &* 6364136223846793005 &+ 1442695040888963407; return seed >> 33 }
        func unit() -> Double { Double(next() % 10_000) / 10_000 }
        func wild() -> Double {
            switch next() % 12 {
            case 0: return .nan
            case 1: return .infinity
            case 2: return -1e12
            case 3: return 1e12
            case 4: return 0
            default: return unit() * 120 - 20
            }
        }
        let img = makeTestImage(8, 8)
        defer { CVPixelBufferRelease(img) }
        for _ in 0..<30 {
            let root = TL(0, 0, 48, 48, color: (0.5, 0.5, 0.5, 1))
            var all = [root]
            for _ in 0..<12 {
                let l = TL(unit() * 40, unit() * 40, unit() * 30, unit() * 30, color: (unit(), unit(), unit(), unit()))
                let parent = all[Int(next() % UInt64(all.count))]
                parent.add(l)
                all.append(l)
                let layer = Unmanaged<Layer>.fromOpaque(UnsafeRawPointer(l.ref)).takeUnretainedValue()
                withModelLock {
                    // Values the export layer would refuse, set straight on the engine.
                    if next() % 6 == 0 { layer.bounds = CGRect(x: wild(), y: wild(), width: wild(), height: wild()) }
                    if next() % 6 == 0 { layer.position = CGPoint(x: wild(), y: wild()) }
                    if next() % 5 == 0 {
                        var t = CATransform3DMakeRotation(wild(), unit(), unit(), unit())
                        t.m34 = next() % 2 == 0 ? -1 / (unit() * 400 + 1) : wild()
                        layer.transformBox = TransformBox(t)
                    }
                    let v = layer.ensureVisuals
                    layer.cornerRadius = wild()
                    if next() % 3 == 0 { v.shadowOpacity = Float(unit()); v.shadowRadius = wild(); v.shadowOffset = CGSize(width: wild(), height: wild()) }
                    if next() % 3 == 0 { layer.borderWidth = wild() }
                    if next() % 3 == 0 { layer.flags.insert(.masksToBounds) }
                    if next() % 4 == 0 { layer.opacity = Float(unit()) }
                    if next() % 5 == 0 { layer.flags.remove(.doubleSided) }
                    if next() % 7 == 0 { layer.flags.insert(.geometryFlipped) }
                    if next() % 8 == 0 { layer.flags.insert(.shouldRasterize); v.rasterizationScale = wild() }
                    layer.zPosition = next() % 5 == 0 ? wild() : 0
                }
                if next() % 3 == 0 {
                    CALayerSetContents(l.ref, UnsafeRawPointer(img))
                    withModelLock {
                        let v = layer.ensureVisuals
                        v.contentsRect = CGRect(x: wild(), y: wild(), width: wild(), height: wild())
                        v.contentsCenter = CGRect(x: unit(), y: unit(), width: wild(), height: unit())
                        v.contentsScale = wild()
                        v.contentsGravity = UInt8(next() % 12)
                        v.minificationFilter = UInt8(next() % 3)
                        v.minificationFilterBias = Float(wild())
                    }
                }
                if next() % 10 == 0, all.count > 2 {
                    CALayerSetMask(all[1].ref, TL(wild(), wild(), 40, 40, color: (0, 0, 0, unit())).ref)
                }
            }
            let pb = renderScene(root, 48, 48)
            CVPixelBufferRelease(pb)
        }
        QZClearLastError()
    }
}
