import CQuartzite
import Testing
@testable import QuartziteCore
@testable import QuartziteGeometry
@testable import QuartziteGraphics
@testable import QuartziteRender

// Unrotated plain fills take the compositor's span path: the interior as
// spans, the pixels beside it sorted by RimClassifier (certainly outside,
// certainly inside, or on the antialiased rim, which alone is evaluated per
// pixel). Under a clip every pixel is evaluated per pixel instead; a clip far
// larger than the target has coverage exactly 1, so both must give the same
// bytes.

@Suite("Rounded fills: span path against per-pixel evaluation")
struct RoundedFillRimTests {
    private static let size = PixelBox(x: 0, y: 0, width: 100, height: 90)

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
        // tx, ty, scale x, scale y, w, h, radius, alpha, opacity
        (10.0, 12.0, 1.0, 1.0, 60.0, 40.0, 12.0, 1.0, 1.0),     // the benchmark's card
        (10.3, 12.7, 1.0, 1.0, 60.0, 40.0, 12.0, 1.0, 1.0),     // fractional position
        (9.5, 11.5, 1.5, 1.5, 40.0, 30.0, 7.3, 1.0, 1.0),       // scaled, fractional radius
        (5.25, 8.75, 1.3, 0.7, 50.0, 60.0, 20.0, 1.0, 1.0),     // non-uniform scale
        (20.0, 4.5, 0.75, 0.75, 80.0, 60.0, 30.0, 0.6, 1.0),    // radius = half the height, translucent colour
        (15.4, 15.6, 2.0, 2.0, 20.0, 20.0, 0.0, 1.0, 0.5),      // square corners, layer opacity
        (30.1, 25.9, 1.0, 1.0, 4.0, 3.0, 1.5, 1.0, 1.0),        // a tiny card
        (90.2, 10.3, -1.0, 1.0, 60.0, 40.0, 10.0, 1.0, 1.0),    // flipped in x
        (10.6, 85.2, 1.0, -1.2, 60.0, 40.0, 10.0, 0.8, 0.7),    // flipped in y (geometryFlipped)
        (10.0, 10.0, 1.0, 1.0, 60.0, 40.0, 35.0, 1.0, 1.0),     // radius beyond half a side (not classified)
    ])
    func spansAndRimGiveThePerPixelBytes(_ c: (Double, Double, Double, Double, Double, Double, Double, Double, Double)) {
        var fill = DrawOp(.fill)
        fill.transform = Homography(m: (c.2, 0, 0, 0, c.3, 0, c.0, c.1, 1))
        fill.rect = CGRect(x: 0, y: 0, width: c.4, height: c.5)
        fill.cornerRadius = c.6
        let a = Float(c.7)
        fill.color = SIMD4(0.9 * a, 0.75 * a, 0.6 * a, a)
        fill.opacity = Float(c.8)
        fill.bounds = CGRect(x: c.0, y: c.1, width: c.4 * c.2, height: c.5 * c.3).standardized
        var clip = DrawOp(.pushClip)
        clip.rect = CGRect(x: -1e4, y: -1e4, width: 2e4, height: 2e4)
        clip.bounds = clip.rect
        let spans = Self.draw([fill]), perPixel = Self.draw([clip, fill, DrawOp(.popClip)])
        let differ = zip(spans, perPixel).filter { $0 != $1 }.count
        #expect(differ == 0, "\(differ) pixels differ")
        // The fill is there: its colour at its centre (blended over the ground
        // when translucent), the ground in a corner of the target.
        let cx = Int(c.0 + c.4 * c.2 / 2), cy = Int(c.1 + c.5 * c.3 / 2)
        #expect(spans[cy * Self.size.width + cx] != 0xFF30_4050)
        #expect(spans[(Self.size.height - 1) * Self.size.width + Self.size.width - 1] == 0xFF30_4050)
    }
}
