import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel

// shouldRasterize: a layer's subtree drawn once into a bitmap at
// rasterizationScale, reused while its operations (in the layer's own
// space) are unchanged, and composited as one image with the layer's
// transform, so a GPU host sees a single textured quad.

package final class RasterCache {
    package struct Entry {
        package let ops: [DrawOp]
        package let scale: Double
        package let origin: (x: Int, y: Int)
        package let bitmap: PixelBuffer
        package var used: Bool
    }
    package var entries: [UInt: Entry] = [:]
    /// Bitmaps drawn (not reused) since the cache was made (for tests).
    package var renders = 0
    package let textures = TextureCache()

    package func sweep() {
        textures.sweep()
        entries = entries.filter { $0.value.used }
        for k in entries.keys { entries[k]!.used = false }
    }
}

extension DrawListBuilder {
    /// Largest side of a rasterization bitmap; larger subtrees draw directly.
    package static let maxRasterSide = 4096
    /// Largest area (pixels) of a rasterization bitmap.
    package static let maxRasterArea = 1 << 22

    /// The subtree of `layer` as one image operation, or false when it cannot
    /// be rasterized (then the caller draws it directly).
    package mutating func emitRasterized(_ layer: Layer, _ h: Homography, cache: RasterCache, id: UInt) -> Bool {
        let rs0 = layer.visuals?.rasterizationScale ?? 1
        let rs = rs0.isFinite && rs0 > 0 ? min(rs0, 16) : 1
        var sub = DrawListBuilder(targetBounds: .infinite, now: now, scale: rs)
        sub.rasterCache = nil
        sub.drawsTilesInline = drawsTilesInline
        sub.emit(layer, Homography(m: (rs, 0, 0, 0, rs, 0, 0, 0, 1)), flip: 1, level: 0, shadow: true)
        // (Tiled layers inside: their pending and fading tiles are the frame's.)
        if sub.tilesBusy { tilesBusy = true }
        pendingTiles += sub.pendingTiles
        var extent = PixelBox.empty
        for op in sub.ops where op.depth == 0 { extent = extent.union(PixelBox(covering: op.bounds)) }
        guard !extent.isEmpty else { return true }   // nothing to draw
        guard extent.width <= Self.maxRasterSide, extent.height <= Self.maxRasterSide,
              extent.width * extent.height <= Self.maxRasterArea else { return false }
        let bitmap: PixelBuffer
        if let e = cache.entries[id], e.scale == rs, e.ops.count == sub.ops.count,
           zip(e.ops, sub.ops).allSatisfy({ $0.sameContent(as: $1) }) {
            bitmap = e.bitmap
            cache.entries[id]!.used = true
        } else {
            guard let pb = try? PixelBuffer.create(width: extent.width, height: extent.height,
                                                   pixelFormat: UInt32(kCVPixelFormatType_32BGRA), attributes: nil) else { return false }
            pb.lock(readOnly: false)
            if let base = pb.baseAddress, pb.bytesPerRow % 4 == 0 {
                // Draw straight into the bitmap's rows (its pixel (0, 0) is extent's corner).
                let canvas = Canvas(view: base.assumingMemoryBound(to: UInt32.self), rowPixels: pb.bytesPerRow / 4, rect: extent)
                var comp = Compositor(root: canvas, textures: cache.textures)
                comp.run(sub.ops)
            }
            try? pb.unlock(readOnly: false)
            pb.pixelsChanged()
            cache.renders += 1
            cache.entries[id] = RasterCache.Entry(ops: sub.ops, scale: rs, origin: (extent.x0, extent.y0), bitmap: pb, used: true)
            bitmap = pb
        }
        var op = DrawOp(.image)
        op.transform = h
        op.rect = CGRect(x: Double(extent.x0) / rs, y: Double(extent.y0) / rs,
                         width: Double(extent.width) / rs, height: Double(extent.height) / rs)
        op.texture = bitmap
        op.textureSeed = bitmap.seed
        op.color = SIMD4(1, 1, 1, 1)
        op.layerID = id
        addRaster(op)
        return true
    }
}
