import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel

// Apple's renderInContext: the model tree of a layer, composited into a
// Core Graphics context. The renderer draws the tree into a transparent
// buffer the size of the context's pixels through the context's CTM; the
// context then paints that buffer with its clip, alpha, blend mode and shadow.

extension Layer {
    /// Draws the model tree (no animations) in the layer's own coordinate
    /// space into `context`: layer point (0, 0) is the context's user-space
    /// origin, whatever the bounds origin, as observed on Apple's QuartzCore.
    /// False when the buffer cannot be made or drawn.
    package func render(in context: DrawingContext) -> Bool {
        let b = bounds.standardized
        guard !b.hasNaN else { return true }
        let t = context.ctm
        let ctmHomography = Homography(m: (t.a, t.b, 0, t.c, t.d, 0, t.tx, t.ty, 1))
        let h = ctmHomography
        let scale = ((t.a * t.d - t.b * t.c).magnitude).squareRoot()
        guard let pb = try? PixelBuffer.create(width: context.width, height: context.height,
                                               pixelFormat: UInt32(kCVPixelFormatType_32BGRA), attributes: nil) else { return false }
        var builder = DrawListBuilder(targetBounds: CGRect(x: 0, y: 0, width: Double(pb.width), height: Double(pb.height)),
                                      now: nil, scale: scale)
        builder.rasterCache = RasterCache()
        // (Tiled layers draw the tiles they need here, on this thread.)
        builder.drawsTilesInline = true
        // The receiver's own placement is not applied: only its contents and sublayers.
        builder.emit(self, h, flip: h.determinant < 0 ? -1 : 1)
        guard composite(builder.ops, into: pb, region: PixelBox(x0: 0, y0: 0, x1: pb.width, y1: pb.height),
                        clear: true, textures: TextureCache()) else { return false }
        // (The buffer is in device pixels: painted with the identity CTM.)
        let saved = context.ctm
        context.setCTM(.identity)
        context.paintDeviceImage(pb)
        context.setCTM(saved)
        return true
    }
}
