import CQuartzite

// Bitmap contexts (Apple's CGBitmapContext): a DrawingContext over pixels,
// with a CTM that maps user space (points, y down) to pixels, a fill colour
// and a save/restore stack. CALayerRenderInContext composites layer trees
// into them through the renderer's compositor.

struct GraphicsState {
    var ctm = CGAffineTransform.identity
    /// Premultiplied RGBA.
    var fill = SIMD4<Float>(0, 0, 0, 1)
}

extension DrawingContext {
    /// A bitmap context over `pb` (which it retains).
    static func bitmap(_ pb: PixelBuffer) -> DrawingContext {
        let c = DrawingContext(size: CGSize(width: Double(pb.width), height: Double(pb.height)), scale: 1,
                               clip: CGRect(x: 0, y: 0, width: Double(pb.width), height: Double(pb.height)),
                               origin: CGPoint(x: 0, y: 0))
        c.bitmap = pb
        return c
    }

    var ctmHomography: Homography {
        let t = gstate.ctm
        return Homography(m: (t.a, t.b, 0, t.c, t.d, 0, t.tx, t.ty, 1))
    }

    /// Apple's renderInContext: the model tree of `layer` (no animations), in
    /// the layer's own coordinate space, composited over the context's pixels.
    func render(_ layer: Layer) -> Bool {
        guard let pb = bitmap else { return false }
        let b = layer.bounds.standardized
        guard !b.hasNaN else { return true }
        // Layer coordinates are user space (point (0, 0) at the context's
        // origin, whatever the bounds origin), as observed on Apple's QuartzCore.
        let h = ctmHomography
        let t = gstate.ctm
        let scale = ((t.a * t.d - t.b * t.c).magnitude).squareRoot()
        var builder = DrawListBuilder(targetBounds: CGRect(x: 0, y: 0, width: Double(pb.width), height: Double(pb.height)),
                                      now: nil, scale: scale)
        builder.rasterCache = RasterCache()
        // The receiver's own placement is not applied: only its contents and sublayers.
        builder.emit(layer, h, flip: h.determinant < 0 ? -1 : 1)
        return composite(builder.ops, into: pb, region: PixelBox(x0: 0, y0: 0, x1: pb.width, y1: pb.height),
                         clear: false, textures: TextureCache())
    }

    /// Fills `r` (user space) with the fill colour, or clears it (copy of zero).
    func fill(_ r: CGRect, clear: Bool) -> Bool {
        guard let pb = bitmap else { return false }
        var op = DrawOp(.fill)
        op.transform = ctmHomography
        op.rect = r.standardized
        op.color = gstate.fill
        op.bounds = op.transform.bounds(of: op.rect)
        let region = PixelBox(covering: op.bounds).intersection(PixelBox(x0: 0, y0: 0, x1: pb.width, y1: pb.height))
        guard !region.isEmpty else { return true }
        if clear {
            // Clearing replaces pixels by transparent black, weighted by coverage.
            pb.lock(readOnly: false)
            defer { try? pb.unlock(readOnly: false) }
            guard let canvas = pb.canvas(region, read: true), let shape = ShapeMap(op) else { return false }
            for y in region.y0..<region.y1 {
                let row = canvas.row(y)
                for x in region.x0..<region.x1 {
                    guard let q = shape.local(Double(x) + 0.5, Double(y) + 0.5) else { continue }
                    let c = unit8(ShapeMap.coverage(shape.rect, 0, 0xF, q.x, q.y, q.sx, q.sy))
                    if c > 0 { row[x] = scalePixel(row[x], 255 - c) }
                }
            }
            return pb.finish(canvas)
        }
        return composite([op], into: pb, region: region, clear: false, textures: TextureCache())
    }
}
