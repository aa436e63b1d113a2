import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics

// CAReplicatorLayer's model state. The properties are rows of the property
// table (scripts/generate-layer-properties.py). The instances are not layers:
// the renderer draws the sublayers instanceCount times, each instance moved
// by one more instanceTransform, tinted by its colour and, with an
// instanceDelay, showing its sublayers' animations that much later
// (QuartziteRender/Render/DrawListBuilder+Replicator.swift).

package final class ReplicatorLayerState {
    /// Apple's NSInteger; never negative (the setters refuse negatives).
    package var instanceCount = 1
    package var instanceDelay = 0.0
    package var instanceTransform = CATransform3D.identity
    /// nil: no tint (as opaque white).
    package var instanceColor: Color? = Color.opaqueWhite
    package var instanceRedOffset: Float = 0
    package var instanceGreenOffset: Float = 0
    package var instanceBlueOffset: Float = 0
    package var instanceAlphaOffset: Float = 0
    package var preservesDepth = false

    /// At most this many instances are drawn (a larger instanceCount is
    /// stored as given, and drawn as this many).
    package static let maxDrawnInstances = 10_000

    package init() {}

    package func copy() -> ReplicatorLayerState {
        let c = ReplicatorLayerState()
        c.instanceCount = instanceCount
        c.instanceDelay = instanceDelay
        c.instanceTransform = instanceTransform
        c.instanceColor = instanceColor
        c.instanceRedOffset = instanceRedOffset
        c.instanceGreenOffset = instanceGreenOffset
        c.instanceBlueOffset = instanceBlueOffset
        c.instanceAlphaOffset = instanceAlphaOffset
        c.preservesDepth = preservesDepth
        return c
    }

    /// How many instances are drawn: instanceCount within 0...maxDrawnInstances.
    package var drawnInstanceCount: Int { Swift.min(Swift.max(instanceCount, 0), Self.maxDrawnInstances) }

    /// Instance `k`'s modulation colour, not premultiplied: instanceColor plus
    /// k times the offsets, each component clamped to 0...1 (Apple's rule:
    /// instance k's colour is instance k-1's plus the offsets).
    package func color(ofInstance k: Int) -> SIMD4<Double> {
        let base = instanceColor?.rgba ?? SIMD4(1, 1, 1, 1)
        let off = SIMD4(Double(instanceRedOffset), Double(instanceGreenOffset), Double(instanceBlueOffset),
                        Double(instanceAlphaOffset))
        var c = base + off * Double(k)
        for i in 0..<4 { c[i] = c[i].isNaN ? 0 : Swift.min(Swift.max(c[i], 0), 1) }
        return c
    }

    /// Instance `k`'s transform in the replicator's coordinates: instanceTransform
    /// applied k times about the centre of the bounds (Apple: "relative to the
    /// center of the replicator layer"). Row vectors, as CATransform3D.
    package func transform(ofInstance k: Int, bounds: CGRect) -> CATransform3D {
        guard k > 0 else { return .identity }
        var power = CATransform3D.identity
        // Repeated squaring keeps a large k cheap (the powers commute).
        var base = instanceTransform, e = k
        while e > 0 {
            if e & 1 == 1 { power = power.concatenating(base) }
            e >>= 1
            if e > 0 { base = base.concatenating(base) }
        }
        let cx = bounds.midX, cy = bounds.midY
        return CATransform3D(translationX: -cx, y: -cy, z: 0).concatenating(power)
            .concatenating(CATransform3D(translationX: cx, y: cy, z: 0))
    }
}
