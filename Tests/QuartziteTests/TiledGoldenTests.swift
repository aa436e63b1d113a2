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

// CATiledLayer golden scenes: one drawing routine (rings around the layer's
// centre, a hairline of one pixel of the level at every tile's edge, so the
// level shows) at two levels of detail, and a tile of the finer level fading
// in over the coarser one. Frames wait for their tiles (deterministic).

/// Rings every 16 points around (64, 64), and the tile's own edge as a
/// hairline one pixel of its level wide.
private let ringTiles: @convention(c) (CALayerRef?, QZCGContextRef?, UnsafeMutableRawPointer?) -> Void = { _, ctx, _ in
    let box = CGContextGetClipBoundingBox(ctx)
    let px = 1 / CGContextGetCTM(ctx).a
    for i in stride(from: 6, through: 1, by: -1) {
        let r = Double(i) * 16
        if i % 2 == 0 { CGContextSetRGBFillColor(ctx, 0.9, 0.3, 0.1, 1) } else { CGContextSetRGBFillColor(ctx, 0.95, 0.9, 0.7, 1) }
        CGContextFillEllipseInRect(ctx, CGRect(x: 64 - r, y: 64 - r, width: 2 * r, height: 2 * r))
    }
    CGContextSetRGBStrokeColor(ctx, 0.1, 0.2, 0.8, 1)
    CGContextSetLineWidth(ctx, px)
    CGContextStrokeRect(ctx, box.insetBy(dx: px / 2, dy: px / 2))
}

private func tiledScene(fade: Double) -> (TL, CALayerRef, CALayerClassRef) {
    var cb = CALayerClassCallbacks()
    cb.drawInContext = ringTiles
    let cls = CALayerClassCreate("GoldenRings", CALayerClassGetBuiltin("CATiledLayer"), &cb, nil)!
    QZTiledLayerClassSetFadeDuration(cls, fade)
    let tiled = CALayerCreateWithClass(cls)!
    CATiledLayerSetLevelsOfDetail(tiled, 3)
    CATiledLayerSetTileSize(tiled, CGSize(width: 32, height: 32))
    CALayerSetAnchorPoint(tiled, CGPoint(x: 0, y: 0))
    CALayerSetBounds(tiled, CGRect(x: 0, y: 0, width: 128, height: 128))
    let root = TL(0, 0, 128, 128, color: (1, 1, 1, 1))
    CALayerAddSublayer(root.ref, tiled)
    return (root, tiled, cls)
}

private func zoom(_ l: CALayerRef, _ s: Double) {
    CATransactionBegin()
    CATransactionSetDisableActions(true)
    CALayerSetTransform(l, CATransform3DMakeScale(s, s, 1))
    CALayerSetPosition(l, CGPoint(x: 0, y: 0))
    CATransactionCommit()
}

@Suite("CATiledLayer golden scenes", .serialized)
struct TiledGoldenTests {
    /// Level 0 at 1x (32-point tiles), then level -1 at 0.3x (0.5 pixel per
    /// point: 64-point tiles), through one 128 x 128 renderer.
    @Test func twoLevelsOfDetail() {
        let (root, tiled, cls) = tiledScene(fade: 0)
        let pb = makeBuffer(128, 128)
        let r = CARendererCreate(pb, nil)!
        CARendererSetLayer(r, root.ref)
        QZRendererSetWaitsForTiles(r, true)
        zoom(tiled, 1)
        CARendererBeginFrameAtTime(r, 1, nil); CARendererRender(r); CARendererEndFrame(r)
        checkGolden("tiled_level_0", pb)
        zoom(tiled, 0.3)
        CARendererBeginFrameAtTime(r, 2, nil); CARendererRender(r); CARendererEndFrame(r)
        checkGolden("tiled_level_minus_1", pb)
        CARelease(UnsafeRawPointer(r))
        CVPixelBufferRelease(pb)
        CARelease(UnsafeRawPointer(tiled))
        CARelease(UnsafeRawPointer(cls))
        _ = root
    }

    /// Level -1 drawn and shown at 0.5x; zooming in to 1x asks for level 0,
    /// whose tiles fade in over the coarser ones: half faded in at t0 + 0.125.
    @Test func tileFadingIn() {
        let (root, tiled, cls) = tiledScene(fade: 0.25)
        let pb = makeBuffer(128, 128)
        let r = CARendererCreate(pb, nil)!
        CARendererSetLayer(r, root.ref)
        QZRendererSetWaitsForTiles(r, true)
        zoom(tiled, 0.5)                       // level -1
        for t in [1.0, 2.0] { CARendererBeginFrameAtTime(r, t, nil); CARendererRender(r); CARendererEndFrame(r) }
        #expect(pixel(pb, 2, 2).3 == 255)     // shown in full after its fade
        zoom(tiled, 1)                         // level 0: drawn, fading in over level -1 from t0 = 10
        CARendererBeginFrameAtTime(r, 10, nil); CARendererRender(r); CARendererEndFrame(r)
        CARendererBeginFrameAtTime(r, 10.125, nil); CARendererRender(r); CARendererEndFrame(r)
        checkGolden("tiled_fading_in", pb)
        CARelease(UnsafeRawPointer(r))
        CVPixelBufferRelease(pb)
        CARelease(UnsafeRawPointer(tiled))
        CARelease(UnsafeRawPointer(cls))
        _ = root
    }
}
