import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel

// Idle frames: the renderer's fingerprint is its bounds and the tree's
// (Layer+Fingerprint.swift). When it equals the last frame's and nothing
// animates, the last frame's operations are reused without rebuilding or
// comparing them.

extension Renderer {
    /// The fingerprint of the tree under `root` (nil when something in it
    /// animates: then the frame depends on time), and whether its model tree
    /// is what a frame shows (nothing animates and no layer has uncommitted
    /// changes), found in the same walk.
    package func fingerprint(_ root: Layer) -> (print: UInt64?, modelIsPresentation: Bool) {
        var h = FingerprintHasher()
        h.mix(bounds)
        return root.treeFingerprint(&h)
    }
}
