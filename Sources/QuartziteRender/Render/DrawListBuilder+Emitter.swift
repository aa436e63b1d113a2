import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel

// CAEmitterLayer: its live particles at the layer's local time, each its
// cell's image centred on the particle, scaled and turned by it, tinted by its
// colour (an image operation's tint), added to what lies below in additive
// render mode; at most 256 target areas of particle pixels per emitter per
// frame. The particles are a function of time (EmitterLayer.swift):
// nothing here depends on earlier frames.

extension DrawListBuilder {
    package mutating func emitParticles(_ layer: Layer, _ e: EmitterLayerState, _ h: Homography, opacity: Float, id: UInt) {
        // The emitter's time: the layer's local time at the frame's time (the
        // model tree, drawn without one, at the clock's time).
        let model = layer.modelLayer ?? layer
        let t = model.localTime(fromMedia: now ?? MediaClock.now())
        guard t.isFinite else { return }
        let additive = e.renderMode == EmitterLayerState.RenderMode.additive.rawValue
        // The particles' visible area is bounded too (at most 256 times the
        // target's, in pixels): huge scales cannot make a frame unbounded work.
        let pixelBudget = 256 * Swift.max(targetArea, 1)
        var pixels = 0.0
        for p in e.particles(at: t) {
            if exhausted || pixels > pixelBudget { break }
            guard let image = p.cell.contents, image.width > 0, image.height > 0,
                  p.scale > 0, p.scale.isFinite, p.angle.isFinite, p.color.w > 0 else { continue }
            let pos = p.position
            guard pos.x.isFinite, pos.y.isFinite, pos.x.magnitude < 1e9, pos.y.magnitude < 1e9 else { continue }
            let w = Double(image.width), hh = Double(image.height)
            // Centred on the particle: scale, then spin, then move.
            let place = CATransform3D(scaleX: p.scale, y: p.scale, z: 1)
                .concatenating(CATransform3D(rotationAngle: p.angle, x: 0, y: 0, z: 1))
                .concatenating(CATransform3D(translationX: pos.x, y: pos.y, z: 0))
            let th = Homography(place).then(h)
            guard th.isFinite else { continue }
            var op = DrawOp(.image)
            op.transform = th
            op.rect = CGRect(x: -w / 2, y: -hh / 2, width: w, height: hh)
            op.texture = image.pixels; op.textureSeed = image.pixels.seed
            op.color = SIMD4(1, 1, 1, 1)
            let c = p.color
            if c != SIMD4(1, 1, 1, 1) {
                op.tint = SIMD4(Float(c.x * c.w), Float(c.y * c.w), Float(c.z * c.w), Float(c.w))
            }
            op.additive = additive
            op.opacity = opacity
            op.layerID = id
            let before = ops.count
            addRaster(op)
            if ops.count > before, let b = ops.last?.bounds { pixels += b.width * b.height }
        }
    }
}
