import CQuartzite
import Testing
@testable import QuartziteCore
@testable import QuartziteGeometry
@testable import QuartziteGraphics
@testable import QuartziteRender

// A layer's opaque rounded background is drawn right over its own shadow, so
// the compositor leaves out the shadow pixels that the background covers
// whole (Compositor.roundedRectShadow, fillRoundedRectShadow's opaqueAbove).
// The frame must be byte for byte the one drawn with the whole shadow.

@Suite("Shadow pixels under an opaque layer")
struct ShadowOcclusionTests {
    private static let size = PixelBox(x: 0, y: 0, width: 96, height: 80)

    /// [beginShadow, silhouette, endShadow, background]: a card of `w` x `h`
    /// layer points at `scale`, translated by (tx, ty), corner radius `radius`,
    /// its shadow moved by (dx, dy) pixels; the background's pixels limited to
    /// `bounds` when given (a clip's bounds).
    private static func ops(tx: Double, ty: Double, scale: Double, w: Double, h: Double, radius: Double,
                            dx: Double, dy: Double, sigma: Double, bounds: CGRect? = nil) -> [DrawOp] {
        var fill = DrawOp(.fill)
        fill.transform = Homography(m: (scale, 0, 0, 0, scale, 0, tx, ty, 1))
        fill.rect = CGRect(x: 0, y: 0, width: w, height: h)
        fill.cornerRadius = radius
        fill.color = SIMD4(0.9, 0.75, 0.6, 1)
        let device = CGRect(x: tx, y: ty, width: w * scale, height: h * scale)
        fill.bounds = device
        var shadow = DrawOp(.beginShadow)
        shadow.color = SIMD4(0, 0, 0, 1)
        shadow.opacity = 0.6
        shadow.shadowRadius = sigma
        shadow.shadowOffset = CGSize(width: dx, height: dy)
        let margin = Double(blurExtent(sigma: sigma) + 1)
        shadow.rect = device.insetBy(dx: -margin, dy: -margin)
        shadow.bounds = device.offsetBy(dx: dx, dy: dy).insetBy(dx: -margin, dy: -margin)
        var background = fill
        if let bounds { background.bounds = device.intersection(bounds) }
        return [shadow, fill, DrawOp(.endShadow), background]
    }

    /// The frame `ops` draw over an opaque ground.
    private static func draw(_ ops: [DrawOp]) -> [UInt32] {
        let canvas = Canvas(size)!
        for y in size.y0..<size.y1 { (canvas.row(y) + size.x0).update(repeating: 0xFF30_4050, count: size.width) }
        var compositor = Compositor(root: canvas, textures: TextureCache())
        compositor.run(ops)
        var pixels: [UInt32] = []
        for y in size.y0..<size.y1 { pixels += UnsafeBufferPointer(start: canvas.row(y) + size.x0, count: size.width) }
        return pixels
    }

    @Test(arguments: [
        // tx, ty, scale, w, h, radius, dx, dy, sigma
        (10.0, 12.0, 1.0, 60.0, 40.0, 12.0, 0.0, 3.0, 3.0),      // the benchmark's card, smaller
        (10.3, 12.7, 1.0, 60.0, 40.0, 12.0, 0.0, 3.0, 3.0),      // fractional position
        (9.5, 11.5, 1.5, 40.0, 30.0, 7.3, 2.0, -3.0, 2.5),       // scaled, fractional radius
        (20.25, 8.75, 0.75, 80.0, 60.0, 30.0, -1.0, 4.0, 4.0),   // radius = half the height at scale 0.75
        (15.0, 15.0, 2.0, 20.0, 20.0, 0.0, 1.0, 1.0, 1.5),       // square corners
        (30.1, 25.9, 1.0, 4.0, 3.0, 1.5, 0.0, 2.0, 2.0),         // a tiny card
        (5.6, 6.4, 1.25, 50.0, 40.0, 25.0, 0.0, 5.0, 3.0),       // radius larger than half the height: clamped
    ])
    func shadowUnderTheBackgroundIsLeftOutWithoutChangingAPixel(
        _ c: (Double, Double, Double, Double, Double, Double, Double, Double, Double)) {
        let occluded = Self.ops(tx: c.0, ty: c.1, scale: c.2, w: c.3, h: c.4, radius: c.5, dx: c.6, dy: c.7, sigma: c.8)
        // The same operations with a no-op between the shadow and the
        // background (a pop without a clip): the shadow is drawn whole.
        var whole = occluded
        whole.insert(DrawOp(.popClip), at: 3)
        let a = Self.draw(occluded), b = Self.draw(whole)
        let differ = zip(a, b).filter { $0 != $1 }.count
        #expect(differ == 0, "\(differ) pixels differ")
        // The card and its shadow are there: the card's colour at its centre,
        // darker ground just below it than far away.
        let cx = Int(c.0 + c.3 * c.2 / 2), cy = Int(c.1 + c.4 * c.2 / 2)
        #expect(a[cy * Self.size.width + cx] == packBGRA(SIMD4(0.9, 0.75, 0.6, 1)))
        #expect(a[(Self.size.height - 1) * Self.size.width] == 0xFF30_4050)
    }

    /// A background whose pixels are limited (by a clip's bounds) repaints
    /// only those: the shadow must stay whole everywhere else.
    @Test func aBackgroundLimitedToPartOfItsRectangleHidesOnlyThatPart() {
        let occluded = Self.ops(tx: 10.5, ty: 10.5, scale: 1, w: 60, h: 40, radius: 10, dx: 0, dy: 3, sigma: 3,
                                bounds: CGRect(x: 0, y: 0, width: 40, height: 30))
        var whole = occluded
        whole.insert(DrawOp(.popClip), at: 3)
        let a = Self.draw(occluded), b = Self.draw(whole)
        #expect(zip(a, b).filter { $0 != $1 }.count == 0)
        // Outside the bounds the background is not drawn: the shadow shows
        // there (darker than the ground, which is 0x30 in red).
        let p = a[35 * Self.size.width + 55]
        #expect((p >> 16) & 0xFF < 0x30, "\(String(p, radix: 16))")
    }
}
