import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel

// CAShapeLayer: its path filled and stroked from the layer's presentation
// values (so an animated path or strokeEnd shows every frame, with no
// backing store that lags), drawn with cairo into a bitmap covering the
// shape's extent in the target and composited as one image operation, over
// the background and gradient and under the contents and sublayers. The
// bitmap is kept on the model layer while nothing it shows changes.

final class ShapeRasterCache {
    struct Key: Equatable {
        var path: ObjectIdentifier
        var numbers: [Double]
        var flags: [UInt8]
        var width: Int, height: Int
    }
    let key: Key
    let path: Path   // (keeps the identity in the key alive)
    let bitmap: PixelBuffer
    init(key: Key, path: Path, bitmap: PixelBuffer) {
        self.key = key
        self.path = path
        self.bitmap = bitmap
    }
}

extension DrawListBuilder {
    /// Largest side of a shape bitmap (larger shapes are drawn at a lower resolution).
    package static let maxShapeSide = 4096

    package mutating func emitShape(_ layer: Layer, _ h: Homography, opacity: Float, id: UInt) {
        guard let s = layer.shape, let path = s.path, !path.data.isEmpty else { return }
        var style = ShapeRaster.Style()
        style.fill = s.fillColor.map(\.rgba)
        style.evenOdd = s.fillRule == 1
        style.stroke = s.strokeColor.map(\.rgba)
        style.strokeStart = s.strokeStart
        style.strokeEnd = s.strokeEnd
        style.lineWidth = s.lineWidth
        style.miterLimit = s.miterLimit
        style.cap = s.lineCap
        style.join = s.lineJoin
        style.dashes = s.dashes
        style.dashPhase = s.lineDashPhase
        let box = path.data.pathBoundingBox
        guard !box.isNull, !box.hasNaN else { return }
        let o = ShapeRaster.strokeOutset(style)
        var extent = box.insetBy(dx: -o, dy: -o)
        // A fill alone of a line has no area: one pixel keeps the bitmap valid.
        if extent.width <= 0 { extent = extent.insetBy(dx: -0.5, dy: 0) }
        if extent.height <= 0 { extent = extent.insetBy(dx: 0, dy: -0.5) }
        // On an axis-aligned mapping, snap the extent to whole target pixels
        // so that the bitmap's pixels are the target's (no resampling).
        let m = h.m
        if m.1 == 0, m.3 == 0, m.2 == 0, m.5 == 0, m.8 == 1, m.0 > 0, m.4 > 0 {
            let x0 = (extent.minX * m.0 + m.6).rounded(.down), x1 = (extent.maxX * m.0 + m.6).rounded(.up)
            let y0 = (extent.minY * m.4 + m.7).rounded(.down), y1 = (extent.maxY * m.4 + m.7).rounded(.up)
            extent = CGRect(x: (x0 - m.6) / m.0, y: (y0 - m.7) / m.4, width: (x1 - x0) / m.0, height: (y1 - y0) / m.4)
        }
        let target = h.bounds(of: extent)
        guard !target.hasNaN, target.width.isFinite, target.height.isFinite, !target.isEmpty else { return }
        // (Clamped as doubles: a huge shape or line width must not overflow the conversion.)
        let pw = Swift.max(1, Int(Swift.min(target.width.rounded(), Double(Self.maxShapeSide))))
        let ph = Swift.max(1, Int(Swift.min(target.height.rounded(), Double(Self.maxShapeSide))))
        var numbers = [extent.minX, extent.minY, extent.width, extent.height, style.strokeStart, style.strokeEnd,
                       style.lineWidth, style.miterLimit, style.dashPhase]
        for c in [style.fill, style.stroke] {
            if let c { numbers += [1, c.x, c.y, c.z, c.w] } else { numbers.append(0) }
        }
        numbers += style.dashes ?? []
        let key = ShapeRasterCache.Key(path: ObjectIdentifier(path), numbers: numbers,
                                       flags: [style.evenOdd ? 1 : 0, style.cap, style.join], width: pw, height: ph)
        let owner = (layer.modelLayer ?? layer).shape
        let bitmap: PixelBuffer
        if let c = owner?.renderCache as? ShapeRasterCache, c.key == key {
            bitmap = c.bitmap
        } else {
            guard let pb = ShapeRaster.render(path, style: style, rect: extent, width: pw, height: ph) else { return }
            owner?.renderCache = ShapeRasterCache(key: key, path: path, bitmap: pb)
            bitmap = pb
        }
        var op = DrawOp(.image)
        op.transform = h
        op.rect = extent
        op.texture = bitmap
        op.textureSeed = bitmap.seed
        op.color = SIMD4(1, 1, 1, 1)
        op.opacity = opacity
        op.edgeMask = 0
        op.layerID = id
        addRaster(op)
    }
}
