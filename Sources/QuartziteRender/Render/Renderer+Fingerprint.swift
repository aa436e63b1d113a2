import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel

// Idle frames: a 64-bit fingerprint of everything the draw list depends on
// (every layer's geometry, flags, appearance, contents identity and seed,
// mask and sublayer order). When it equals the last frame's and nothing
// animates (an emitter with cells counts as animating), the last frame's
// operations are reused without rebuilding or comparing them.

package struct FingerprintHasher {
    private var state: UInt64 = 0xCBF2_9CE4_8422_2325

    /// FNV-1a over 64-bit words: each step (xor, then multiply by an odd
    /// constant) is a bijection of the state, so a frame differing from the
    /// last in one word always has a different fingerprint.
    @inline(__always) package mutating func mix(_ x: UInt64) {
        state = (state ^ x) &* 0x0000_0100_0000_01B3
    }

    /// The state through splitmix64's finaliser.
    package var value: UInt64 {
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    @inline(__always) package mutating func mix(_ d: Double) { mix(d.bitPattern) }
    @inline(__always) package mutating func mix(_ r: CGRect) { mix(r.origin.x); mix(r.origin.y); mix(r.size.width); mix(r.size.height) }
    @inline(__always) package mutating func mix(_ o: AnyObject?) {
        mix(o.map { UInt64(UInt(bitPattern: ObjectIdentifier($0))) } ?? 0)
    }
    @inline(__always) package mutating func mix(_ t: CATransform3D) {
        mix(t.m11); mix(t.m12); mix(t.m13); mix(t.m14); mix(t.m21); mix(t.m22); mix(t.m23); mix(t.m24)
        mix(t.m31); mix(t.m32); mix(t.m33); mix(t.m34); mix(t.m41); mix(t.m42); mix(t.m43); mix(t.m44)
    }
}

extension Renderer {
    /// The fingerprint of the tree under `root` (nil when something in it
    /// animates: then the frame depends on time), and whether its model tree
    /// is what a frame shows (nothing animates and no layer has uncommitted
    /// changes), found in the same walk.
    package func fingerprint(_ root: Layer) -> (print: UInt64?, modelIsPresentation: Bool) {
        var h = FingerprintHasher()
        h.mix(bounds)
        var stack: [Layer] = [root]
        var steps = 0
        var uncommitted = false
        while let l = stack.popLast() {
            steps += 1
            if l.animationList != nil || l.implicitList != nil || steps > 10_000_000 { return (nil, false) }
            // An emitter's particles move with time (and its cells change
            // outside transactions): every frame is built.
            if let e = l.emitter, !e.emitterCells.isEmpty { return (nil, false) }
            if l.hasCommittedSnapshot { uncommitted = true }
            h.mix(l)
            // Frames show committed state: a layer's log of it exists while it
            // has uncommitted changes, and goes at the commit, which must not
            // leave the fingerprint (read from the model) unchanged.
            h.mix(l.hasCommittedSnapshot ? l.transactionState : nil)
            if let t = l.tiled {
                h.mix(t.changeCount); h.mix(t.tileSize.width); h.mix(t.tileSize.height)
                h.mix(UInt64(truncatingIfNeeded: t.levelsOfDetail) &* 31 &+ UInt64(truncatingIfNeeded: t.levelsOfDetailBias))
            }
            h.mix(l.bounds); h.mix(l.position.x); h.mix(l.position.y)
            h.mix(l.anchorPoint.x); h.mix(l.anchorPoint.y); h.mix(l.anchorPointZ); h.mix(l.zPosition)
            if let t = l.transformBox?.value { h.mix(t) } else { h.mix(UInt64(1)) }
            if let t = l.sublayerTransformBox?.value { h.mix(t) } else { h.mix(UInt64(2)) }
            h.mix(UInt64(l.opacity.bitPattern) | UInt64(l.flags.subtracting([.sideState, .commonVisuals]).rawValue) << 32)
            h.mix(l.cornerRadius); h.mix(l.borderWidth); h.mix(l.backgroundColor)
            if let v = l.visuals {
                h.mix(v.contents)
                if let pb = v.contentsPixels { h.mix(UInt64(pb.seed)) }
                h.mix(v.contentsRect); h.mix(v.contentsCenter); h.mix(v.contentsScale)
                h.mix(UInt64(v.contentsGravity) | UInt64(v.minificationFilter) << 8 | UInt64(v.magnificationFilter) << 16
                      | UInt64(v.minificationFilterBias.bitPattern) << 32)
                h.mix(v.borderColor)
                h.mix(UInt64(v.shadowOpacity.bitPattern) | UInt64(v.edgeAntialiasingMask) << 32)
                h.mix(v.shadowRadius); h.mix(v.shadowOffset.width); h.mix(v.shadowOffset.height)
                h.mix(v.shadowColor); h.mix(v.shadowPath); h.mix(v.rasterizationScale)
                h.mix(v.mask)
                // (Filter values are immutable: their identity is their content.)
                h.mix(v.filters); h.mix(v.backgroundFilters); h.mix(v.compositingFilter)
                if let m = v.mask { stack.append(m) }
            } else {
                h.mix(UInt64(3))
            }
            h.mix(UInt64(l.sublayers.count))
            for s in l.sublayers { h.mix(s) }
            stack.append(contentsOf: l.sublayers)
        }
        return (h.value, !uncommitted)
    }
}
