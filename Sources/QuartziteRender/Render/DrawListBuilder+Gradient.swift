import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel

// CAGradientLayer: its gradient, drawn from the layer's presentation values
// over its background and under its contents, as one image operation whose
// bitmap is the gradient at the size the layer covers in the target. The
// bitmap is kept on the model layer and redrawn only when the colours,
// locations, points, type, size or corner radius change.

/// The last gradient bitmap of a layer and what it was drawn from.
final class GradientRasterCache {
    struct Key: Equatable {
        var stops: [Double]
        var kind: UInt8
        var points: [Double]
        var width: Int, height: Int
        var radius: Double
    }
    let key: Key
    let bitmap: PixelBuffer
    init(key: Key, bitmap: PixelBuffer) {
        self.key = key
        self.bitmap = bitmap
    }
}

extension DrawListBuilder {
    /// Largest side of a gradient bitmap (larger layers stretch it).
    package static let maxGradientSide = 4096

    package mutating func emitGradient(_ layer: Layer, _ h: Homography, bounds b: CGRect, cornerRadius: Double,
                                       opacity: Float, edges: UInt32, id: UInt) {
        guard let g = layer.gradient, let stops = g.stops(), b.width > 0, b.height > 0,
              g.startPoint.isFinite, g.endPoint.isFinite else { return }
        let target = h.bounds(of: b)
        guard !target.hasNaN, target.width.isFinite, target.height.isFinite else { return }
        // (Clamped as doubles: a huge layer must not overflow the conversion.)
        let pw = Swift.max(1, Int(Swift.min(target.width.rounded(.up), Double(Self.maxGradientSide))))
        let ph = Swift.max(1, Int(Swift.min(target.height.rounded(.up), Double(Self.maxGradientSide))))
        let radius = cornerRadius * Swift.min(Double(pw) / b.width, Double(ph) / b.height)
        let raster: [LayerGradientRaster.Stop] = stops.map { ($0.location, $0.color.rgba) }
        var flat: [Double] = []
        for s in raster { flat += [s.location, s.rgba.x, s.rgba.y, s.rgba.z, s.rgba.w] }
        let key = GradientRasterCache.Key(stops: flat, kind: g.type,
                                          points: [g.startPoint.x, g.startPoint.y, g.endPoint.x, g.endPoint.y],
                                          width: pw, height: ph, radius: radius)
        // The cache lives on the model layer (presentation copies are made afresh each frame).
        let owner = (layer.modelLayer ?? layer).gradient
        let bitmap: PixelBuffer
        if let c = owner?.renderCache as? GradientRasterCache, c.key == key {
            bitmap = c.bitmap
        } else {
            guard let pb = LayerGradientRaster.render(stops: raster, kind: LayerGradientRaster.Kind(rawValue: g.type) ?? .axial,
                                                      start: g.startPoint, end: g.endPoint, width: pw, height: ph,
                                                      cornerRadius: radius) else { return }
            owner?.renderCache = GradientRasterCache(key: key, bitmap: pb)
            bitmap = pb
        }
        var op = DrawOp(.image)
        op.transform = h
        op.rect = b
        op.texture = bitmap
        op.textureSeed = bitmap.seed
        op.color = SIMD4(1, 1, 1, 1)
        op.opacity = opacity
        op.edgeMask = edges
        op.layerID = id
        addRaster(op)
    }
}
