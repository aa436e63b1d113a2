import CQuartzite
import Testing
@testable import QuartziteCore
@testable import QuartziteGeometry
@testable import QuartziteVideo
@testable import QuartziteGraphics
@testable import QuartziteModel
@testable import QuartziteRender
@testable import Quartzite

// The renderer keeps blurred shadow masks between frames (ShadowMaskCache):
// the same silhouette and radius blur once, and the pixels are exactly what a
// renderer without the cache draws.

@Suite("Shadow cache", .serialized)
struct ShadowCacheTests {
    /// Three identical rounded cards with shadows on white, at x0, x0+60, x0+120.
    private func scene(x0: Double, y0: Double = 30, alpha: Double) -> (TL, [TL]) {
        let root = TL(0, 0, 240, 120, color: (1, 1, 1, 1))
        var cards: [TL] = []
        for i in 0..<3 {
            let card = TL(x0 + Double(i) * 60, y0, 40, 40, color: (0.2, 0.4, 0.9, alpha))
            CALayerSetCornerRadius(card.ref, 8)
            CALayerSetShadowOpacity(card.ref, 0.6)
            CALayerSetShadowRadius(card.ref, 5)
            CALayerSetShadowOffset(card.ref, CGSize(width: 0, height: 4))
            root.add(card)
            cards.append(card)
        }
        CATransactionFlush()
        return (root, cards)
    }

    private func frame(_ r: CARendererRef, at t: Double) {
        CARendererBeginFrameAtTime(r, t, nil)
        CARendererAddUpdateRect(r, CGRect(x: 0, y: 0, width: 240, height: 120))
        CARendererRender(r)
        CARendererEndFrame(r)
    }

    private func bytes(_ pb: QZCVPixelBufferRef) -> [UInt8] {
        let base = CVPixelBufferGetBaseAddress(pb)!.assumingMemoryBound(to: UInt8.self)
        return Array(UnsafeBufferPointer(start: base, count: CVPixelBufferGetBytesPerRow(pb) * CVPixelBufferGetHeight(pb)))
    }

    /// Opaque cards take the compositor's rounded-rectangle path (a blurred
    /// template, kept by its parameters); translucent ones the general path
    /// (the silhouette drawn offscreen, kept by its alpha).
    @Test(arguments: [1.0, 0.8])
    func identicalSilhouettesBlurOnceAndMatchAFreshRenderer(alpha: Double) {
        let (root, cards) = scene(x0: 20, alpha: alpha)
        let pb = makeBuffer(240, 120)
        let r = CARendererCreate(pb, nil)!
        defer { CARelease(UnsafeRawPointer(r)); CVPixelBufferRelease(pb) }
        CARendererSetLayer(r, root.ref)
        let cache = object(r, as: Renderer.self)!.textures.shadows
        frame(r, at: 1000)
        // Three cards at whole-pixel offsets of each other: one blur, two reuses.
        #expect(cache.misses == 1 && cache.hits == 2 && cache.count == 1, "\(cache.misses) \(cache.hits) \(cache.count)")
        let first = bytes(pb)
        // The shadow really is there: below a card, darker than the white ground.
        let below = pixel(pb, 40, 73)
        #expect(below.0 < 230 && below.0 == below.1 && below.1 == below.2, "\(below)")
        // A full redraw of the same frame blurs nothing and draws the same bytes.
        frame(r, at: 1001)
        #expect(cache.misses == 1 && cache.hits == 5)
        #expect(bytes(pb) == first)
        // Moving the cards by whole pixels reuses the mask; the pixels equal a
        // fresh renderer's (no cache) drawing of the moved scene.
        for (i, c) in cards.enumerated() { CALayerSetPosition(c.ref, CGPoint(x: 47 + Double(i) * 60, y: 51)) }
        CATransactionFlush()
        frame(r, at: 1002)
        #expect(cache.misses == 1 && cache.hits == 8)
        #expect(bytes(pb) != first)
        // A renderer that keeps no masks (budget 0) blurs every shadow afresh.
        let (moved, _) = scene(x0: 27, y0: 31, alpha: alpha)
        let fresh = makeBuffer(240, 120)
        let r2 = CARendererCreate(fresh, nil)!
        defer { CARelease(UnsafeRawPointer(r2)); CVPixelBufferRelease(fresh) }
        CARendererSetLayer(r2, moved.ref)
        let uncached = object(r2, as: Renderer.self)!.textures.shadows
        uncached.budgetBytes = 0
        frame(r2, at: 1002)
        #expect(uncached.misses == 3 && uncached.hits == 0 && uncached.count == 0)
        #expect(bytes(fresh) == bytes(pb))
        #expect(takeError() == QZErrorNone)
    }

    /// Writes a 4x4 pattern into `pb`: opaque red where (x + y + phase) is
    /// even, transparent elsewhere (a silhouette with holes).
    private func paint(_ pb: QZCVPixelBufferRef, phase: Int) {
        #expect(CVPixelBufferLockBaseAddress(pb, 0) == 0)
        let base = CVPixelBufferGetBaseAddress(pb)!
        let bpr = CVPixelBufferGetBytesPerRow(pb)
        for y in 0..<4 {
            for x in 0..<4 {
                base.storeBytes(of: (x + y + phase) % 2 == 0 ? UInt32(0xFFFF_0000) : 0, toByteOffset: y * bpr + 4 * x, as: UInt32.self)
            }
        }
        #expect(CVPixelBufferUnlockBaseAddress(pb, 0) == 0)
    }

    /// A shadow whose silhouette is drawn offscreen (an image with holes),
    /// on a frame split among threads: a full redraw of the same frame takes
    /// the silhouette's blurred mask from the last frame without drawing it;
    /// new pixels in the image, or a move, draw it again. Each frame's bytes
    /// equal a one-thread renderer's drawing the same tree afresh.
    @Test func aFrameSplitAmongThreadsReusesAnUnchangedSilhouette() {
        let root = TL(0, 0, 256, 256, color: (1, 1, 1, 1))
        let photo = TL(60, 50, 120, 96)
        let img = makeBuffer(4, 4)
        defer { CVPixelBufferRelease(img) }
        paint(img, phase: 0)
        CALayerSetContents(photo.ref, UnsafeRawPointer(img))
        CALayerSetMagnificationFilter(photo.ref, "nearest")
        CALayerSetShadowOpacity(photo.ref, 0.7)
        CALayerSetShadowRadius(photo.ref, 6)
        CALayerSetShadowOffset(photo.ref, CGSize(width: 0, height: 5))
        root.add(photo)
        CATransactionFlush()
        let pb = makeBuffer(256, 256)
        let r = CARendererCreate(pb, nil)!
        defer { CARelease(UnsafeRawPointer(r)); CVPixelBufferRelease(pb) }
        CARendererSetLayer(r, root.ref)
        QZRendererSetThreadCount(r, 2)
        let cache = object(r, as: Renderer.self)!.textures.shadows
        func full(_ t: Double) {
            CARendererBeginFrameAtTime(r, t, nil)
            CARendererAddUpdateRect(r, CGRect(x: 0, y: 0, width: 256, height: 256))
            CARendererRender(r)
            CARendererEndFrame(r)
        }
        func matchesAFreshRenderer() -> Bool {
            let fresh = renderScene(root, 256, 256)
            defer { CVPixelBufferRelease(fresh) }
            return bytes(fresh) == bytes(pb)
        }
        full(1000)
        #expect(cache.silhouetteReuses == 0 && cache.preparedSilhouetteCount == 1)
        let first = bytes(pb)
        // The shadow is there, through the image's holes' pattern.
        #expect(pixel(pb, 120, 150).0 < 250)
        #expect(matchesAFreshRenderer())
        full(1001)
        #expect(cache.silhouetteReuses == 1)
        #expect(bytes(pb) == first)
        // New pixels (the seed moves): the silhouette is drawn again.
        paint(img, phase: 1)
        full(1002)
        #expect(cache.silhouetteReuses == 1)
        #expect(bytes(pb) != first)
        #expect(matchesAFreshRenderer())
        // A move by whole pixels: drawn again, then reused.
        CALayerSetPosition(photo.ref, CGPoint(x: 123, y: 101))
        CATransactionFlush()
        full(1003)
        #expect(cache.silhouetteReuses == 1)
        #expect(matchesAFreshRenderer())
        full(1004)
        #expect(cache.silhouetteReuses == 2)
        #expect(matchesAFreshRenderer())
        // A frame of another region (which decides the silhouette's
        // rectangle) draws it again; its rows still match.
        CARendererBeginFrameAtTime(r, 1004.5, nil)
        CARendererAddUpdateRect(r, CGRect(x: 40, y: 60, width: 160, height: 160))
        CARendererRender(r)
        CARendererEndFrame(r)
        #expect(cache.silhouetteReuses == 2)
        #expect(matchesAFreshRenderer())
        // A frame without the shadow drops what was kept for it.
        CALayerSetShadowOpacity(photo.ref, 0)
        CATransactionFlush()
        full(1005)
        #expect(cache.preparedSilhouetteCount == 0)
        // What is kept counts against the masks' budget: with none, nothing.
        CALayerSetShadowOpacity(photo.ref, 0.7)
        CATransactionFlush()
        cache.budgetBytes = 0
        full(1006)
        full(1007)
        #expect(cache.preparedSilhouetteCount == 0 && cache.silhouetteReuses == 2)
        #expect(matchesAFreshRenderer())
        #expect(takeError() == QZErrorNone)
    }
}

