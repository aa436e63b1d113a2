import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel

// CAReplicatorLayer: its sublayers drawn once per instance, instance k moved
// by instanceTransform k times (about the centre of the bounds), tinted by
// its colour (instanceColor plus k times the offsets) and, with an
// instanceDelay, showing its sublayers' animations k x instanceDelay later.
// The instances are never layers of the model: a delayed instance draws a
// presentation copy of the model's sublayers made at its own time.

extension DrawListBuilder {
    package mutating func emitInstances(_ layer: Layer, _ r: ReplicatorLayerState, _ h: Homography, flip: Double,
                                        level: Int, opacity: Float) {
        let count = r.drawnInstanceCount
        guard count > 0 else { return }
        let b = layer.bounds.standardized
        let space = layer.sublayerSpace
        // instanceTransform about the centre, applied once more per instance.
        let step = r.transform(ofInstance: 1, bounds: b)
        var transforms: [CATransform3D] = []
        transforms.reserveCapacity(count)
        var m = CATransform3D.identity
        for k in 0..<count {
            transforms.append(m)
            if k + 1 < count { m = m.concatenating(step) }
        }
        // The delayed instances' sublayers come from the model at their own
        // time (a presentation copy's model; nothing to delay when the model
        // tree itself is drawn: then nothing animates).
        let delay = r.instanceDelay.isFinite ? r.instanceDelay : 0
        var delayedFrom: (model: Layer, time: Double)?
        if delay != 0, count > 1, let now, let model = layer.modelLayer, model.sublayers.count == layer.sublayers.count {
            let t = model.localTime(fromMedia: now)
            if !t.isNaN { delayedFrom = (model, t) }
        }
        var order = Array(0..<count)
        if r.preservesDepth {
            // Back to front by the z the instance transform gives the centre.
            order.sort { a, c in
                let za = transforms[a].m43.isNaN ? 0 : transforms[a].m43
                let zc = transforms[c].m43.isNaN ? 0 : transforms[c].m43
                return za != zc ? za < zc : a < c
            }
        }
        for k in order {
            // (Nested replicators multiply their counts: the builder's layer
            // limit bounds the work.)
            if exhausted { break }
            let instanceSpace = space.map { transforms[k].concatenating($0) } ?? transforms[k]
            var subs = layer.sublayers
            if k > 0, let d = delayedFrom {
                subs = d.model.sublayers.map { $0.presentationSubtreeCopy(parentTime: d.time - Double(k) * delay) }
            }
            let c = r.color(ofInstance: k)
            if c == SIMD4(1, 1, 1, 1) {
                emitSublayers(subs, of: layer, h, space: instanceSpace, flip: flip, level: level, opacity: opacity)
            } else {
                if c.w <= 0 { continue }
                // The instance in a group whose pixels the colour multiplies.
                let g = begin(.beginGroup)
                ops[g].opacity = opacity
                ops[g].color = SIMD4(Float(c.x * c.w), Float(c.y * c.w), Float(c.z * c.w), Float(c.w))
                emitSublayers(subs, of: layer, h, space: instanceSpace, flip: flip, level: level, opacity: 1)
                ops[g].bounds = unionBounds(g + 1)
                end(.endGroup, from: g)
            }
            withExtendedLifetime(subs) {}
        }
    }
}
